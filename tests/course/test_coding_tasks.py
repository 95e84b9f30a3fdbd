"""The checks of the course's coding tasks answer a student's mistakes with a sentence, never a traceback."""

from __future__ import annotations

import pytest

from kschedlab.exercises import exercise
from kschedlab.framework.interface import Plugin
from kschedlab.framework.status import Status
from kschedlab.research.fgd.policies import Policy


def _raising_hint(pod_info, old_obj, new_obj):
    return old_obj.no_such_field


class _RaisingScore(Plugin):
    name = "RaisingScore"

    def score_placement(self, state, group, assignments):
        raise KeyError("rack")


class _RaisingPolicy(Policy):
    name = "RaisingPolicy"

    def score(self, node, pod):
        raise ValueError("no score")


class _RaisingGate(Plugin):
    name = "RaisingGate"

    def pre_enqueue(self, pod_info):
        return Status() if pod_info.pod.spec.scheduling_group is None else self.handle.no_such_field


class _HoldEverything(Plugin):
    name = "HoldEverything"

    def pre_enqueue(self, pod_info):
        return Status.unresolvable("held")


def _float_share(percentage, num_all_nodes):
    return num_all_nodes if num_all_nodes < 100 else max(num_all_nodes * max(percentage or 50, 5) / 100, 100)


class _RaisingFilter(Plugin):
    name = "RaisingFilter"

    def filter(self, state, pod_info, node_info):
        return Status() if node_info.node.status.declared_features else node_info.no_such_field


class _DeclaresAnything(Plugin):
    name = "DeclaresAnything"

    def filter(self, state, pod_info, node_info):
        return Status() if node_info.node.status.declared_features else Status.unresolvable("old kubelet")


class _RaisingGPUScore(Plugin):
    name = "RaisingGPUScore"

    def score(self, state, pod_info, node_info):
        return node_info.allocatable["example.com/fpga"], Status()


class _BinPackingWithoutThePod(Plugin):
    """Notebook 18's GPUBinPacking, per node: the pod's own GPUs are not counted."""

    name = "BinPackingWithoutThePod"

    def score(self, state, pod_info, node_info):
        capacity = node_info.allocatable.get("nvidia.com/gpu", 0)
        return (node_info.requested.get("nvidia.com/gpu", 0) * 100 // capacity if capacity else 0), Status()


class _SameName(Plugin):
    name = "PodGroupPodsCount"

    def score_placement(self, state, group, assignments):
        return 0, Status()


@pytest.mark.parametrize(("notebook", "number", "answer", "said"), [
    ("12-priority-and-preemption", 5, _raising_hint, "when default/bound is deleted your hint raised AttributeError"),
    ("12-priority-and-preemption", 5, Plugin, "give a function hint(pod_info, old_obj, new_obj)"),
    ("16-podgroups-and-placement", 5, _RaisingScore, "scheduling podgroup/ml/training, your plugin raised KeyError"),
    ("16-podgroups-and-placement", 5, _SameName, "give your plugin a name of its own (not 'PodGroupPodsCount')"),
    ("16-podgroups-and-placement", 5, "MyPodsCount", "give a plugin class with score_placement"),
    ("19-reproducing-a-paper", 4, _RaisingPolicy, "your policy raised ValueError: no score."),
    ("04-scheduling-readiness", 4, _HoldEverything,
     "for default/ungated your plugin returns UnschedulableAndUnresolvable; SchedulingGates returns Success."),
    ("04-scheduling-readiness", 4, "MyGates", "give a plugin class with pre_enqueue"),
    ("09-gang-scheduling", 4, _RaisingGate, "asked about default/small-0, your plugin raised AttributeError"),
    ("10-performance-tuning", 5, _float_share, "for (0, 1000) your function returns 500.0; "
                                               "num_feasible_nodes_to_find returns 420."),
    ("10-performance-tuning", 5, lambda percentage: 100, "for (0, 50) your function raised TypeError"),
    ("07-framework", 4, Plugin, "give a plugin class"),
    ("08-dynamic-resource-allocation", 6, 'device.attributes["gpu.example.com"].model == "a100"',
     "on node-2-nics/nic-0 your selector fails: no such key: model."),
    ("08-dynamic-resource-allocation", 6, 'device.driver = "gpu.example.com"', "your selector does not compile"),
    ("08-dynamic-resource-allocation", 6,
     'device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].model == "a100"',
     "your selector picks node-1/gpu-0, node-1/gpu-1, node-2/gpu-0: not the devices asked for."),
    ("19-reproducing-a-paper", 4, 3, "give a policy class (class MyPolicy(Policy): ...), not 3."),
    ("15-node-declared-features", 5, _DeclaresAnything,
     "for default/web on node-old your plugin's verdict is rejects; NodeDeclaredFeatures's is passes."),
    ("15-node-declared-features", 5, _RaisingFilter, "scheduling default/web, your plugin raised AttributeError"),
    ("18-research-workflow", 6, _BinPackingWithoutThePod, "seed 0: cpu_fragmentation_mean is 0.71784 with your plugin, "
                                                          "0.826066 with NodeResourcesFit."),
    ("18-research-workflow", 6, _RaisingGPUScore, "seed 0: your plugin raised KeyError: 'example.com/fpga'."),
    ("18-research-workflow", 6, "GPUBinPacking", "give a Score plugin class (class MyScore(Plugin): ...), not"),
])
def test_a_wrong_answer_gets_a_sentence(notebook, number, answer, said):
    ok, message = exercise(notebook, number).verdict(answer)
    assert ok is False
    assert said in message
