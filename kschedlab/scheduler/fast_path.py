"""The fused fast path: PreFilter, Filter, PreScore and Score of a profile made of in-tree plugins,
for pods whose spec leaves most of those plugins nothing to do.

Upstream's framework skips a plugin for the rest of the cycle when its PreFilter or PreScore
answers ``Skip``. For a pod without node selector, affinity, spread constraints, host ports,
resource claims, persistent volume claims, extended resources a DeviceClass serves
(DRAExtendedResource) or node-feature requirements, in a cluster where no placed pod has
inter-pod affinity, which plugins answer ``Skip`` follows from the pod's spec
and a few cluster-wide facts; what is left to do for every node is arithmetic on the snapshot's
columns: free capacity (NodeResourcesFit), the cordon flag (NodeUnschedulable), the taint set
(TaintToleration), the requested and allocatable cpu and memory (LeastAllocated-style scoring and
BalancedAllocation) and the node's images (ImageLocality). Nodes where pods of the pod's
priority or higher are nominated are filtered twice, with those pods added and without, as
upstream's ``RunFilterPluginsWithNominatedPods`` does (:meth:`FastPath.run_filter`).

:class:`FastPath` decides at every attempt whether the pod has that shape (nothing is kept in the
pod's ``PodInfo``, so a spec edited in place between attempts is read as it is now; pods alike in
requests and tolerations share one :class:`PodShape` and its kept answers), checks the cluster-wide facts once per cycle, and then answers the cycle's extension points
for all nodes at once with a handful of numpy operations. The answers are the ones the plugins
give, to the value: the same PreFilter and PreScore statuses (and so the same skipped plugins),
the same Filter outcome (a node the fused check does not clear is filtered again by the plugins
themselves, or, when only fused plugins filter, takes NodeResourcesFit's verdict kept per node
(:class:`~kschedlab.scheduler.kept_scores.NodeFitVerdicts`), so every failure keeps its plugin,
code and reasons), the same raw and normalized
scores. The scheduler's own steps (the rotating start, ``numFeasibleNodesToFind``, the tie draw,
opportunistic batching) are not touched, so placements are those of the plugin-by-plugin path.
Score plugins of one's own (a researcher's) are called as the framework calls them, beside the
fused answers; so are PreFilter, Filter and PreScore plugins of one's own, in every cycle, and
InterPodAffinity and PodTopologySpread (:data:`LIVE`) when the pod has pod affinity, anti-affinity or spread constraints,
default spreading selects it, or placed pods have affinity, and DynamicResources when it has ResourceClaims: their PreFilter, Filter, PreScore,
Score and NormalizeScore run by themselves, the fused check clears the other plugins, and a node
it clears takes its status from the live plugins' verdicts (:attr:`CyclePlan.live`). Any other
pod, profile or cluster takes the plugin-by-plugin path (``Scheduler(fast_path=False)`` forces it).

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
>>> fast = sched.fast_paths["default-scheduler"]
>>> fast.plan(cluster.pod_infos["default/web"], cluster.snapshot) is not None
True
>>> sched.schedule_one("default/web").node
'n1'
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kschedlab.api.resources import CPU, MEMORY, PODS
from kschedlab.framework.interface import MAX_NODE_SCORE, PreFilterResult, Verdicts
from kschedlab.framework.runtime import (
    FilterFailures,
    FilterOutcome,
    Framework,
    ScoreOutcome,
    check_score_range,
    filter_verdicts,
    normalize_score,
    score_plugin,
)
from kschedlab.framework.status import Code, FrameworkError, Status
from kschedlab.plugins.default_preemption import DefaultPreemption
from kschedlab.plugins.dynamic_resources import DynamicResources
from kschedlab.plugins.image_locality import ImageLocality
from kschedlab.plugins.inter_pod_affinity import InterPodAffinity, placed_pods_with_affinity
from kschedlab.plugins.node_affinity import NodeAffinity
from kschedlab.plugins.node_declared_features import NodeDeclaredFeatures
from kschedlab.plugins.node_name import NodeName
from kschedlab.plugins.node_ports import NodePorts
from kschedlab.plugins.node_resources_balanced_allocation import NodeResourcesBalancedAllocation
from kschedlab.plugins.node_resources_fit import NodeResourcesFit, is_dra_extended_resource_name
from kschedlab.plugins.node_unschedulable import UNSCHEDULABLE_TAINT, NodeUnschedulable
from kschedlab.plugins.node_volume_limits import NodeVolumeLimits, counts_volume
from kschedlab.plugins.pod_topology_spread import PodTopologySpread
from kschedlab.plugins.pod_topology_spread_common import DO_NOT_SCHEDULE, SCHEDULE_ANYWAY
from kschedlab.plugins.resource_allocation import least_allocated
from kschedlab.plugins.taint_toleration import TaintToleration
from kschedlab.plugins.volume_binding import SKIP_STATE, VolumeBinding
from kschedlab.plugins.volume_restrictions import VolumeRestrictions, needs_restrictions_check
from kschedlab.plugins.volume_zone import VolumeZone
from kschedlab.scheduler.kept_scores import (
    FitVerdictsNow,
    KeptScoreOutcome,
    NodeFits,
    NodeFitVerdicts,
    NodeScores,
    ScoreTotals,
    balanced_allocation,
)

#: plugin name -> the in-tree class the fast path knows the behaviour of
KNOWN = {cls.name: cls for cls in (
    NodeUnschedulable, NodeName, TaintToleration, NodeAffinity, NodePorts, NodeResourcesFit, PodTopologySpread,
    InterPodAffinity, DynamicResources, NodeDeclaredFeatures, NodeResourcesBalancedAllocation, ImageLocality,
    VolumeRestrictions, NodeVolumeLimits, VolumeBinding, VolumeZone)}
#: PreFilter answer for a pod of the fast shape: Success, or Skip (decided per pod and cycle)
_PRE_FILTER_SUCCESS = frozenset({NodeName.name, NodeResourcesFit.name})
_PRE_FILTER_SKIP = frozenset({NodeAffinity.name, NodePorts.name, PodTopologySpread.name, InterPodAffinity.name,
                              DynamicResources.name, NodeDeclaredFeatures.name, VolumeRestrictions.name,
                              NodeVolumeLimits.name, VolumeBinding.name, VolumeZone.name})
#: Filter plugins the fused check covers (the others must have been skipped at PreFilter)
_FILTER_FUSED = frozenset({NodeUnschedulable.name, NodeName.name, TaintToleration.name, NodeResourcesFit.name})
#: PreScore answer: Success, Skip, or (BalancedAllocation) Skip when the pod requests none of its resources
_PRE_SCORE_SUCCESS = frozenset({TaintToleration.name, NodeResourcesFit.name})
_PRE_SCORE_SKIP = frozenset({NodeAffinity.name, PodTopologySpread.name, InterPodAffinity.name})
#: plugins the path may run by themselves beside the fused answers, when the pod or the placed pods give
#: them work (pod affinity, anti-affinity, spread constraints): their PreFilter, Filter, PreScore,
#: Score and NormalizeScore are called as the framework calls them; DynamicResources (a pod with
#: ResourceClaims) has no PreScore: its Score runs only when it may answer other than 0
#: (``DynamicResources.scores_nodes``), its Filter screens every node of a chunk at once
LIVE = (InterPodAffinity.name, PodTopologySpread.name, DynamicResources.name)
#: Score plugins the fused scoring covers (NodeAffinity, PodTopologySpread, InterPodAffinity must be skipped)
_SCORE_FUSED = frozenset({TaintToleration.name, NodeResourcesFit.name, DynamicResources.name,
                          NodeResourcesBalancedAllocation.name, ImageLocality.name, VolumeBinding.name})
_NEVER = np.iinfo(np.int64).min
#: ``Code.Error`` as a plain int (an array compared with the enum member takes a slow path)
_ERROR = int(Code.Error)
#: PostFilter plugins that read nothing of a failed cycle's state but the entries of the plugins not
#: skipped at PreFilter and the skipped set (DynamicResources answers alike without its state or with
#: the "skipped" one its PreFilter leaves): after a fused cycle without live plugins, the framework's
#: PreFilter would add nothing they read (see :meth:`FastPath.complete_for_post_filter`)
_POST_FILTER_FUSED_STATE = (DefaultPreemption, DynamicResources)
#: node-sized answers (NodeFits, NodeScores) kept at once, oldest dropped first: pods waiting in the
#: queue hold their shape, never these, so memory stays bounded however many shapes a run sees
KEPT_ANSWERS = 16
#: a shape's node-sized answers are kept from its KEEP_FROM-th cycle on; before, the nodes a cycle
#: reads are computed alone (the same arithmetic): a pod of a request seen once or twice (a job
#: trace, where requests are drawn per job) costs the nodes it visits, not every node of the cluster
KEEP_FROM = 3


@dataclass
class PodShape:
    """What the fast path keeps between cycles for the pods with the same requests and tolerations
    (found again from them at every attempt)."""

    #: (resource name, request) of every resource NodeResourcesFit checks
    checked: tuple[tuple[str, int], ...]
    #: LeastAllocated-style requests (missing cpu / memory at the scoring defaults) and real ones
    score_requests: np.ndarray
    balance_requests: np.ndarray
    balance_skip: bool
    #: tolerates node.kubernetes.io/unschedulable:NoSchedule (None: not asked yet)
    tolerates_cordon: bool | None = None
    #: TaintToleration per taint set: (snapshot, number of taint sets seen, passes?)
    taint_ok: tuple | None = None
    #: the need per snapshot column: (snapshot, number of columns then, need or None; see :meth:`FastPath._need`)
    need: tuple | None = None
    #: the key of the kept resource scores for these requests
    scores_key: tuple = ()
    #: the extended resources it asks for that a DeviceClass could serve (DRAExtendedResource)
    extended: tuple[str, ...] = ()
    #: the cycles planned for it (its answers are kept from :data:`KEEP_FROM` on)
    cycles: int = 0


@dataclass
class CyclePlan:
    """One cycle's fast answers: the shape, the statuses each point logs, the plugins left."""

    shape: PodShape
    pre_filter_log: list
    pre_score_log: list
    skip_filter: frozenset
    skip_score: frozenset
    filter_names: list[str]
    score_plugins: list
    score_names: tuple[str, ...]
    #: TaintToleration / ImageLocality score in this cycle (constant only without taints / images)
    scores_taints: bool
    scores_images: bool
    #: the topology plugins run by themselves in this cycle (see :data:`LIVE`), and the snapshot
    live: frozenset = frozenset()
    snapshot: object = None
    #: the live plugins left at Filter and at Score once their PreFilter / PreScore answered
    live_filter: tuple = ()
    live_score: tuple = ()
    #: the live plugins' PreFilter answers of this cycle (name -> (result, status)), their data in
    #: the cycle state; None once the framework's whole PreFilter ran (the state is then complete)
    pre_filter_ran: dict | None = None
    #: rows of nodes with pods nominated of priority at least the pod's -> those pods (the nodes
    #: Filter checks twice, with those pods added and without: see :meth:`FastPath.run_filter`)
    nominated: dict | None = None
    #: the same rows, as an array (for ``numpy.isin``)
    nominated_rows: np.ndarray | None = None


