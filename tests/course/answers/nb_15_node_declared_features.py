"""The teachers' check of 15-node-declared-features: each exercise's expected answer recomputed by the library
(run after the notebook's own cells, in its kernel, by tests/course/test_exercise_answers.py)."""

from kschedlab.api.core import Pod
from kschedlab.viz.node_declared_features import required_names

# ex1: checker, on the host network without a user namespace, with a restart rule whose action is Restart
(checker,) = admit(load_text("""\
apiVersion: v1
kind: Pod
metadata: {name: checker, namespace: default}
spec:
  hostNetwork: true
  hostUsers: true
  containers:
  - name: worker
    image: checker:1.0
    restartPolicy: Never
    restartPolicyRules:
    - action: Restart
      exitCodes: {operator: In, values: [42]}
"""))
assert required_names(checker) == []
checker_nodes = len(features_outcome([*objects, checker], "default/checker").feasible)
# ex2: hostNetwork in a user namespace with ulimits; which node runs it after declaring one more feature
probe = Pod.model_validate({"metadata": {"name": "hostprobe", "namespace": "default"},
                            "spec": {"hostNetwork": True, "hostUsers": False, "containers": [{"name": "c",
                                     "securityContext": {"ulimits": [{"name": "nofile", "soft": 1024, "hard": 1024}]}}]}})
assert required_names(probe) == ["ContainerUlimits", "UserNamespacesHostNetworkSupport"]
assert features_outcome([*objects, probe], "default/hostprobe").node is None
lists = {o.metadata.name: list(o.status.declared_features) for o in objects if o.kind == "Node"}
one_more = sorted({features_outcome([*objects, probe], "default/hostprobe", {name: [*have, feature]}).node
                   for name, have in lists.items() for feature in required_names(probe)} - {None})
(needed,) = one_more
unsorted = bad.replace("[RestartAllContainersOnContainerExits, ContainerUlimits, ContainerUlimits, per-pod-pids]",
                       "[RestartAllContainersOnContainerExits, ContainerUlimits]")
try:
    admit(load_text(unsorted))
    refused = False
except ManifestError as err:
    refused = "list must be sorted alphabetically" in str(err)
expected = [(ex1, checker_nodes), (ex2, needed), (ex3, "b" if refused else "a")]
for ex, value in expected:
    assert ex.verdict(value)[0], ex.question
print("nodes checker may run on:", checker_nodes, "| node with one more feature:", needed, "| unsorted list refused:", refused)
