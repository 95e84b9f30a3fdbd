"""The teachers' check of 15-node-declared-features: each exercise's expected answer recomputed by the library
(run after the notebook's own cells, in its kernel, by tests/course/test_exercise_answers.py)."""

from kschedlab.api.core import Pod
from kschedlab.viz.node_declared_features import required_names

trainer_nodes = len(features_outcome(objects, "default/trainer").feasible)
probe = Pod.model_validate({"metadata": {"name": "probe"}, "spec": {"hostNetwork": True, "hostUsers": False,
                                                                    "containers": [{"name": "c"}]}})
(needed,) = required_names(probe)
unsorted = bad.replace("[RestartAllContainersOnContainerExits, ContainerUlimits, ContainerUlimits, per-pod-pids]",
                       "[RestartAllContainersOnContainerExits, ContainerUlimits]")
try:
    admit(load_text(unsorted))
    refused = False
except ManifestError as err:
    refused = "list must be sorted alphabetically" in str(err)
expected = [(ex1, trainer_nodes), (ex2, needed), (ex3, "b" if refused else "a")]
for ex, value in expected:
    assert ex.verdict(value)[0], ex.question
print("nodes passing for trainer:", trainer_nodes, "| feature:", needed, "| unsorted list refused:", refused)
