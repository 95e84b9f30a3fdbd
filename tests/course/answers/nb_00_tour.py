"""The teachers' check of 00-tour: each exercise's expected answer recomputed by the library
(run after the notebook's own cells, in its kernel, by tests/course/test_exercise_answers.py)."""

from kschedlab.api.core import Toleration
from kschedlab.api.loader import load_objects

cache_table = by_pod["default/cache-0"].explain()
big_statuses = by_pod["default/big-0"].trace.filter_statuses()
insufficient = [n for n, st in big_statuses.items() if st.plugin == "NodeResourcesFit"]
# ex1: cache-0 tolerating gpu-b3's taint, scheduled again on a fresh copy of the scenario
tolerant = Cluster.from_manifests(path("default"))
tolerant.pods["default/cache-0"].spec.tolerations.append(
    Toleration(key="nvidia.com/gpu", operator="Exists", effect="NoSchedule"))
cache_tolerant = next(r for r in Scheduler(tolerant, config, seed=0).run() if r.pod == "default/cache-0")
assert cache_table.loc["gpu-b3", "filter"] == "TaintToleration"
# ex2: the same scenario, TaintToleration at weight 1
weight_1 = load_objects([{"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
                          "profiles": [{"schedulerName": "default-scheduler", "plugins": {
                              "score": {"enabled": [{"name": "TaintToleration", "weight": 1}]}}}]}])[0]
cache_1 = next(r for r in Scheduler(Cluster.from_manifests(path("default")), weight_1, seed=0).run()
               if r.pod == "default/cache-0")
table_1 = cache_1.explain()
assert (table_1.loc[cache_1.node, "TaintToleration weighted"], cache_1.node) == (100, by_pod["default/cache-0"].node)
expected = [(ex1, cache_tolerant.explain().loc["gpu-b3", "filter"]),
            (ex2, int(table_1.loc[cache_1.node, "total"])),
            (ex3, len(insufficient))]
for ex, value in expected:
    assert ex.verdict(value)[0], ex.question
print("gpu-b3 rejected for a tolerant cache-0 by:", cache_tolerant.explain().loc["gpu-b3", "filter"],
      "| cache-0 total with TaintToleration at weight 1:", table_1.loc[cache_1.node, "total"], "on", cache_1.node,
      "| Insufficient cpu on:", insufficient)