class FastPath:
    """The fused path of one :class:`~kschedlab.framework.runtime.Framework`; build it with
    :meth:`for_framework` (None when the profile has a plugin, an extension point or args this
    path does not model)."""

    def __init__(self, fw: Framework):
        self.fw = fw
        self.plugins = fw.plugins
        self.fit: NodeResourcesFit | None = fw.plugins.get(NodeResourcesFit.name)
        self.balanced: NodeResourcesBalancedAllocation | None = fw.plugins.get(NodeResourcesBalancedAllocation.name)
        self.taints: TaintToleration | None = fw.plugins.get(TaintToleration.name)
        self.pre_filter = [p.name for p in fw.points["preFilter"]]
        self.pre_score = [p.name for p in fw.points["preScore"]]
        self.filter = [p.name for p in fw.points["filter"]]
        self.score = [p.name for p in fw.points["score"]]
        #: the scoring resources are cpu and memory for both resource plugins (the defaults)
        self.default_resources = all(
            p is None or p.scorer.names == [CPU, MEMORY] for p in (self.fit, self.balanced))
        self._plans: dict[tuple, CyclePlan] = {}
        #: the Filter plugins left and the live ones among them, by the plugins skipped at PreFilter
        #: and the live ones; the Score plugins left (and their names), by those skipped at PreScore
        self._filter_lists: dict[tuple, tuple[list[str], tuple[str, ...]]] = {}
        self._score_lists: dict[frozenset, tuple[list, tuple[str, ...]]] = {}
        #: Score plugins of one's own (called as the framework calls them)
        self.custom_scores = _custom_scores(fw)
        #: PreFilter, Filter and PreScore plugins of one's own: live in every cycle (see :data:`LIVE`)
        self.custom_live = frozenset(_custom_plugins(fw))
        #: the resource scores are LeastAllocated over cpu and memory and BalancedAllocation (kept per node)
        self.kept_scores = self.default_resources and (
            self.fit is None or self.fit.scorer.scorer is least_allocated)
        #: kept per node, by the pod's checked requests / scoring requests (at most KEPT_ANSWERS each)
        self._node_fits: dict[tuple, NodeFits] = {}
        self._node_scores: dict[tuple, NodeScores] = {}
        #: NodeResourcesFit's verdicts kept per node, by the pod's checked requests (see :meth:`_rejected`)
        self._fit_verdicts: dict[tuple, NodeFitVerdicts] = {}
        #: the shapes of the pods seen, by their answers and by their requests (see :meth:`_shape`)
        self._shapes: dict[tuple, PodShape] = {}
        self._shapes_by_requests: dict[tuple, PodShape | None] = {}
        #: :meth:`_live_points`' answer per live set (it reads only the profile)
        self._live_points_ok: dict[frozenset, bool] = {}
        dra = fw.plugins.get(DynamicResources.name)
        #: a pod with ResourceClaims takes the path with DynamicResources run by itself (see :data:`LIVE`)
        self._dra_live = dra is not None and dra.enabled and DynamicResources.name in self.pre_filter
        pts = fw.plugins.get(PodTopologySpread.name)
        #: default spread constraints with matchLabelKeys (their selector depends on the pod's labels)
        self._pts_label_keys = pts is not None and any(c.match_label_keys for c in pts.default_constraints)
        #: every PostFilter plugin is one of :data:`_POST_FILTER_FUSED_STATE` (no subclass)
        self._post_filter_fused_state = all(type(p) in _POST_FILTER_FUSED_STATE for p in fw.points["postFilter"])

    @classmethod
    def for_framework(cls, fw: Framework) -> "FastPath | None":
        """The fast path of ``fw``, or None when its profile is outside what the path models.

        Plugins of the path's points are the in-tree ones it knows, or plugins of one's own (under
        a name no in-tree plugin of these points has): the path calls those as the framework would,
        a PreFilter, Filter or PreScore of one's own in every cycle beside the fused answers, as the
        plugins of :data:`LIVE` run."""
        for point in ("preFilter", "filter", "preScore"):
            for plugin in fw.points[point]:
                if plugin.name in KNOWN and type(plugin) is not KNOWN[plugin.name]:
                    return None
        custom = _custom_scores(fw) | _custom_plugins(fw)
        names = {point: {p.name for p in fw.points[point]} for point in ("preFilter", "filter", "preScore", "score")}
        # a plugin skipped by its PreFilter / PreScore must run that point to be skipped
        if not (names["filter"] - _FILTER_FUSED - custom) <= (names["preFilter"] & _PRE_FILTER_SKIP):
            return None
        if not (names["score"] - _SCORE_FUSED - custom) <= (names["preScore"] & _PRE_SCORE_SKIP):
            return None
        na = fw.plugins.get(NodeAffinity.name)
        if na is not None and (na.added_required is not None or na.added_preferred):
            return None
        return cls(fw)

    # -- eligibility -------------------------------------------------------------------------
    def _shape(self, pod_info) -> PodShape | None:
        """The pod's shape, or None when some plugin may have work to do for it."""
        if not self._spec_eligible(pod_info):
            return None
        tolerations = tuple((t.key, t.operator, t.value, t.effect, t.toleration_seconds)
                            for t in pod_info.pod.spec.tolerations)
        # the resource answers follow from the PodInfo's two forms of the requests when it has
        # both (see ResourceAllocationScorer.requests_of): pods asking alike are answered once
        nz = pod_info.non_zero_requests
        if not pod_info.pod_level_resources or nz is None:
            return self._resource_shape(pod_info, tolerations)
        key = (tuple(pod_info.requests.items()), tuple(nz.items()), tolerations)
        shape = self._shapes_by_requests.get(key, False)
        if shape is False:
            if len(self._shapes_by_requests) >= 1024:
                self._shapes_by_requests.clear()
            shape = self._shapes_by_requests[key] = self._resource_shape(pod_info, tolerations)
        return shape

    def _spec_eligible(self, pod_info) -> bool:
        """The pod's spec leaves NodeName, NodeAffinity, NodePorts, DynamicResources (unless it
        runs by itself), NodeDeclaredFeatures and the volume plugins (VolumeRestrictions, NodeVolumeLimits,
        VolumeBinding, VolumeZone) nothing to do (pod affinity and spread constraints make the
        plugins of :data:`LIVE` run by themselves)."""
        spec = pod_info.pod.spec
        if spec.node_name or spec.node_selector or pod_info.ports:
            return False
        aff = spec.affinity
        if aff is not None and aff.node_affinity is not None:
            return False
        if spec.resource_claims and not self._dra_live:
            return False  # (with DynamicResources in the profile, it runs by itself: see :meth:`_live`)
        # the volume plugins Skip a pod without claims, generic ephemeral volumes and in-tree disks
        if any(counts_volume(v) or needs_restrictions_check(v) for v in spec.volumes):
            return False
        ndf = self.plugins.get(NodeDeclaredFeatures.name)
        if ndf is not None and ndf.enabled and NodeDeclaredFeatures.name in self.pre_filter:
            try:
                if not ndf.required_features(pod_info.pod).is_empty():
                    return False
            except ValueError:
                return False
        return True

    def _resource_shape(self, pod_info, tolerations: tuple) -> PodShape:
        """The shape of a pod with these requests and ``tolerations`` (an extended resource, such
        as ``nvidia.com/gpu``, is one more column of the snapshot)."""
        requests = pod_info.requests
        # checked per cycle in :meth:`plan`: served by a DeviceClass, they are DynamicResources' work
        extended = tuple(name for name, value in requests.items() if value and is_dra_extended_resource_name(name))
        checked = tuple((name, requests[name]) for name in self.fit.checked_resources(pod_info)) \
            if self.fit is not None else ()
        score_req = balance_req = (0, 0)
        balance_skip = False
        if self.fit is not None and self.default_resources:
            score_req = tuple(self.fit.scorer.requests_of(pod_info))
        if self.balanced is not None:
            reqs = self.balanced.scorer.requests_of(pod_info)
            balance_skip = not any(reqs)
            if self.default_resources:
                balance_req = tuple(reqs)
        # pods alike in all of this (copies of one template) share one shape and its kept answers
        key = (checked, score_req, balance_req, balance_skip, tolerations, extended)
        shape = self._shapes.get(key)
        if shape is None:
            if len(self._shapes) >= 1024:
                self._shapes.clear()
            shape = self._shapes[key] = PodShape(checked, np.asarray(score_req, np.int64),
                                                 np.asarray(balance_req, np.int64), balance_skip,
                                                 scores_key=(score_req, balance_req), extended=extended)
        return shape

    def plan(self, pod_info, snapshot) -> CyclePlan | None:
        """This cycle's plan for ``pod_info``, or None when the pod must take the plugin-by-plugin path."""
        shape = self._shape(pod_info)
        if shape is None:
            return None
        if shape.extended and (self.fit is None or self.fit.dra_served(list(shape.extended))):
            return None  # a DeviceClass serves one (DRAExtendedResource): DynamicResources allocates it
        shape.cycles += 1
        pod = pod_info.pod
        live = self._live(pod, snapshot)
        if live is None:
            return None
        key = (shape.balance_skip, live)
        found = self._plans.get(key)
        if found is None:
            found = self._plans[key] = self._cycle_plan(shape.balance_skip, live)
        plan = CyclePlan(shape, *found, live=live, snapshot=snapshot)
        nominated = self.fw.nominated_rows(pod_info, snapshot)
        if nominated:
            plan.nominated = nominated
            plan.nominated_rows = np.fromiter(nominated, np.int64, len(nominated))
        return plan

    def _live(self, pod, snapshot) -> frozenset | None:
        """The plugins of :data:`LIVE` that may have work for ``pod`` in this cycle (they then run
        by themselves and answer Skip or not, as on the plugin-by-plugin path); None when the
        pod must take that path."""
        live = set(self.custom_live)
        plugins = self.plugins
        ipa = plugins.get(InterPodAffinity.name)
        if ipa is not None:
            aff = pod.spec.affinity
            if aff is not None and (aff.pod_affinity is not None or aff.pod_anti_affinity is not None):
                live.add(InterPodAffinity.name)
            elif InterPodAffinity.name in self.pre_filter and placed_pods_with_affinity(snapshot, required_anti=True):
                live.add(InterPodAffinity.name)
            elif (InterPodAffinity.name in self.pre_score and not ipa.args.ignore_preferred_terms_of_existing_pods
                    and placed_pods_with_affinity(snapshot)):
                live.add(InterPodAffinity.name)
        if pod.spec.resource_claims:  # (only with :attr:`_dra_live`, see :meth:`_spec_eligible`)
            live.add(DynamicResources.name)
        pts = plugins.get(PodTopologySpread.name)
        if pts is not None and pod.spec.topology_spread_constraints and (
                PodTopologySpread.name in self.pre_filter or PodTopologySpread.name in self.pre_score):
            live.add(PodTopologySpread.name)  # its own constraints: the plugin answers Skip or not itself
        elif pts is not None and not self._no_default_selector(pod):
            try:
                if ((PodTopologySpread.name in self.pre_filter and pts.get_constraints(pod, DO_NOT_SCHEDULE))
                        or (PodTopologySpread.name in self.pre_score and pts.get_constraints(pod, SCHEDULE_ANYWAY))):
                    live.add(PodTopologySpread.name)
            except ValueError:
                return None
        found = frozenset(live)
        callable_at_points = self._live_points_ok.get(found)
        if callable_at_points is None:  # (at most one entry per subset of LIVE: the profile is fixed)
            callable_at_points = self._live_points_ok[found] = self._live_points(found - self.custom_live)
        return found if callable_at_points else None

    def _live_points(self, live: frozenset) -> bool:
        """The live plugins run at the points the path can call them at: each Filter or Score of
        theirs follows a PreFilter or PreScore of theirs (the profile check asks that too)."""
        return all((name not in self.filter or name in self.pre_filter)
                   and (name not in self.score or name in self.pre_score or name == DynamicResources.name)
                   for name in live)

    def _no_default_selector(self, pod) -> bool:
        """PodTopologySpread's default constraints select nothing for ``pod`` (so its PreFilter and
        PreScore Skip): no Service exists and no controller owns the pod, whatever the defaults."""
        if self._pts_label_keys:
            return False
        cluster = self.fw.handle.cluster
        return cluster is not None and not cluster.objects.get("Service") and pod.metadata.controller_ref() is None

    def _cycle_plan(self, balance_skip: bool, live: frozenset = frozenset()) -> tuple:
        """The parts of a plan shared by every pod with the same answers (the entries of the
        ``live`` plugins are None in the logs, filled at every cycle)."""
        pre_filter_log = []
        skip_filter = set()
        for name in self.pre_filter:
            if name in live:
                pre_filter_log.append((name, None))
            elif name in _PRE_FILTER_SUCCESS:
                pre_filter_log.append((name, Status().with_plugin(name)))
            else:
                pre_filter_log.append((name, Status.skip(name)))
                skip_filter.add(name)
        pre_score_log = []
        skip_score = set()
        for name in self.pre_score:
            if name in live:
                pre_score_log.append((name, None))
                continue
            skip = (name in _PRE_SCORE_SKIP or (name == NodeResourcesBalancedAllocation.name and balance_skip)
                    or (name == VolumeBinding.name and self.plugins[name].scorer is None))
            pre_score_log.append((name, Status.skip(name) if skip else Status().with_plugin(name)))
            if skip:
                skip_score.add(name)
        filter_names = [n for n in self.filter if n not in skip_filter]
        score_plugins = [p for p in self.fw.points["score"] if p.name not in skip_score]
        score_names = tuple(p.name for p in score_plugins)
        return (pre_filter_log, pre_score_log, frozenset(skip_filter), frozenset(skip_score), filter_names,
                score_plugins, score_names, TaintToleration.name in score_names, ImageLocality.name in score_names)

    # -- PreFilter ---------------------------------------------------------------------------
    def run_pre_filter(self, plan: CyclePlan, state, pod_info):
        """As :meth:`Framework.run_pre_filter` returns for this pod: all nodes, Success, the log.
        The live plugins' PreFilter runs here; when one answers neither Success nor Skip, or
        names nodes, the framework runs the whole PreFilter (:meth:`complete_pre_filter`: the live
        plugins already called are not called again) and its answer is returned."""
        state.skip_filter.update(plan.skip_filter)
        if NodeResourcesFit.name in self.pre_filter:
            state[NodeResourcesFit.name] = pod_info.requests
        if VolumeBinding.name in self.pre_filter:
            state[VolumeBinding.name] = SKIP_STATE
        ran = plan.pre_filter_ran = {}
        if not plan.live:
            return PreFilterResult(), Status(), list(plan.pre_filter_log), []
        log = []
        answer = None
        for name, status in plan.pre_filter_log:
            if status is None:
                res, status = self.plugins[name].pre_filter(state, pod_info, plan.snapshot)
                status = (status or Status()).with_plugin(name)
                ran[name] = (res, status)
                if status.is_skip():
                    state.skip_filter.add(name)
                elif not status.is_success() or (res is not None and not res.all_nodes()):
                    answer = self.complete_pre_filter(plan, state, pod_info)
                    break
            log.append((name, status))
        key = (frozenset(state.skip_filter), plan.live)
        found = self._filter_lists.get(key)
        if found is None:
            names = [n for n in self.filter if n not in key[0]]
            found = _keep(self._filter_lists, key, (names, tuple(n for n in names if n in plan.live)))
        plan.filter_names, plan.live_filter = list(found[0]), found[1]
        return answer if answer is not None else (PreFilterResult(), Status(), log, [])

    def complete_pre_filter(self, plan: CyclePlan, state, pod_info):
        """Run the framework's PreFilter for this cycle, the live plugins answering from
        :attr:`CyclePlan.pre_filter_ran` (each PreFilter is called once a cycle), so the cycle
        state is the plugin-by-plugin path's; its answer, or None when it had run already."""
        if plan.pre_filter_ran is None:
            return None
        for name in (NodeResourcesFit.name, VolumeBinding.name):  # the fused answers' entries
            state.pop(name, None)
        state.skip_filter.clear()
        answer = self.fw.run_pre_filter(state, pod_info, plan.snapshot, ran=plan.pre_filter_ran)
        plan.pre_filter_ran = None
        return answer

    def complete_for_post_filter(self, plan: CyclePlan, state, pod_info):
        """After a cycle that found no node: :meth:`complete_pre_filter` when PostFilter may read
        what it would add. It is not run when no live plugin ran (every PreFilter answer was
        fused: the same statuses, so the same log and skipped set; the entries of NodeResourcesFit
        and VolumeBinding are in the state) and every PostFilter plugin is one of
        :data:`_POST_FILTER_FUSED_STATE`: what the framework's PreFilter would add is then only
        the entries of plugins it skips, which they do not read."""
        if not plan.live and self._post_filter_fused_state:
            return None
        return self.complete_pre_filter(plan, state, pod_info)

    # -- Filter ------------------------------------------------------------------------------
    def _fits(self, shape: PodShape, snapshot) -> NodeFits | np.ndarray | None:
        """NodeResourcesFit's check of the pod's needs, kept per node; while the shape is young
        (:data:`KEEP_FROM`) and nothing is kept for its needs, the need per snapshot column
        instead (None: some resource the pod asks for has no snapshot column, so no node has it)."""
        found = self._node_fits.get(shape.checked)
        if found is not None and found.snapshot is snapshot and len(found.need) == len(snapshot.resources):
            return found
        need = self._need(shape, snapshot)
        if need is None or shape.cycles < KEEP_FROM:
            return need
        return _keep(self._node_fits, shape.checked, NodeFits(snapshot, need))

    @staticmethod
    def _need(shape: PodShape, snapshot) -> np.ndarray | None:
        """What the pod needs per snapshot column (:data:`_NEVER` where nothing; None: a resource
        it asks for has no column), kept on the shape while the snapshot's columns stay the same
        (they are only ever added to): a young shape's cycle asks for it a few times."""
        found = shape.need
        if found is None or found[0] is not snapshot or found[1] != len(snapshot.resources):
            found = shape.need = (snapshot, len(snapshot.resources), _need_per_column(shape.checked, snapshot))
        return found[2]

    def _taint_ok(self, shape: PodShape, pod_info, snapshot) -> np.ndarray:
        """TaintToleration's verdict on each of the snapshot's distinct taint sets."""
        found = shape.taint_ok
        if found is not None and found[0] is snapshot and found[1] == len(snapshot.taint_sets):
            return found[2]
        tolerations = pod_info.pod.spec.tolerations
        ok = np.fromiter((self.taints._group_status(t, tolerations).is_success() for t in snapshot.taint_sets),
                         bool, len(snapshot.taint_sets))
        shape.taint_ok = (snapshot, len(snapshot.taint_sets), ok)
        return ok

    @staticmethod
    def _tolerates_cordon(shape: PodShape, pod_info) -> bool:
        """The pod tolerates node.kubernetes.io/unschedulable:NoSchedule (NodeUnschedulable)."""
        if shape.tolerates_cordon is None:
            from kschedlab.api.tolerations import tolerations_tolerate_taint

            shape.tolerates_cordon = tolerations_tolerate_taint(pod_info.pod.spec.tolerations, UNSCHEDULABLE_TAINT)
        return shape.tolerates_cordon

    def every_node_passes(self, plan: CyclePlan, pod_info, snapshot) -> bool:
        """The fused check clears every node of the snapshot: no node is short of room, none has a
        taint the pod does not tolerate, none is cordoned (or the pod tolerates it)."""
        shape = plan.shape
        names = plan.filter_names
        if plan.live_filter or plan.nominated:
            return False
        if NodeResourcesFit.name in names:
            fits = self._fits(shape, snapshot)
            if not isinstance(fits, NodeFits) or not fits.every_node_fits():
                return False  # (not kept: the chunks of nodes visited are checked alone)
        if TaintToleration.name in names and len(snapshot.taint_sets) > 1 and \
                not self._taint_ok(shape, pod_info, snapshot).all():
            return False
        return not (NodeUnschedulable.name in names and snapshot.cordoned and
                    not self._tolerates_cordon(shape, pod_info))

    def passing(self, plan: CyclePlan, pod_info, snapshot, rows: np.ndarray) -> np.ndarray | None:
        """Nodes of ``rows`` every fused Filter plugin passes, by the fused check (None: all of them)."""
        shape = plan.shape
        ok = None
        names = plan.filter_names
        if NodeResourcesFit.name in names:
            fits = self._fits(shape, snapshot)
            if fits is None:
                return np.zeros(len(rows), bool)
            if not isinstance(fits, NodeFits):  # NodeFits' arithmetic, on these rows alone
                ok = (snapshot.free.take(rows, axis=1) >= fits[:, None]).all(axis=0)
            elif not fits.every_node_fits():
                ok = fits.fit(rows)
        if TaintToleration.name in names and len(snapshot.taint_sets) > 1:
            passes = self._taint_ok(shape, pod_info, snapshot)[snapshot.taint_group.take(rows)]
            ok = passes if ok is None else ok & passes
        if NodeUnschedulable.name in names and snapshot.cordoned and not self._tolerates_cordon(shape, pod_info):
            free = ~snapshot.unschedulable.take(rows)
            ok = free if ok is None else ok & free
        if ok is None or ok.all():
            return None
        return ok

    def fits_fewer(self, plan: CyclePlan, snapshot, rows: np.ndarray, count: int) -> bool:
        """NodeResourcesFit's kept check finds room for the pod on fewer than ``count`` nodes of
        ``rows``, so a pass over them finds fewer than ``count`` feasible, whatever the other
        plugins and the nominated pods say (they only take nodes away): a pass that stops at the
        ``count``-th feasible node visits every one of ``rows``, in one chunk or in many (a
        preemptor that fits nowhere, a gang member on a full cluster)."""
        if NodeResourcesFit.name not in plan.filter_names:
            return False
        fits = self._fits(plan.shape, snapshot)
        return fits is None or (isinstance(fits, NodeFits) and not fits.every_node_fits()
                                and np.count_nonzero(fits.fit(rows)) < count)

    def all_passed(self, plan: CyclePlan, rows: np.ndarray) -> FilterOutcome:
        """The Filter outcome of ``rows`` when every one passed."""
        return FilterOutcome(rows, *_all_passed(len(rows)), [], plan.filter_names)

    def run_filter(self, plan: CyclePlan, state, pod_info, snapshot, rows: np.ndarray) -> FilterOutcome:
        """:meth:`Framework.run_filter_with_nominated_pods` over ``rows``: the pass without
        nominated pods (:meth:`_run_filter_plain`), then, on the nodes where pods of priority at
        least this pod's are nominated, the pass with those pods added, whose failure replaces the
        plain verdict: plugin by plugin (:meth:`Framework.nominated_first_pass`) when a live plugin
        reads the pods a node holds, else fused (:meth:`_fused_first_pass`)."""
        outcome = self._run_filter_plain(plan, state, pod_info, snapshot, rows)
        if plan.nominated is None:
            return outcome
        hits = np.flatnonzero(np.isin(rows, plan.nominated_rows))
        if not len(hits):
            return outcome
        if any(name not in state.skip_filter and (name in plan.live_filter or hasattr(self.plugins[name], "add_pod"))
               for name in plan.live):
            return self.fw.nominated_first_pass(state, pod_info, snapshot, outcome, hits, plan.nominated)
        return self._fused_first_pass(plan, state, pod_info, snapshot, outcome, hits)

    def _fused_first_pass(self, plan: CyclePlan, state, pod_info, snapshot, outcome: FilterOutcome,
                          hits: np.ndarray) -> FilterOutcome:
        """The first pass (nominated pods added) over the positions ``hits`` of ``outcome``'s rows
        when only fused plugins filter. Of those, NodeResourcesFit alone reads the pods a node
        holds; the others answer as in the plain pass. So a node the plain pass failed at a plugin
        before NodeResourcesFit fails the first pass there too, and elsewhere the first pass
        fails only if NodeResourcesFit, asked on the node's columns with the nominated pods'
        requests added (:class:`_NodesWithNominated`, all those nodes in one call), refuses it: its verdict then replaces the
        plain one."""
        names = plan.filter_names
        if NodeResourcesFit.name not in names or self.fit is None:
            return outcome
        fit_at = names.index(NodeResourcesFit.name)
        rows = outcome.rows
        asked = hits[~((outcome.fail_plugin[hits] >= 0) & (outcome.fail_plugin[hits] < fit_at))]
        nodes = _NodesWithNominated.of(snapshot, rows[asked], plan.nominated)
        if nodes is None:
            return outcome
        verdicts = self.fit.filter_nodes(state, pod_info, nodes, np.arange(len(nodes.positions)))
        if verdicts.all_pass:
            return outcome
        failed = np.flatnonzero(verdicts.codes)
        at = asked[nodes.positions[failed]]
        fail_plugin, fail_code = outcome.fail_plugin.copy(), outcome.fail_code.copy()
        fail_reason, reasons = outcome.fail_reason.copy(), list(outcome.reasons)
        _fail_at(fail_plugin, fail_code, fail_reason, reasons, at, fit_at, verdicts, failed)
        return FilterOutcome(rows, fail_plugin, fail_code, fail_reason, reasons, outcome.plugins)

    def _run_filter_plain(self, plan: CyclePlan, state, pod_info, snapshot, rows: np.ndarray) -> FilterOutcome:
        """The Filter pass over ``rows`` without nominated pods:
        the fused check clears the nodes that pass, and the live plugins, in Filter order, see those
        a live plugin before them passed (the nodes the framework would hand them); the plugins
        filter the nodes the fused check does not clear. A live verdict of Error makes the
        framework filter all of ``rows`` again, so that it reports (or not) the error it meets first."""
        n = len(rows)
        ok = self.passing(plan, pod_info, snapshot, rows)
        if ok is not None and self._rejected_whole(plan, ok):
            return self._rejected(plan, state, pod_info, snapshot, rows)
        first = None  # (plugin index, failed, verdicts) of the first live plugin failing a node, when it saw every row
        live = []  # (plugin index, positions in rows, verdicts there) of the others
        at = None if ok is None else np.flatnonzero(ok)
        for name in plan.live_filter:
            if at is None and first is not None:  # (the positions the first one passed, once another asks)
                at = np.flatnonzero(~first[1])
            if at is not None and not len(at):
                break
            verdicts = filter_verdicts(self.plugins[name], state, pod_info, snapshot, rows if at is None else rows[at])
            codes = verdicts.codes
            failed = codes != 0
            if not np.count_nonzero(failed):
                continue
            if np.count_nonzero(codes == _ERROR):
                return self.fw.run_filter(state, pod_info, snapshot, rows)
            if at is None:
                first = (plan.filter_names.index(name), failed, verdicts)
            else:
                live.append((plan.filter_names.index(name), at[failed], verdicts, failed))
                at = at[~failed]
        if first is not None:  # its columns are the outcome's (no node failed before it): the plugin
            index, failed, verdicts = first  # index where it failed (a lookup by the mask), its codes
            fail_plugin = np.array((-1, index), np.int16).take(failed.view(np.int8))
            fail_code = verdicts.codes.astype(np.int8)  # (0 where it passed; a copy, written below)
            fail_reason = verdicts.reason_idx.astype(np.int32)
            fail_reason[~failed] = -1
            reasons: list = list(verdicts.reasons)
        elif ok is None and not live:
            return self.all_passed(plan, rows)
        else:
            fail_plugin = np.full(n, -1, np.int16)
            fail_code = np.zeros(n, np.int8)
            fail_reason = np.full(n, -1, np.int32)
            reasons = []
        if ok is not None and not ok.all():  # the plugins filter the nodes the fused check does not clear
            doubtful = np.flatnonzero(~ok)
            checked = self._rejected(plan, state, pod_info, snapshot, rows[doubtful])
            fail_plugin[doubtful] = checked.fail_plugin
            fail_code[doubtful] = checked.fail_code
            fail_reason[doubtful] = checked.fail_reason
            reasons = list(checked.reasons)
        # a node every fused plugin passes fails at the first live plugin that rejects it
        for index, failed_at, verdicts, failed in live:
            _fail_at(fail_plugin, fail_code, fail_reason, reasons, failed_at, index, verdicts, failed)
        return FilterOutcome(rows, fail_plugin, fail_code, fail_reason, reasons, plan.filter_names)

    def _rejected_whole(self, plan: CyclePlan, ok: np.ndarray) -> bool:
        """The outcome of the plugins' pass (:meth:`_rejected`) over all of the rows is the whole
        answer, and the cheaper one: the fused check clears none of them (no live plugin sees a
        node), or only fused plugins filter (they pass the nodes it clears) and it clears at most
        half of them (with more, reading the others alone and spreading them into fresh columns
        costs less than reading them all)."""
        cleared = np.count_nonzero(ok)
        return not cleared or (2 * cleared <= len(ok) and self._fused_only(plan))

    @staticmethod
    def _fused_only(plan: CyclePlan) -> bool:
        """Only fused plugins filter in this cycle (none runs by itself)."""
        return not plan.live_filter and _FILTER_FUSED.issuperset(plan.filter_names)

    def _rejected(self, plan: CyclePlan, state, pod_info, snapshot, rows: np.ndarray) -> FilterOutcome:
        """:meth:`Framework.run_filter` over ``rows`` the fused check does not clear (or over any
        rows when only fused plugins filter: those it clears pass). When only fused
        plugins filter, NodeResourcesFit's verdicts are read off the :class:`NodeFitVerdicts` kept
        for its requests (computed on ``rows`` alone while the shape is young: :meth:`_fit_verdicts_of`;
        an extended resource too: :meth:`plan`
        found no DeviceClass serving it, so the plugin reads its snapshot column as any other),
        NodeUnschedulable and TaintToleration
        are asked about the nodes the fused check finds they reject (they pass the others), and
        NodeName passes every node (the pod names none); the outcome is the framework's. When
        NodeResourcesFit is the only one of them that may reject a node in this cycle
        (:meth:`_fit_alone`: as in a job trace's cluster, no cordon and no taint the pod does not
        tolerate), the outcome's columns are read off the kept verdicts whole
        (:meth:`NodeFitVerdicts.failures`: a failed gang member, say, gets every node's verdict)."""
        shape = plan.shape
        if not self._fused_only(plan):
            return self.fw.run_filter(state, pod_info, snapshot, rows)
        kept = self._fit_verdicts_of(shape, snapshot)
        names = plan.filter_names
        if NodeResourcesFit.name in names and self._fit_alone(plan, pod_info, snapshot):
            return FilterOutcome(rows, *kept.failures(rows, names.index(NodeResourcesFit.name)), list(names))
        failures = FilterFailures(rows)
        for pi, name in enumerate(plan.filter_names):
            if not len(failures.alive):
                break
            sub = failures.alive_rows()
            if name == NodeResourcesFit.name:
                verdicts = kept.verdicts(sub)
            elif name == NodeName.name:
                continue
            else:
                if name == NodeUnschedulable.name:
                    if not snapshot.cordoned or self._tolerates_cordon(shape, pod_info):
                        continue
                    rejects = snapshot.unschedulable.take(sub)
                elif len(snapshot.taint_sets) > 1:  # TaintToleration
                    rejects = ~self._taint_ok(shape, pod_info, snapshot)[snapshot.taint_group.take(sub)]
                else:
                    continue
                at = np.flatnonzero(rejects)
                if not len(at):
                    continue
                asked = filter_verdicts(self.plugins[name], state, pod_info, snapshot, sub[at])
                codes, index = np.zeros(len(sub), np.int8), np.full(len(sub), -1, np.int32)
                codes[at], index[at] = asked.codes, asked.reason_idx
                verdicts = Verdicts(codes, index, asked.reasons)
            if not verdicts.codes.any():
                continue
            if (verdicts.codes == Code.Error).any():  # the framework reports it as it meets it
                return self.fw.run_filter(state, pod_info, snapshot, rows)
            failures.record(pi, verdicts)
        return failures.outcome(list(plan.filter_names))

    def _fit_verdicts_of(self, shape: PodShape, snapshot) -> NodeFitVerdicts:
        """NodeResourcesFit's verdicts for the shape's needs: those kept for them, or, while the
        shape is young (:data:`KEEP_FROM`) and none are kept, computed on the rows read only."""
        kept = self._fit_verdicts.get(shape.checked)
        if kept is not None and kept.snapshot is snapshot:
            return kept
        if shape.cycles < KEEP_FROM:
            return FitVerdictsNow(snapshot, shape.checked)
        return _keep(self._fit_verdicts, shape.checked, NodeFitVerdicts(snapshot, shape.checked))

    def _fit_alone(self, plan: CyclePlan, pod_info, snapshot) -> bool:
        """Of the fused Filter plugins, NodeResourcesFit alone may reject a node in this cycle: no
        node is cordoned (or the pod tolerates it), the pod tolerates every taint set of the
        snapshot (or no node has a taint), and NodeName passes every node (the pod names none).
        The outcome of any rows is then the plugin's verdicts on them, whatever the Filter order."""
        shape, names = plan.shape, plan.filter_names
        if NodeUnschedulable.name in names and snapshot.cordoned and not self._tolerates_cordon(shape, pod_info):
            return False
        return not (TaintToleration.name in names and len(snapshot.taint_sets) > 1
                    and not self._taint_ok(shape, pod_info, snapshot).all())

    # -- PreScore / Score --------------------------------------------------------------------
    def _kept_node_scores(self, shape: PodShape, snapshot) -> NodeScores | None:
        """The :class:`NodeScores` of this pod's requests on ``snapshot`` (shared by pods alike;
        None while the shape is young and none is kept for its requests)."""
        kept = self._node_scores.get(shape.scores_key)
        if kept is not None and kept.snapshot is snapshot:
            return kept
        if shape.cycles < KEEP_FROM:
            return None
        return _keep(self._node_scores, shape.scores_key,
                     NodeScores(snapshot, shape.score_requests, shape.balance_requests, self._score_weights()))

    def _score_weights(self) -> np.ndarray:
        return self.fit.scorer.weights if self.fit is not None else np.ones(2, np.int64)

    def _young_scores(self, shape: PodShape, snapshot, rows: np.ndarray) -> np.ndarray | None:
        """The two resource scores of ``rows`` (2 x rows) computed now, not kept; None when a node
        lacks cpu or memory allocatable (the plugins leave the resource out there)."""
        scores = NodeScores(snapshot, shape.score_requests, shape.balance_requests, self._score_weights()).score(rows)
        return None if (scores[0] < 0).any() else scores

    def _weights(self, names: tuple[str, ...]) -> np.ndarray:
        """The Score plugins' weights, in ``names`` order (kept per name tuple by the framework)."""
        weights = self.fw._weight_vectors.get(names)
        if weights is None:
            weights = self.fw._weight_vectors[names] = np.asarray([self.fw.weights[n] for n in names], np.int64)
        return weights

    def _constant_others(self, plan: CyclePlan, snapshot) -> bool:
        """Every Score plugin of ``plan`` but the two resource scorers answers a constant on every
        node of ``snapshot`` (DynamicResources always does for a pod of the fast shape)."""
        return (not self.custom_scores and not plan.live_score and (not plan.scores_taints or len(snapshot.taint_sets) == 1)
                and (not plan.scores_images or not snapshot.image_nodes))

    def _totals(self, plan: CyclePlan, kept: NodeScores) -> ScoreTotals:
        """The :class:`ScoreTotals` of the plan's Score plugins on ``kept`` (built on first use)."""
        names = plan.score_names
        found = kept.totals.get(names)
        if found is not None:
            return found
        raw = np.zeros(len(names), np.int64)  # DynamicResources, VolumeBinding, TaintToleration, ImageLocality: 0
        normalized = raw.copy()
        if TaintToleration.name in names:  # all 0, reversed by its NormalizeScore: MAX_NODE_SCORE
            normalized[names.index(TaintToleration.name)] = MAX_NODE_SCORE
        rows = [names.index(n) if n in names else None
                for n in (NodeResourcesFit.name, NodeResourcesBalancedAllocation.name)]
        return kept.add_totals(names, ScoreTotals(raw, normalized, *rows, self._weights(names),
                                                  kept.scores.shape[1]))

    def run_pre_score(self, plan: CyclePlan, state, pod_info=None, rows: np.ndarray | None = None) -> list:
        """As :meth:`Framework.run_pre_score` logs for this pod (the live plugins' PreScore runs
        here, over ``rows``, and raises as the framework does on a failure)."""
        state.skip_score.update(plan.skip_score)
        if not plan.live:
            return list(plan.pre_score_log)
        log = []
        for name, status in plan.pre_score_log:
            if status is None:
                status = (self.plugins[name].pre_score(state, pod_info, plan.snapshot, rows)
                          or Status()).with_plugin(name)
                if status.is_skip():
                    state.skip_score.add(name)
                elif not status.is_success():
                    raise FrameworkError(f'running PreScore plugin "{name}": {status.message()}')
            log.append((name, status))
        skipped = frozenset(state.skip_score)
        found = self._score_lists.get(skipped)
        if found is None:
            plugins = [p for p in self.fw.points["score"] if p.name not in skipped]
            found = _keep(self._score_lists, skipped, (plugins, tuple(p.name for p in plugins)))
        plan.score_plugins, plan.score_names = list(found[0]), found[1]
        plan.live_score = tuple(n for n in plan.score_names if n in plan.live and (
            n != DynamicResources.name or self.plugins[n].scores_nodes(state)))
        return log

    def run_score(self, plan: CyclePlan, state, pod_info, snapshot, rows: np.ndarray) -> ScoreOutcome:
        """:meth:`Framework.run_score` for this pod: raw scores, NormalizeScore, range check."""
        kept = None
        if self.kept_scores:
            node_scores = self._kept_node_scores(plan.shape, snapshot)
            if node_scores is None:  # a young shape: these rows scored alone, as NodeScores scores them
                kept = self._young_scores(plan.shape, snapshot, rows)
                return self._assemble_scores(plan, state, pod_info, snapshot, rows, kept)
            node_scores.refresh()
            if not node_scores.any_lacking(rows):
                kept = node_scores.take(rows)
                if self._constant_others(plan, snapshot):
                    totals = self._totals(plan, node_scores)
                    if totals.in_range:  # (otherwise the plugins report the score out of range)
                        names = plan.score_names
                        return KeptScoreOutcome(rows, list(names), self._weights(names), kept, totals,
                                                totals.total.take(rows))
        return self._assemble_scores(plan, state, pod_info, snapshot, rows, kept)

    def _assemble_scores(self, plan: CyclePlan, state, pod_info, snapshot, rows: np.ndarray,
                         kept: np.ndarray | None) -> ScoreOutcome:
        """The score matrices plugin by plugin: the ``kept`` resource scores (2 x rows) or the
        fused arithmetic, the constant answers, the other plugins called."""
        shape = plan.shape
        n = len(rows)
        plugins = plan.score_plugins
        raw = np.zeros((len(plugins), n), np.int64)
        alloc = None
        if not self.kept_scores and self.default_resources and (self.fit is not None or self.balanced is not None):
            alloc = snapshot.allocatable[:2].take(rows, axis=1)  # cpu, memory
            if np.count_nonzero(alloc) != alloc.size:
                alloc = None  # some node lacks one: the plugins' own matrices leave it out
        reverse_taints = None
        for i, plugin in enumerate(plugins):
            name = plugin.name
            if name in self.custom_scores or name in plan.live_score:
                raw[i] = score_plugin(plugin, state, pod_info, snapshot, rows)
            elif name == NodeResourcesFit.name and kept is not None:
                raw[i] = kept[0]
            elif name == NodeResourcesBalancedAllocation.name and kept is not None:
                raw[i] = kept[1]
            elif name == NodeResourcesFit.name and alloc is not None:
                scorer = plugin.scorer
                used = snapshot.non_zero.take(rows, axis=1)
                raw[i] = scorer.scorer(used + shape.score_requests[:, None], used, alloc, scorer.weights)
            elif name == NodeResourcesBalancedAllocation.name and alloc is not None:
                raw[i] = balanced_allocation(snapshot.requested[:2].take(rows, axis=1), shape.balance_requests,
                                             alloc)
            elif name in (DynamicResources.name, VolumeBinding.name):
                continue  # no claim: 0 everywhere, and 0 after its normalization
            elif name == TaintToleration.name and len(snapshot.taint_sets) == 1:
                reverse_taints = i  # no taint anywhere: 0 everywhere, MAX_NODE_SCORE after normalizing
            elif name == ImageLocality.name and not snapshot.image_nodes:
                continue
            else:
                raw[i] = plugin.score_nodes(state, pod_info, snapshot, rows)
        normalized = raw.copy()
        for i, plugin in enumerate(plugins):
            if i == reverse_taints:
                normalized[i] = MAX_NODE_SCORE
            elif plugin.name == TaintToleration.name or plugin.name in self.custom_scores or \
                    plugin.name in plan.live_score:
                normalize_score(plugin, state, pod_info, normalized[i])
        check_score_range(plugins, normalized)
        names = plan.score_names
        weights = self._weights(names)
        out = ScoreOutcome(rows, list(names), weights, raw, normalized)
        out.total = weights @ normalized if len(names) else np.zeros(n, np.int64)
        return out


