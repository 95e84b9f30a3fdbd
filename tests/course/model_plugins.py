"""Model answers of the course's coding tasks (the exercise book's ``plugin`` and ``function``
exercises), and a plugin and a function that are always wrong; tests/course/test_exercise_answers.py
checks them against the book."""

from __future__ import annotations

import numpy as np

from kschedlab.api.meta import label_selector_matches
from kschedlab.api.quantity import Quantity
from kschedlab.api.resources import resource_list
from kschedlab.api.tolerations import tolerates
from kschedlab.framework.interface import Plugin
from kschedlab.framework.podgroups import get_pod_group, members
from kschedlab.framework.status import Status
from kschedlab.research.fgd.model import MAX_SPEC_CPU, MAX_SPEC_GPU
from kschedlab.research.fgd.policies import Policy


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


class MyMostAllocated(Plugin):
    """NodeResourcesFit's MostAllocated score, cpu and memory with weight 1 each."""

    name = "MyMostAllocated"

    def score(self, state, pod_info, node_info):
        total = 0
        for resource in ("cpu", "memory"):
            capacity = node_info.allocatable.get(resource, 0)
            requested = node_info.requested.get(resource, 0) + pod_info.requests.get(resource, 0)
            total += min(requested, capacity) * 100 // capacity if capacity else 0
        return total // 2, Status()


def my_fit_hint(pod_info, old_obj, new_obj):
    """NodeResourcesFit's hint for a deleted pod: it frees room only if it was bound or nominated."""
    from kschedlab.framework.events import QueueingHint

    if old_obj.spec.node_name or old_obj.status.nominated_node_name:
        return QueueingHint.Queue
    return QueueingHint.QueueSkip


def queue_always(pod_info, old_obj, new_obj):
    """A wrong answer to every QueueingHint task."""
    from kschedlab.framework.events import QueueingHint

    return QueueingHint.Queue


class MyPodsCount(Plugin):
    """PodGroupPodsCount: the pods a placement would hold, scaled so the best placement gets 100."""

    name = "MyPodsCount"

    def score_placement(self, state, group, assignments):
        return len(group.scheduled_pod_keys(self.handle.cluster)) + len(assignments.proposed), Status()

    def normalize_placement_score(self, state, group, scores):
        top = max(scores)
        for i, value in enumerate(scores):
            scores[i] = value * 100 // top
        return None


class ScoreNothing(Plugin):
    """A wrong answer to every PlacementScore task."""

    name = "ScoreNothing"

    def score_placement(self, state, group, assignments):
        return 0, Status()


class MyDotProduct(Policy):
    """The simulator's DotProduct (Tetris): the smaller the free x wanted product, the higher the score."""

    name = "MyDotProduct"

    def score(self, node, pod):
        if node.cpu_left < pod.milli_cpu:
            return 0
        free = (node.cpu_left / MAX_SPEC_CPU, node.total_gpu_left / MAX_SPEC_GPU)
        want = (pod.milli_cpu / MAX_SPEC_CPU, pod.total_milli_gpu / MAX_SPEC_GPU)
        dot = (free[0] * want[0] + free[1] * want[1]) / 2
        return int(100 * (1 - dot))


class ScoreZero(Policy):
    """A wrong answer to every policy task."""

    name = "ScoreZero"

    def score(self, node, pod):
        return 0


class MySpread(Plugin):
    """PodTopologySpread's Filter for DoNotSchedule constraints (every node has the keys, no policies)."""

    name = "MySpread"

    def filter(self, state, pod_info, node_info):
        pod, cluster = pod_info.pod, self.handle.cluster
        nodes = cluster.nodes  # name -> Node
        for constraint in pod.spec.topology_spread_constraints:
            if constraint.when_unsatisfiable != "DoNotSchedule":
                continue
            key = constraint.topology_key
            here = node_info.node.metadata.labels.get(key)
            if here is None:
                return Status.unresolvable("node(s) didn't match pod topology spread constraints (missing required label)")
            counts = {node.metadata.labels[key]: 0 for node in nodes.values() if key in node.metadata.labels}
            for other in cluster.pods.values():
                node = nodes.get(other.spec.node_name)
                if (node is not None and key in node.metadata.labels
                        and other.metadata.namespace == pod.metadata.namespace
                        and label_selector_matches(constraint.label_selector, other.metadata.labels)):
                    counts[node.metadata.labels[key]] += 1
            self_match = 1 if label_selector_matches(constraint.label_selector, pod.metadata.labels) else 0
            if counts[here] + self_match - min(counts.values()) > constraint.max_skew:
                return Status.unschedulable("node(s) didn't match pod topology spread constraints")
        return Status()


class MyPreferTaints(Plugin):
    """TaintToleration's Score: count the PreferNoSchedule taints the pod does not tolerate; fewer is better."""

    name = "MyPreferTaints"

    def score(self, state, pod_info, node_info):
        tolerations = [t for t in pod_info.pod.spec.tolerations if t.effect in (None, "", "PreferNoSchedule")]
        count = sum(1 for taint in node_info.node.spec.taints if taint.effect == "PreferNoSchedule"
                    and not any(tolerates(tol, taint) for tol in tolerations))
        return count, Status()

    def normalize_score(self, state, pod_info, scores):
        highest = int(scores.max()) if len(scores) else 0
        if highest == 0:
            scores[:] = 100
        else:
            scores[:] = 100 - scores * 100 // highest
        return Status()


