"""Model answers of the course's coding tasks (the exercise book's ``plugin`` exercises), and a
plugin that is always wrong; tests/course/test_exercise_answers.py checks both against the book."""

from __future__ import annotations

from kschedlab.api.tolerations import tolerates
from kschedlab.framework.interface import Plugin
from kschedlab.framework.status import Status


class MyCordon(Plugin):
    """NodeUnschedulable: a cordoned node passes only a pod tolerating the cordon taint."""

    name = "MyCordon"

    def filter(self, state, pod_info, node_info):
        if not node_info.node.spec.unschedulable:
            return Status()
        for tol in pod_info.pod.spec.tolerations:
            if (tol.key in ("", None, "node.kubernetes.io/unschedulable") and tol.operator == "Exists"
                    and tol.effect in (None, "", "NoSchedule")):
                return Status()
        return Status.unresolvable("node(s) were unschedulable")


class MyCpuFit(Plugin):
    """NodeResourcesFit, CPU only: the pod's request must fit in allocatable minus requested."""

    name = "MyCpuFit"

    def filter(self, state, pod_info, node_info):
        want = pod_info.requests.get("cpu", 0)
        free = node_info.allocatable.get("cpu", 0) - node_info.requested.get("cpu", 0)
        return Status() if want <= free else Status.unschedulable("Insufficient cpu")


class MySelector(Plugin):
    """NodeAffinity, nodeSelector only: every key of the selector with the same value on the node."""

    name = "MySelector"

    def filter(self, state, pod_info, node_info):
        labels = node_info.node.metadata.labels
        if all(labels.get(key) == value for key, value in pod_info.pod.spec.node_selector.items()):
            return Status()
        return Status.unresolvable("node(s) didn't match Pod's node affinity/selector")


class MyTaints(Plugin):
    """TaintToleration's Filter: every NoSchedule / NoExecute taint tolerated by some toleration."""

    name = "MyTaints"

    def filter(self, state, pod_info, node_info):
        for taint in node_info.node.spec.taints:
            if taint.effect in ("NoSchedule", "NoExecute") and not any(
                    tolerates(tol, taint) for tol in pod_info.pod.spec.tolerations):
                return Status.unresolvable("node(s) had untolerated taint(s)")
        return Status()


class RejectEverything(Plugin):
    """A wrong answer to every Filter task."""

    name = "RejectEverything"

    def filter(self, state, pod_info, node_info):
        return Status.unschedulable("no")