def _need_per_column(checked: tuple[tuple[str, int], ...], snapshot) -> np.ndarray | None:
    """NodeResourcesFit's need per snapshot column for ``checked`` (read-only: shared), or None."""
    need = np.full(len(snapshot.resources), _NEVER, np.int64)
    need[snapshot.res_index[PODS]] = 1
    for name, value in checked:
        col = snapshot.res_index.get(name)
        if col is None:
            return None
        need[col] = value
    need.flags.writeable = False
    return need


class _NodesWithNominated:
    """Nodes' columns as NodeResourcesFit's Filter reads them (``res_index``, ``allocatable``,
    ``requested``, ``pod_count``; column ``j`` is the ``j``-th node with a nominated pod not placed
    yet), with the requests of those pods added, as ``Snapshot.add_pod`` accounts them (a resource
    no node has a column for is left out: the plugin reads a missing column as 0 allocatable, short
    whatever is requested). ``positions``: where each column's node is in the rows asked about.

    >>> from kschedlab.api.core import Node, Pod
    >>> from kschedlab.cluster import Cluster
    >>> def pod(name, node=None):
    ...     return Pod(metadata={"name": name, "namespace": "default"}, spec={"nodeName": node,
    ...         "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]})
    >>> c = Cluster([Node(metadata={"name": n}, status={"allocatable": {"cpu": "4", "pods": "10"}})
    ...              for n in "ab"] + [pod("placed", "a"), pod("wait")])
    >>> s = c.snapshot
    >>> a, b = s.index["a"], s.index["b"]
    >>> nodes = _NodesWithNominated.of(s, np.array([b, a]), {a: [c.pod_infos["default/wait"]], b: []})
    >>> nodes.positions.tolist(), nodes.requested[s.res_index["cpu"]].tolist(), nodes.pod_count.tolist()
    ([1], [2000], [2])
    """

    def __init__(self, snapshot, rows: np.ndarray, positions: np.ndarray, pending: list[list]):
        self.res_index = index = snapshot.res_index
        self.positions = positions
        self.allocatable = snapshot.allocatable[:, rows]
        self.requested = snapshot.requested[:, rows]
        self.pod_count = snapshot.pod_count[rows]
        cols, at, values = [], [], []
        for j, infos in enumerate(pending):
            self.pod_count[j] += len(infos)
            for info in infos:
                for name, value in info.requests.items():
                    col = index.get(name)
                    if col is not None:
                        cols.append(col)
                        at.append(j)
                        values.append(value)
        if values:
            np.add.at(self.requested, (np.asarray(cols, np.intp), np.asarray(at, np.intp)),
                      np.asarray(values, self.requested.dtype))

    @classmethod
    def of(cls, snapshot, rows: np.ndarray, nominated: dict) -> "_NodesWithNominated | None":
        """The nodes of ``rows`` with those of their ``nominated`` pods not placed yet (as the
        framework's first pass adds them), or None when no node has one (there is no first pass)."""
        placed = snapshot.pod_row
        positions, pending = [], []
        for j, row in enumerate(rows.tolist()):
            infos = [info for info in nominated[row] if info.key not in placed]
            if infos:
                positions.append(j)
                pending.append(infos)
        if not pending:
            return None
        at = np.asarray(positions, np.intp)
        return cls(snapshot, rows[at], at, pending)


