"""NodeDeclaredFeatures: a pod runs only on nodes that declare every feature its spec needs.

PreFilter infers the pod's required features from its spec with the shared feature library
(:mod:`kschedlab.api.node_declared_features`) and skips the plugin when there are none. Filter
rejects, as UnschedulableAndUnresolvable, a node whose ``status.declaredFeatures`` (mapped onto
the registry, unknown names ignored) is not a superset. The plugin does nothing when the
``NodeDeclaredFeatures`` gate is off (GA and locked on at v1.37), and, with
``InPlacePodVerticalScalingSchedulerPreemption``, lets a pod whose in-place resize is Deferred
through (it is already bound to its node).

>>> from kschedlab.api.core import Node, Pod
>>> from kschedlab.cluster import Cluster
>>> from kschedlab.framework.interface import CycleState
>>> from kschedlab.framework.types import PodInfo
>>> c = Cluster([Node.model_validate({"metadata": {"name": "old"}}),
...              Node.model_validate({"metadata": {"name": "new"},
...                  "status": {"declaredFeatures": ["RestartAllContainersOnContainerExits"]}})])
>>> pod = Pod.model_validate({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c",
...     "restartPolicyRules": [{"action": "RestartAllContainers"}]}]}})
>>> pl, state = NodeDeclaredFeatures.build(), CycleState()
>>> pl.pre_filter(state, PodInfo.of(pod), c.snapshot)[1].code.name
'Success'
>>> v = pl.filter_nodes(state, PodInfo.of(pod), c.snapshot, c.snapshot.order)
>>> [str(v.status(i)) for i in range(2)]
["UnschedulableAndUnresolvable: node(s) didn't match Pod's required features", 'Success']
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kschedlab.api.node_declared_features import COMPONENT_VERSION, DEFAULT_FRAMEWORK, FeatureSet, Framework, Version
from kschedlab.framework.events import QUEUE, SKIP, HintError, QueueingHint, as_objects
from kschedlab.framework.interface import Plugin, SignFragment, Verdicts, register
from kschedlab.framework.signers import FEATURES_SIGNER_NAME
from kschedlab.framework.status import Code, Status

NAME = "NodeDeclaredFeatures"
GATE = "NodeDeclaredFeatures"
GATE_DEFERRED_RESIZE = "InPlacePodVerticalScalingSchedulerPreemption"
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
ERR_REASON_UNSATISFIED_REQUIREMENTS = "node(s) didn't match Pod's required features"


@dataclass(frozen=True)
class PreFilterState:
    """What PreFilter found: the pod's required features."""

    reqs: FeatureSet


def resize_deferred(pod) -> bool:
    """``resource.IsPodResizeDeferred``: the pod has a PodResizePending=True condition with reason Deferred."""
    return any(c.type == "PodResizePending" and c.status == "True" and c.reason == "Deferred"
               for c in (pod.status.conditions if pod.status else []))