class MyGates(Plugin):
    """SchedulingGates: hold a pod back while it has scheduling gates."""

    name = "MyGates"

    def pre_enqueue(self, pod_info):
        gates = [gate.name for gate in pod_info.pod.spec.scheduling_gates]
        if gates:
            return Status.unresolvable(f"waiting for scheduling gates: [{' '.join(gates)}]")
        return Status()


class MyGang(Plugin):
    """GangScheduling's PreEnqueue: a gang's pod waits until its PodGroup and minCount of its pods exist."""

    name = "MyGang"

    def pre_enqueue(self, pod_info):
        pod = pod_info.pod
        if pod.spec.scheduling_group is None:
            return Status()
        cluster, namespace = self.handle.cluster, pod.metadata.namespace or ""
        name = pod.spec.scheduling_group.pod_group_name
        group = get_pod_group(cluster, namespace, name)
        if group is None:
            return Status.unresolvable(f'waiting for pod\'s pod group "{name}" to appear in scheduling queue')
        gang = group.spec.scheduling_policy.gang
        if gang is not None and len(members(cluster, namespace, name)) < (gang.min_count or 0):
            return Status.unresolvable("waiting for minCount pods from a gang to appear in scheduling queue")
        return Status()


class AdmitEverything(Plugin):
    """A wrong answer to every PreEnqueue task."""

    name = "AdmitEverything"

    def pre_enqueue(self, pod_info):
        return Status()


def my_num_feasible_nodes_to_find(percentage, num_all_nodes):
    """numFeasibleNodesToFind: every node below 100 nodes, else a share (adaptive when 0), at least 100."""
    if num_all_nodes < 100:
        return num_all_nodes
    if percentage == 0:
        percentage = max(50 - num_all_nodes // 125, 5)
    return max(num_all_nodes * percentage // 100, 100)


def all_nodes(percentage, num_all_nodes):
    """A wrong answer to the numFeasibleNodesToFind task: every node."""
    return num_all_nodes


def my_pod_requests(pod):
    """A pod's requests as the scheduler counts them (no init containers): the containers' sum plus the overhead."""
    total = {}
    for container in pod.spec.containers:
        for name, value in resource_list(container.resources.requests if container.resources else {}).items():
            total[name] = total.get(name, 0) + value
    for name, value in resource_list(pod.spec.overhead or {}).items():
        total[name] = total.get(name, 0) + value
    return total


def my_scaled_value(value, total, round_up):
    """intstr.GetScaledValueFromIntOrPercent: an int as is, a percentage of total rounded up or down."""
    if isinstance(value, int):
        return value
    scaled = int(value[:-1]) * total
    return -(-scaled // 100) if round_up else scaled // 100


class MyPlacementFit(Plugin):
    """NodeResourcesFit's PlacementScore: MostAllocated over the placement's summed cpu and memory."""

    name = "MyPlacementFit"

    def score_placement(self, state, group, assignments):
        snapshot = self.handle.cluster.snapshot
        nodes = [snapshot.node_info(name) for name in assignments.placement.node_names(snapshot)]
        total = 0
        for resource in ("cpu", "memory"):
            capacity = sum(node.allocatable.get(resource, 0) for node in nodes)
            requested = sum(node.requested.get(resource, 0) for node in nodes)
            default = {"cpu": 100, "memory": 200 * 1024 * 1024}[resource]  # a pod asking for none counts as this
            requested += sum(pod_info.requests.get(resource) or default for pod_info, _node in assignments.proposed)
            total += min(requested, capacity) * 100 // capacity if capacity else 0
        return total // 2, Status()
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


class MyDeclaredFeatures(Plugin):
    """NodeDeclaredFeatures' Filter for the features this notebook's pods need: each must be declared."""

    name = "MyDeclaredFeatures"

    def filter(self, state, pod_info, node_info):
        spec = pod_info.pod.spec
        needed = set()
        for container in [*spec.containers, *spec.init_containers]:
            if any(rule.action == "RestartAllContainers" for rule in container.restart_policy_rules):
                needed.add("RestartAllContainersOnContainerExits")
        for container in [*spec.containers, *spec.init_containers, *spec.ephemeral_containers]:
            if container.security_context is not None and container.security_context.ulimits is not None:
                needed.add("ContainerUlimits")
        if spec.host_network and spec.host_users is False:
            needed.add("UserNamespacesHostNetworkSupport")
        if needed <= set(node_info.node.status.declared_features):
            return Status()
        return Status.unresolvable("node(s) didn't match Pod's required features")


class MyGPUMostAllocated(Plugin):
    """NodeResourcesFit's MostAllocated score on nvidia.com/gpu alone: the node's GPUs in use with the pod's."""

    name = "MyGPUMostAllocated"

    def score(self, state, pod_info, node_info):
        want = pod_info.requests.get("nvidia.com/gpu", 0)
        capacity = node_info.allocatable.get("nvidia.com/gpu", 0)
        if want == 0 or capacity == 0:  # a pod asking for no GPU, a node without GPUs: nothing to weigh
            return 0, Status()
        requested = node_info.requested.get("nvidia.com/gpu", 0) + want
        return min(requested, capacity) * 100 // capacity, Status()


class ScoreEveryNodeZero(Plugin):
    """A wrong answer to every sweep task: no node is preferred."""

    name = "ScoreEveryNodeZero"

    def score(self, state, pod_info, node_info):
        return 0, Status()
