"""Model answers of the course's coding tasks (the exercise book's ``plugin`` and ``function``
exercises), and a plugin and a function that are always wrong; tests/course/test_exercise_answers.py
checks them against the book."""

from __future__ import annotations

import numpy as np

from kschedlab.api.quantity import Quantity
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


def my_threshold_bytes(value, capacity):
    """A threshold ("10%" or "1Gi") as bytes of ``capacity``: a float32 percentage, a float64 product."""
    if value.endswith("%"):
        fraction = np.float32(value[:-1]) / np.float32(100)
        return int(float(capacity) * float(fraction))
    return Quantity(value).value()


def my_oom_badness(rss_bytes, oom_score_adj, totalpages):
    """The kernel's badness in 4 KiB pages; None for oom_score_adj -1000."""
    if oom_score_adj == -1000:
        return None
    return rss_bytes // 4096 + oom_score_adj * (totalpages // 1000)


def always_zero(*args):
    """A wrong answer to every function task."""
    return 0