@register
class NodeDeclaredFeatures(Plugin):
    name = NAME

    def __init__(self, args=None, handle=None):
        super().__init__(args, handle)
        gates = getattr(handle, "gates", None)
        self.enabled = True if gates is None else gates.enabled(GATE)
        self.defer_resized = False if gates is None else gates.enabled(GATE_DEFERRED_RESIZE)
        #: the feature registry and the version requirements are inferred for (tests swap them)
        self.framework: Framework = DEFAULT_FRAMEWORK
        self.version: Version | None = COMPONENT_VERSION
        self._node_sets: dict[int, tuple[object, int]] = {}

    # -- requirements ---------------------------------------------------------------------------
    def required_features(self, pod) -> FeatureSet:
        """The features ``pod`` needs on its node (``InferForPodScheduling`` on its spec)."""
        return self.framework.infer_for_pod_scheduling(pod.spec, self.version)

    def node_features(self, node) -> FeatureSet:
        """The node's declared features mapped onto the registry (``TryMap``; unknown names dropped)."""
        return self.framework.try_map(list(node.status.declared_features) if node.status else [])

    def _node_bits(self, snapshot, rows: np.ndarray) -> np.ndarray:
        """The declared-feature bitmap of each row's node (cached per node object)."""
        out = np.zeros(len(rows), np.uint64)
        for i, row in enumerate(rows.tolist()):
            node = snapshot.nodes[row]
            cached = self._node_sets.get(row)
            if cached is None or cached[0] is not node:
                cached = self._node_sets[row] = (node, self.node_features(node).bits)
            out[i] = cached[1]
        return out

    # -- extension points -----------------------------------------------------------------------
    def pre_filter(self, state, pod_info, snapshot):
        """Skip for a deferred resize, when disabled or when the pod needs no feature; else
        remember the requirements."""
        pod = pod_info.pod
        if self.defer_resized and resize_deferred(pod):
            return None, Status.skip()
        if not self.enabled:
            return None, Status.skip()
        try:
            reqs = self.required_features(pod)
        except ValueError as err:
            return None, Status.error(str(err))
        if reqs.is_empty():
            return None, Status.skip()
        state[PRE_FILTER_STATE_KEY] = PreFilterState(reqs)
        return None, Status()

    def filter_nodes(self, state, pod_info, snapshot, rows: np.ndarray) -> Verdicts:
        n = len(rows)
        if not self.enabled or (self.defer_resized and resize_deferred(pod_info.pod)):
            return Verdicts.passing(n)
        s = state.get(PRE_FILTER_STATE_KEY)
        if not isinstance(s, PreFilterState):
            message = f'error reading "{PRE_FILTER_STATE_KEY}" from cycle-state: not found'
            return Verdicts(np.full(n, np.int8(Code.Error)), np.zeros(n, np.int32), [(message,)])
        if s.reqs.size > 64:  # wider than one machine word: compare the Python integers
            missing = np.fromiter((s.reqs.bits & ~self.node_features(snapshot.nodes[int(r)]).bits != 0
                                   for r in rows), bool, n)
        else:
            reqs = np.uint64(s.reqs.bits)
            missing = (self._node_bits(snapshot, np.asarray(rows, np.int64)) & reqs) != reqs
        return Verdicts.from_mask(missing, Code.UnschedulableAndUnresolvable, (ERR_REASON_UNSATISFIED_REQUIREMENTS,))

    def sign_pod(self, pod_info):
        """Signature: the required features (pods needing the same ones fit the same nodes here)."""
        try:
            reqs = self.required_features(pod_info.pod)
        except ValueError as err:
            return None, Status.error(str(err))
        return [SignFragment(FEATURES_SIGNER_NAME, ",".join(self.framework.unmap(reqs)))], None

    def pre_filter_state(self, state) -> dict | None:
        """The PreFilter state as plain data (``{"reqs": [names]}``), or None when none was written."""
        s = state.get(PRE_FILTER_STATE_KEY)
        return None if s is None else {"reqs": self.framework.unmap(s.reqs)}

    def events_to_register(self):
        """``EventsToRegister``: a node added or its declared features changed; the pod itself updated.
        Nothing when the plugin is disabled."""
        from kschedlab.framework.events import NODE, TARGET_POD, ActionType, ClusterEvent

        if not self.enabled:
            return []
        return [(ClusterEvent(NODE, ActionType.Add | ActionType.UpdateNodeDeclaredFeature), self.after_node_change),
                (ClusterEvent(TARGET_POD, ActionType.Update), self.after_target_pod_update)]

    # -- QueueingHints: events that may make a pod this plugin rejected schedulable ----------------
    def after_node_change(self, pod_info, old_obj, new_obj) -> QueueingHint:
        """``isSchedulableAfterNodeChange``: Queue for a new node, or one whose declared list changed."""
        old, new = as_objects(old_obj, new_obj, "Node")
        if new is None:
            raise HintError("expected a new *v1.Node")
        if old is not None and list(old.status.declared_features) == list(new.status.declared_features):
            return SKIP
        return QUEUE

    def after_target_pod_update(self, pod_info, old_obj, new_obj) -> QueueingHint:
        """``isSchedulableAfterTargetPodUpdate``: Queue when the pod's required features changed.
        An inference error is raised (the queue then requeues the pod)."""
        old, new = as_objects(old_obj, new_obj, "Pod")
        if old is None or new is None:
            raise HintError("expected an old and a new *v1.Pod")
        try:
            before = self.required_features(old)
            after = self.required_features(new)
        except ValueError as err:
            raise HintError(str(err)) from err
        return SKIP if before == after else QUEUE