#: node count -> read-only Filter outcome arrays of nodes that all passed
_PASSED: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}


def _all_passed(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(fail_plugin, fail_code, fail_reason) of ``n`` nodes that passed: shared, read-only."""
    found = _PASSED.get(n)
    if found is None:
        found = (np.full(n, -1, np.int16), np.zeros(n, np.int8), np.full(n, -1, np.int32))
        for array in found:
            array.flags.writeable = False
        if len(_PASSED) > 64:
            _PASSED.clear()
        _PASSED[n] = found
    return found


def _custom_scores(fw: Framework) -> set[str]:
    """The names of ``fw``'s Score plugins that are not the in-tree ones the path knows."""
    return {p.name for p in fw.points["score"] if type(p) is not KNOWN.get(p.name)}


def _custom_plugins(fw: Framework) -> set[str]:
    """The names of ``fw``'s PreFilter, Filter and PreScore plugins that are not in-tree ones."""
    return {p.name for point in ("preFilter", "filter", "preScore") for p in fw.points[point]
            if type(p) is not KNOWN.get(p.name)}


def _keep(store: dict, key, value):
    """``store[key] = value``, dropping the oldest entry when ``store`` holds :data:`KEPT_ANSWERS`."""
    if key not in store and len(store) >= KEPT_ANSWERS:
        del store[next(iter(store))]
    store[key] = value
    return value


def _fail_at(fail_plugin: np.ndarray, fail_code: np.ndarray, fail_reason: np.ndarray, reasons: list,
             at: np.ndarray, index: int, verdicts, failed: np.ndarray) -> None:
    """Write the refusals ``failed`` (a mask of, or positions into, ``verdicts``) at rows ``at`` of a
    Filter outcome's columns as plugin ``index``'s, its reasons listed after those already there."""
    fail_plugin[at] = index
    fail_code[at] = verdicts.codes[failed]
    r = verdicts.reason_idx[failed]
    fail_reason[at] = np.where(r >= 0, r + len(reasons), -1)
    reasons.extend(verdicts.reasons)
