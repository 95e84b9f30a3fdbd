"""The fused binding cycle: assume, Reserve, Permit, PreBind, Bind and PostBind in one step, for a
pod none of whose binding-cycle plugins has anything to do.

Upstream's ``schedule_one.go`` ends the scheduling cycle by assuming the pod in the cache and
running the Reserve and Permit plugins; the binding cycle (``bindingCycle``) then runs PreBind,
Bind and PostBind. Each point calls its plugins in turn and folds their statuses. In the default
profile the only plugins there are DynamicResources (Reserve, PreBind) and DefaultBinder (Bind).
For a pod whose cycle state holds no DynamicResources claims (the plugin's PreFilter skipped it,
or the fused fast path stood in for that PreFilter), DynamicResources' Reserve answers Success
and its PreBind Skip. What the binding cycle then does is fixed: assume the pod in the snapshot,
record Reserve, Permit and PreBind as Success and Bind as DefaultBinder's Success, and let
DefaultBinder bind (the Binding's PodTopologyLabels admission, the storage setting
``spec.nodeName``, ``nominatedNodeName`` cleared).

:class:`FastBinding` does exactly that, with the same status objects in the trace; the scheduler
then sets PodScheduled, refreshes PodDisruptionBudgets, tells its listeners and records the
result as on the general path. A profile with any other plugin at these points, or a pod with
DynamicResources state, takes the general path (``Scheduler(fast_path=False)`` forces it).

A pod whose only binding work is DynamicResources' (:meth:`FastBinding.claims_only`: it has
claims, no PersistentVolumeClaim) takes ``Scheduler._bind_claims``: the plugin's Reserve and
PreBind are called directly and their answers folded as the framework folds them
(:func:`~kschedlab.framework.runtime.reserve_outcome`, ``pre_bind_outcome``); while they succeed
the steps recorded are the general path's, and from the first other answer on the general path
goes on from that status (Unreserve, the failure, a Wait at PreBind).

>>> from kschedlab.cluster import Cluster
>>> from kschedlab.api.loader import load_text
>>> from kschedlab.scheduler import Scheduler
>>> cluster = Cluster(load_text('''
... apiVersion: v1
... kind: Node
... metadata: {name: n1}
... status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
... ---
... apiVersion: v1
... kind: Pod
... metadata: {name: web, namespace: default}
... spec: {containers: [{name: c, resources: {requests: {cpu: 500m}}}]}
... '''))
>>> sched = Scheduler(cluster)
>>> sched.fast_bindings["default-scheduler"] is not None
True
>>> [(point, plugin) for point, plugin, _ in sched.schedule_one("default/web").trace.steps]
[('Reserve', ''), ('Permit', ''), ('PreBind', ''), ('Bind', 'DefaultBinder')]
"""

from __future__ import annotations

from kschedlab.framework.runtime import Framework, pre_bind_outcome, reserve_outcome
from kschedlab.framework.status import SUCCESS, Status
from kschedlab.plugins.default_binder import DefaultBinder
from kschedlab.plugins.dynamic_resources import DynamicResources
from kschedlab.plugins.volume_binding import VolumeBinding

#: the binding-cycle plugins whose no-op answers this path knows, per extension point
_KNOWN_NO_OP = {"reserve": (DynamicResources, VolumeBinding), "preBind": (DynamicResources, VolumeBinding),
                "permit": (), "postBind": ()}


class FastBinding:
    """The fused binding cycle of one :class:`~kschedlab.framework.runtime.Framework`; build it
    with :meth:`for_framework` (None when the profile has a binding-cycle plugin this path does
    not model)."""

    def __init__(self, fw: Framework):
        self.fw = fw
        self.binder: DefaultBinder = fw.points["bind"][0]
        plugins = {p.name: p for point in ("reserve", "preBind") for p in fw.points[point]}
        self.dra: DynamicResources | None = plugins.get(DynamicResources.name)
        self.volumes: VolumeBinding | None = plugins.get(VolumeBinding.name)
        # the steps the general path records: run_reserve, run_permit and run_pre_bind fold
        # Success / Skip answers into a plugin-less Success; run_bind names the binder
        self.steps = (("Reserve", "", Status()), ("Permit", "", Status()), ("PreBind", "", Status()),
                      ("Bind", self.binder.name, Status().with_plugin(self.binder.name)))

    @classmethod
    def for_framework(cls, fw: Framework) -> "FastBinding | None":
        """The fused binding cycle of ``fw``, or None when its profile is outside what it models."""
        for point, known in _KNOWN_NO_OP.items():
            if any(type(plugin) not in known for plugin in fw.points[point]):
                return None
        binders = fw.points["bind"]
        if not binders or type(binders[0]) is not DefaultBinder:
            return None
        return cls(fw)

    def applies(self, state) -> bool:
        """Every Reserve / PreBind plugin is a no-op for the pod of this cycle ``state``: no
        DynamicResources claim was gathered (DynamicResources' Reserve answers Success, its
        PreBind Skip), and the pod has no PersistentVolumeClaim (VolumeBinding's Reserve and PreBind
        answer Success: nothing to bind)."""
        if self.volumes is not None:
            found = state.get(VolumeBinding.name)
            if found is not None and not found.skip:
                return False
        dra = self.dra
        if dra is None or not dra.enabled:
            return True
        found = state.get(DynamicResources.name)
        return found is None or found.empty()

    def claims_only(self, state) -> bool:
        """DynamicResources' is the only binding work for the pod of this cycle ``state``: the
        plugin gathered claims (its PreBindPreFlight answers Success), and VolumeBinding, when in
        the profile, found no PersistentVolumeClaim (its Reserve answers Success, its
        PreBindPreFlight Skip, its PreBind Success)."""
        dra = self.dra
        if dra is None or not dra.enabled:
            return False
        if self.volumes is not None:
            found = state.get(VolumeBinding.name)
            if found is None or not found.skip:
                return False
        found = state.get(DynamicResources.name)
        return found is not None and not found.empty()

    def reserve(self, state, pod_info, node: str) -> Status:
        """``run_reserve``'s answer for a pod of :meth:`claims_only`: DynamicResources' Reserve
        folded (VolumeBinding's Success, before or after it, changes nothing)."""
        dra = self.dra
        assert dra is not None
        return reserve_outcome(dra, dra.reserve(state, pod_info, node)) or SUCCESS

    def pre_bind(self, state, pod_info, node: str) -> Status:
        """``run_pre_bind``'s answer for a pod of :meth:`claims_only`: DynamicResources' PreBind
        folded (VolumeBinding's, skipped or Success, changes nothing)."""
        dra = self.dra
        assert dra is not None
        return pre_bind_outcome(dra, dra.pre_bind(state, pod_info, node)) or SUCCESS

    def reserve_to_bind(self, state, pod_info, node: str, trace) -> None:
        """Reserve to PostBind for the pod assumed on ``node``: the steps recorded, the pod bound."""
        trace.steps.extend(self.steps)
        self.binder.bind(state, pod_info, node)
