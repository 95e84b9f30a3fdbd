"""The framework runtime: one profile's plugins, run extension point by
extension point with upstream's semantics, answering for many nodes at once.

>>> from kschedlab.framework.runtime import Framework
>>> fw = Framework({})
>>> fw.profile.scheduler_name, [p.name for p in fw.points["score"]][:2]
('default-scheduler', ['TaintToleration', 'NodeAffinity'])
"""

from __future__ import annotations

import json
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kschedlab.features import FeatureGates
from kschedlab.framework.interface import (
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    REGISTRY,
    CycleState,
    Plugin,
    PreFilterResult,
    Verdicts,
)
from kschedlab.framework.profile import POINTS_IN_CONFIG_ORDER, ProfileError, ResolvedProfile, resolve_profile
from kschedlab.framework.signers import SCHEDULER_NAME_SIGNER_NAME
from kschedlab.framework.status import SUCCESS, Code, FrameworkError, Status
from kschedlab.framework.types import cache_owner

#: ``Code.Error`` and ``Code.Success`` as plain ints (for comparisons with arrays of codes, and quick checks)
_ERROR = int(Code.Error)
_SUCCESS = int(Code.Success)
#: plugins whose Signature often refuses (asked first by :meth:`Framework.sign_pod`)
_OFTEN_UNSIGNABLE = frozenset({"NodeResourcesFit", "NodeResourcesBalancedAllocation", "PodTopologySpread",
                               "InterPodAffinity"})


@dataclass
class FilterOutcome:
    """Filter results for the visited rows, in visiting order."""

    rows: np.ndarray  # visited rows, in order
    fail_plugin: np.ndarray  # int16 index into plugins, -1 = passed
    fail_code: np.ndarray  # int8
    fail_reason: np.ndarray  # int32 index into reasons, -1 = none
    reasons: list[tuple[str, ...]]
    plugins: list[str]

    @property
    def passed(self) -> np.ndarray:
        return self.fail_plugin < 0

    @classmethod
    def concat(cls, parts: list["FilterOutcome"]) -> "FilterOutcome":
        """Join outcomes of consecutive chunks of nodes (same plugin list)."""
        if len(parts) == 1:
            return parts[0]
        reasons: list[tuple[str, ...]] = []
        fail_reason = []
        for part in parts:
            fail_reason.append(np.where(part.fail_reason >= 0, part.fail_reason + len(reasons), -1))
            reasons.extend(part.reasons)
        return cls(np.concatenate([p.rows for p in parts]), np.concatenate([p.fail_plugin for p in parts]),
                   np.concatenate([p.fail_code for p in parts]), np.concatenate(fail_reason).astype(np.int32),
                   reasons, parts[0].plugins)

    def head(self, n: int) -> "FilterOutcome":
        """The first ``n`` visited nodes."""
        return FilterOutcome(self.rows[:n], self.fail_plugin[:n], self.fail_code[:n], self.fail_reason[:n],
                             self.reasons, self.plugins)

    def status(self, i: int) -> Status:
        p = int(self.fail_plugin[i])
        if p < 0:
            return Status()
        r = int(self.fail_reason[i])
        return Status(Code(int(self.fail_code[i])), self.reasons[r] if r >= 0 else (), self.plugins[p])


class FilterFailures:
    """A :class:`FilterOutcome`'s columns filled plugin by plugin, in Filter order: each plugin's
    Verdicts over the nodes still alive mark those it rejects, and they stop there.

    >>> f = FilterFailures(np.array([4, 7, 9]))
    >>> f.record(0, Verdicts(np.array([0, 2, 0], np.int8), np.array([-1, 0, -1], np.int32), [("no",)]))
    >>> f.alive_rows().tolist(), f.outcome(["A"]).status(1).reasons
    ([4, 9], ('no',))
    """

    def __init__(self, rows: np.ndarray) -> None:
        n = len(rows)
        self.rows = rows
        self.fail_plugin = np.full(n, -1, np.int16)
        self.fail_code = np.zeros(n, np.int8)
        self.fail_reason = np.full(n, -1, np.int32)
        self.reasons: list[tuple[str, ...]] = []
        self.alive = np.arange(n)  # positions in ``rows`` no plugin rejected yet

    def alive_rows(self) -> np.ndarray:
        return self.rows if len(self.alive) == len(self.rows) else self.rows[self.alive]

    def record(self, plugin_index: int, verdicts: Verdicts) -> None:
        """Plugin ``plugin_index``'s verdicts over :meth:`alive_rows`."""
        failed = verdicts.codes != 0
        idx = self.alive[failed]
        self.fail_plugin[idx] = plugin_index
        self.fail_code[idx] = verdicts.codes[failed]
        r = verdicts.reason_idx[failed]
        self.fail_reason[idx] = np.where(r >= 0, r + len(self.reasons), -1)
        self.reasons.extend(verdicts.reasons)
        self.alive = self.alive[~failed]

    def outcome(self, plugins: list[str]) -> FilterOutcome:
        return FilterOutcome(self.rows, self.fail_plugin, self.fail_code, self.fail_reason, self.reasons, plugins)


@dataclass
class ScoreOutcome:
    rows: np.ndarray
    plugins: list[str]
    weights: np.ndarray  # (P,)
    raw: np.ndarray  # (P, F)
    normalized: np.ndarray  # (P, F)

    #: the weighted sum per node, when the producer computed it (else computed when read)
    _total: np.ndarray | None = field(default=None, repr=False, compare=False)

    @property
    def weighted(self) -> np.ndarray:
        return self.normalized * self.weights[:, None]

    @property
    def total(self) -> np.ndarray:
        if self._total is None:
            self._total = self.weighted.sum(axis=0) if len(self.plugins) else np.zeros(len(self.rows), np.int64)
        return self._total

    @total.setter
    def total(self, value: np.ndarray) -> None:
        self._total = value


@dataclass
class Handle:
    """What plugins may reach of the scheduler (``framework.Handle``).

    ``nominator`` is upstream's ``PodNominator`` (by default the cluster's, a
    :class:`~kschedlab.framework.nominator.Nominator`).
    """

    gates: FeatureGates
    framework: "Framework"
    cluster: Any = None
    extra: dict = field(default_factory=dict)
    nominator: Any = None

    @property
    def pod_nominator(self):
        if self.nominator is not None:
            return self.nominator
        return self.cluster.nominator if self.cluster is not None else None

    def nominated_pods_by_node(self) -> dict[str, list]:
        """Every nomination, node name -> nominated PodInfos (in nomination order)."""
        nominator = self.pod_nominator
        return nominator.nominated_pods_by_node() if nominator is not None else {}

    def nominated_pods_for_node(self, node_name: str) -> list:
        """``NominatedPodsForNode``: the pods nominated to ``node_name``."""
        nominator = self.pod_nominator
        return nominator.nominated_pods_for_node(node_name) if nominator is not None else []


def clone_cycle_state(state: CycleState) -> CycleState:
    """``CycleState.Clone``: values with a ``clone()`` method are cloned, the rest shared.

    A plugin whose PreFilter extension (``add_pod`` / ``remove_pod``) mutates
    its cycle-state value must store a value with ``clone()``, as upstream's
    ``StateData.Clone``.
    """
    out = CycleState({k: (v.clone() if callable(getattr(v, "clone", None)) else v) for k, v in state.items()})
    out.skip_filter = set(state.skip_filter)
    out.skip_score = set(state.skip_score)
    out.skip_pre_bind = set(state.skip_pre_bind)
    return out


class Framework:
    """A scheduling profile ready to run."""

    def __init__(self, profile: dict | ResolvedProfile | None = None, *, gates: FeatureGates | None = None,
                 registry: dict | None = None, cluster: Any = None):
        self.registry = {**REGISTRY, **(registry or {})}
        self.gates = gates or FeatureGates()
        self._signature_key = ("signature", cache_owner())
        if not isinstance(profile, ResolvedProfile):
            profile = resolve_profile(profile or {}, self.registry, self.gates)
        self.profile = profile
        self.handle = Handle(self.gates, self, cluster)
        self.plugins: dict[str, Plugin] = {}
        for name in profile.needed:
            cls = self.registry[name]
            raw = profile.plugin_config.get(name)
            defaulting = getattr(cls, "default_args", None)
            self.plugins[name] = cls.build(defaulting(raw) if defaulting else raw, self.handle)
            if self.plugins[name].name != name:
                raise ProfileError(f"plugin {name!r} is registered under {name!r} but its class {cls.__name__} "
                                   f"names itself {self.plugins[name].name!r}: set name = {name!r} on the class")
        self.points: dict[str, list[Plugin]] = {
            point: [self.plugins[n] for n in profile.points[point]] for point in POINTS_IN_CONFIG_ORDER}
        self.weights = {name: w for name, w in profile.weights.items()}
        #: Score plugin names (after PreScore skips) -> their weights as an array
        self._weight_vectors: dict[tuple[str, ...], np.ndarray] = {}
        self.placement_weights = dict(profile.placement_weights)
        #: opportunistic batching (gate OpportunisticBatching): this profile's batch cache, None when off
        self.batch = None
        #: the plugins whose ``sign_pod`` make a pod's signature, and those (without one) that turn it off
        self.sign_plugins: list[Plugin] = []
        self.unsignable_plugins: list[str] = []
        if self.gates.enabled("OpportunisticBatching"):
            from kschedlab.framework.batch import OpportunisticBatch

            self._compute_batchable_plugins()
            self.batch = OpportunisticBatch(self)

    # -- signatures (opportunistic batching) -------------------------------------
    def _compute_batchable_plugins(self) -> None:
        """``computeBatchablePlugins``: the PreFilter, Filter, PreScore and Score plugins sign
        pods; one of them without ``sign_pod`` turns signatures off for the whole profile."""
        seen: set[str] = set()
        for point in ("preFilter", "filter", "preScore", "score"):
            for plugin in self.points[point]:
                if plugin.name in seen:
                    continue
                seen.add(plugin.name)
                if callable(getattr(plugin, "sign_pod", None)):
                    self.sign_plugins.append(plugin)
                else:
                    self.unsignable_plugins.append(plugin.name)

    @property
    def signatures_enabled(self) -> bool:
        return self.batch is not None and not self.unsignable_plugins

    def sign_pod(self, pod) -> str | None:
        """``SignPod``: the pod's scheduling signature (canonical JSON of the scheduler name
        and every plugin's fragments), or None when signatures are off for this profile or a
        plugin cannot sign this pod.  Pods with equal signatures get the same Filter and Score
        results on any node.

        >>> from kschedlab.features import FeatureGates
        >>> from kschedlab.framework.types import PodInfo
        >>> from kschedlab.api.core import Pod
        >>> gates = FeatureGates({"DRAExtendedResource": False}, emulate_older=True)
        >>> fw = Framework({"pluginConfig": [{"name": "PodTopologySpread",
        ...                   "args": {"defaultingType": "List"}}]}, gates=gates)
        >>> pod = PodInfo.of(Pod.model_validate({"spec": {"containers": [{"name": "c", "image": "nginx"}]}}))
        >>> sig = fw.sign_pod(pod)
        >>> sig == fw.sign_pod(pod), '"v1.Pod.Spec.CanonicalImageNames()":["nginx:latest"]' in sig
        (True, True)
        >>> Framework({}, gates=gates).sign_pod(pod) is None   # System default spread constraints
        True
        """
        if not self.signatures_enabled:
            return None
        cache = getattr(pod, "cache", None)  # a PodInfo keeps its signature (upstream signs once, at enqueue)
        if cache is not None:
            key = self._signature_key
            if key not in cache:
                cache[key] = self._sign(pod)
            return cache[key]
        return self._sign(pod)

    def _sign(self, pod) -> str | None:
        # any unsignable plugin makes the pod unsignable: ask the plugins that usually refuse first
        # (the resource plugins refuse every pod while DRAExtendedResource is on), then join the
        # fragments in the profile's order
        fragments_of: dict[str, Any] = {}
        order = self.__dict__.get("_sign_order")
        if order is None or len(order) != len(self.sign_plugins):
            order = self._sign_order = sorted(self.sign_plugins, key=lambda p: p.name not in _OFTEN_UNSIGNABLE)
        for plugin in order:
            fragments, status = plugin.sign_pod(pod)
            if status is not None and not status.is_success():
                return None
            fragments_of[plugin.name] = fragments
        sig: dict[str, Any] = {SCHEDULER_NAME_SIGNER_NAME: pod.pod.spec.scheduler_name or ""}
        for plugin in self.sign_plugins:
            for fragment in fragments_of[plugin.name] or ():
                sig[fragment.key] = fragment.value
        return json.dumps(sig, sort_keys=True, separators=(",", ":"))

    # -- queue -----------------------------------------------------------------
    def run_pre_enqueue(self, pod, memo: dict | None = None) -> Status:
        """The PreEnqueue plugins in order; the first that rejects decides.

        ``memo`` (a dict the caller keeps while the cluster does not change, e.g. over one queue
        move) keeps the answers of plugins with a ``pre_enqueue_key(pod)``: pods with the same
        key get the same answer from such a plugin in the same cluster (GangScheduling: the
        pod's PodGroup), so it is asked once per key."""
        plugins = self.points["preEnqueue"]
        keyed = self.__dict__.get("_pre_enqueue_keyed")
        if keyed is None or keyed[0] is not plugins or len(keyed[1]) != len(plugins):
            keyed = self._pre_enqueue_keyed = (plugins, [getattr(p, "pre_enqueue_key", None) for p in plugins])
        for plugin, key_of in zip(plugins, keyed[1]):
            slot = None if key_of is None or memo is None else (plugin, key_of(pod))
            if slot is None or slot[1] is None:
                status = plugin.pre_enqueue(pod)
            else:
                status = memo.get(slot)
                if status is None:
                    status = memo[slot] = plugin.pre_enqueue(pod)
            if status.code != _SUCCESS:
                return status.with_plugin(plugin.name)
        return SUCCESS

    def less(self, a, b) -> bool:
        return self.points["queueSort"][0].less(a, b)

    # -- filtering -------------------------------------------------------------
    def run_pre_filter(self, state: CycleState, pod, snapshot, ran: Mapping | None = None):
        """Returns (PreFilterResult, Status, [(plugin, status)], plugins_with_nodes).

        ``ran`` (plugin name -> (result, status)) holds the answers of plugins already called in
        this cycle (their data is in ``state``): they are not called again, their answers count."""
        result = PreFilterResult()
        final = Status()
        log: list[tuple[str, Status]] = []
        with_nodes: list[str] = []
        for plugin in self.points["preFilter"]:
            answer = ran.get(plugin.name) if ran else None
            res, status = answer if answer is not None else plugin.pre_filter(state, pod, snapshot)
            status = (status or Status()).with_plugin(plugin.name)
            log.append((plugin.name, status))
            if status.is_skip():
                state.skip_filter.add(plugin.name)
                continue
            if not status.is_success():
                if status.code == Code.UnschedulableAndUnresolvable:
                    return result, status, log, []
                if status.code == Code.Unschedulable:
                    final = status
                    continue
                return result, Status(Code.Error, (f'running PreFilter plugin "{plugin.name}": '
                                                   f"{status.message()}",), plugin.name), log, []
            if res is not None and not res.all_nodes():
                with_nodes.append(plugin.name)
            result = result.merge(res)
            if not result.all_nodes() and not result.node_names:
                if len(with_nodes) == 1:
                    msg = f"node(s) didn't satisfy plugin {with_nodes[0]}"
                else:  # upstream prints sets.List(pluginsWithNodes): sorted
                    msg = f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(with_nodes))}] simultaneously"
                return result, Status.unresolvable(msg), log, with_nodes
        return result, final, log, with_nodes

    def filter_plugins(self, state: CycleState) -> list[Plugin]:
        return [p for p in self.points["filter"] if p.name not in state.skip_filter]

    def run_filter(self, state: CycleState, pod, snapshot, rows: np.ndarray) -> FilterOutcome:
        """Run every Filter plugin over ``rows``; a node stops at its first failure."""
        plugins = self.filter_plugins(state)
        failures = FilterFailures(rows)
        for pi, plugin in enumerate(plugins):
            if not len(failures.alive):
                break
            verdicts = _filter(plugin, state, pod, snapshot, failures.alive_rows())
            if not np.count_nonzero(verdicts.codes):
                continue
            errors = verdicts.codes == _ERROR  # (a plain int: an array compared with the enum is slower)
            if np.count_nonzero(errors):
                i = int(np.argmax(errors))
                raise FrameworkError(f'running "{plugin.name}" filter plugin: '
                                     f"{verdicts.status(i).message()}")
            failures.record(pi, verdicts)
        return failures.outcome([p.name for p in plugins])

    def run_filter_node(self, state: CycleState, pod, snapshot, row: int) -> Status:
        """Filter one node (as preemption and the nominated-node path need)."""
        out = self.run_filter(state, pod, snapshot, np.asarray([row]))
        return out.status(0)

    # -- PreFilter extensions and nominated pods ---------------------------------
    def _run_pre_filter_extension(self, what: str, method: str, state, pod, other, snapshot, row: int) -> Status:
        for plugin in self.points["preFilter"]:
            fn = getattr(plugin, method, None)
            if fn is None or plugin.name in state.skip_filter:
                continue
            status = fn(state, pod, other, snapshot.node_info(row)) or Status()
            if not status.is_success():
                return Status(Code.Error, (f'running {what} on PreFilter plugin "{plugin.name}": '
                                           f"{status.message()}",), plugin.name)
        return Status()

    def run_pre_filter_extension_add_pod(self, state: CycleState, pod, pod_to_add, snapshot, row: int) -> Status:
        """``RunPreFilterExtensionAddPod``: tell every PreFilter plugin with an
        ``add_pod(state, pod_info, pod_info_to_add, node_info)`` extension that
        ``pod_to_add`` now runs on node ``row`` (the snapshot already holds it).
        Plugins skipped at PreFilter are not called."""
        return self._run_pre_filter_extension("AddPod", "add_pod", state, pod, pod_to_add, snapshot, row)

    def run_pre_filter_extension_remove_pod(self, state: CycleState, pod, pod_to_remove, snapshot,
                                            row: int) -> Status:
        """``RunPreFilterExtensionRemovePod``: the counterpart of
        :meth:`run_pre_filter_extension_add_pod` (``remove_pod``; the snapshot
        no longer holds the pod)."""
        return self._run_pre_filter_extension("RemovePod", "remove_pod", state, pod, pod_to_remove, snapshot, row)

    def ge_nominated(self, pod, infos) -> list:
        """The nominated pods among ``infos`` with priority at least the pod's (not the pod itself)."""
        return [pi for pi in infos or () if pi.priority >= pod.priority and pi.key != pod.key]

    def _filter_with_nominated_added(self, state, pod, snapshot, row: int, nominated: list) -> Status | None:
        """First pass of ``RunFilterPluginsWithNominatedPods``: the nominated pods
        are added to the node (and to a clone of the cycle state), filters run,
        the node is restored.  None when no pod was added (no first pass)."""
        node_name = snapshot.names[row]
        saved = list(snapshot.pods[row])
        state_out = clone_cycle_state(state)
        added = []
        try:
            for pi in nominated:
                if pi.key in snapshot.pod_row:  # already placed somewhere: not a pending nomination
                    continue
                snapshot.add_pod(pi, node_name)
                added.append(pi)
                status = self.run_pre_filter_extension_add_pod(state_out, pod, pi, snapshot, row)
                if not status.is_success():
                    return status
            if not added:
                return None
            try:
                return self.run_filter_node(state_out, pod, snapshot, row)
            except FrameworkError as err:
                return Status.error(str(err))
        finally:
            for pi in added:
                snapshot.remove_pod(pi.key)
            snapshot.pods[row][:] = saved

    def run_filter_with_nominated_pods_node(self, state: CycleState, pod, snapshot, row: int,
                                            nominated: list | None = None) -> Status:
        """``RunFilterPluginsWithNominatedPods`` for one node.

        When pods of equal or higher priority are nominated to the node, filters
        run twice: first as if those pods were running there (they must not lose
        the room preemption made for them), then, if that passed, without them
        (filters such as pod affinity may need them absent).  Both must pass.
        ``nominated`` (the node's nominated pods) is looked up on the handle when
        not given.  Filter errors come back as an Error status.
        """
        if nominated is None:
            nominated = self.handle.nominated_pods_for_node(snapshot.names[row])
        ge = self.ge_nominated(pod, nominated)
        if ge:
            status = self._filter_with_nominated_added(state, pod, snapshot, row, ge)
            if status is not None and not status.is_success():
                return status
        try:
            return self.run_filter_node(state, pod, snapshot, row)
        except FrameworkError as err:
            return Status.error(str(err))

    def run_filter_with_nominated_pods(self, state: CycleState, pod, snapshot, rows: np.ndarray) -> FilterOutcome:
        """``RunFilterPluginsWithNominatedPods`` over many nodes, as :meth:`run_filter`.

        Nodes without nominated pods of equal or higher priority get the plain
        (vectorized) pass; the others take the two-pass route of
        :meth:`run_filter_with_nominated_pods_node`, and a failure of the first
        pass replaces their plain verdict.
        """
        outcome = self.run_filter(state, pod, snapshot, rows)
        special = self.nominated_rows(pod, snapshot)
        if not special:
            return outcome
        hits = np.flatnonzero(np.isin(rows, np.fromiter(special, np.int64)))
        return self.nominated_first_pass(state, pod, snapshot, outcome, hits, special)

    def nominated_rows(self, pod, snapshot) -> dict[int, list]:
        """Snapshot row -> the pods nominated there with priority at least ``pod``'s (the nodes that
        take the two-pass route of ``RunFilterPluginsWithNominatedPods``)."""
        special: dict[int, list] = {}
        for node, infos in self.handle.nominated_pods_by_node().items():
            row = snapshot.index.get(node)
            ge = self.ge_nominated(pod, infos)
            if row is not None and ge:
                special[row] = ge
        return special

    def nominated_first_pass(self, state: CycleState, pod, snapshot, outcome: FilterOutcome, hits: np.ndarray,
                             special: dict[int, list]) -> FilterOutcome:
        """``outcome`` with the first pass (nominated pods added) of the nodes at positions ``hits``
        of its rows: a failure there replaces their plain verdict (an Error is raised)."""
        if not len(hits):
            return outcome
        rows = outcome.rows
        plugin_index = {name: i for i, name in enumerate(outcome.plugins)}
        fail_plugin, fail_code = outcome.fail_plugin.copy(), outcome.fail_code.copy()
        fail_reason, reasons = outcome.fail_reason.copy(), list(outcome.reasons)
        for i in hits.tolist():
            status = self._filter_with_nominated_added(state, pod, snapshot, int(rows[i]), special[int(rows[i])])
            if status is None or status.is_success():
                continue
            if status.code == Code.Error:
                raise FrameworkError(status.message())
            fail_plugin[i] = plugin_index[status.plugin]
            fail_code[i] = int(status.code)
            fail_reason[i] = len(reasons) if status.reasons else -1
            if status.reasons:
                reasons.append(tuple(status.reasons))
        return FilterOutcome(outcome.rows, fail_plugin, fail_code, fail_reason, reasons, outcome.plugins)

    def run_post_filter(self, state: CycleState, pod, diagnosis) -> tuple[Any, Status]:
        """Stops at the first plugin that makes the pod schedulable, reports it
        unresolvable or fails; otherwise joins the reasons of all plugins and
        names the first one that rejected the pod (``RunPostFilterPlugins``)."""
        last_result = None
        reasons: list[str] = []
        rejector: str | None = None
        for plugin in self.points["postFilter"]:
            result, status = plugin.post_filter(state, pod, diagnosis)
            status = status or Status()
            if status.is_success():
                return result, status
            if status.code == Code.UnschedulableAndUnresolvable:
                return result, status.with_plugin(plugin.name)
            if not status.is_rejected():
                return None, Status(Code.Error, status.reasons, plugin.name)
            if result is not None:
                last_result = result
            reasons.extend(status.reasons)
            rejector = rejector or plugin.name
        return last_result, Status(Code.Unschedulable, tuple(reasons), rejector)

    # -- scoring ----------------------------------------------------------------
    def run_pre_score(self, state: CycleState, pod, snapshot, rows: np.ndarray) -> list[tuple[str, Status]]:
        log = []
        for plugin in self.points["preScore"]:
            status = (plugin.pre_score(state, pod, snapshot, rows) or Status()).with_plugin(plugin.name)
            log.append((plugin.name, status))
            if status.is_skip():
                state.skip_score.add(plugin.name)
            elif not status.is_success():
                raise FrameworkError(f'running PreScore plugin "{plugin.name}": {status.message()}')
        return log

    def run_score(self, state: CycleState, pod, snapshot, rows: np.ndarray) -> ScoreOutcome:
        """``RunScorePlugins``: every plugin's raw scores, then each plugin's NormalizeScore, then
        the range check (in plugin order) before the weights apply."""
        skip = state.skip_score
        plugins = [p for p in self.points["score"] if p.name not in skip] if skip else self.points["score"]
        raw = np.empty((len(plugins), len(rows)), np.int64)
        for i, plugin in enumerate(plugins):
            raw[i] = score_plugin(plugin, state, pod, snapshot, rows)
        normalized = raw.copy()
        for i, plugin in enumerate(plugins):
            normalize_score(plugin, state, pod, normalized[i])
        check_score_range(plugins, normalized)
        names = tuple(p.name for p in plugins)
        weights = self._weight_vectors.get(names)
        if weights is None:
            weights = self._weight_vectors[names] = np.asarray([self.weights[n] for n in names], np.int64)
        return ScoreOutcome(rows, list(names), weights, raw, normalized)

    # -- the PodGroup cycle ------------------------------------------------------
    def run_placement_generate(self, state: CycleState, group, parent) -> tuple[list, Status]:
        """``RunPlacementGeneratePlugins``: each plugin splits every placement the previous one
        returned; with no plugin the parent placement is the only candidate; a plugin that
        leaves none makes the group Unschedulable ("no feasible placements found")."""
        placements = [parent]
        for plugin in self.points["placementGenerate"]:
            out = []
            for placement in placements:
                generated, status = plugin.generate_placements(state, group, placement)
                status = status or Status()
                if not status.is_success():
                    return [], status.with_plugin(plugin.name)
                out.extend(generated)
            if not out:
                return [], Status(Code.Unschedulable, ("no feasible placements found",), plugin.name)
            placements = out
        return placements, Status()

    def run_placement_feasible(self, state: CycleState, group, scheduled: int, remaining: int) -> Status:
        """``RunPlacementFeasiblePlugins``: the first rejection or error wins; Wait when a plugin
        waits; Success otherwise (also with no plugin)."""
        waiting = None
        for plugin in self.points["placementFeasible"]:
            status = (plugin.placement_feasible(state, group, scheduled, remaining) or Status()).with_plugin(
                plugin.name)
            if status.code == Code.Wait:
                waiting = waiting or status
            elif not status.is_success():
                return status
        return waiting or Status()

    def run_placement_score(self, state: CycleState, group, assignments: list) -> tuple[list[dict], Status]:
        """``RunPlacementScorePlugins``: per plugin a raw score for every candidate, normalized when
        the plugin normalizes, checked to lie in [0, 100] and weighted; one row per candidate:
        ``{"placement": ..., "scores": {plugin: weighted}, "raw": {plugin: raw}, "total": int}``."""
        rows = [{"placement": a.placement, "scores": {}, "raw": {}, "total": 0} for a in assignments]
        for plugin in self.points["placementScore"]:
            scores = []
            for a in assignments:
                value, status = plugin.score_placement(state, group, a)
                status = status or Status()
                if not status.is_success():
                    return [], Status(Code.Error, (f'running PlacementScore plugins: plugin "{plugin.name}" '
                                                   f"failed with: {status.message()}",), plugin.name)
                scores.append(int(value))
            raw = list(scores)
            normalize = getattr(plugin, "normalize_placement_score", None)
            if normalize is not None:
                status = normalize(state, group, scores)
                if status is not None and not status.is_success():
                    return [], Status(Code.Error, (f'running Normalize on PlacementScore plugins: plugin '
                                                   f'"{plugin.name}" failed with: {status.message()}',), plugin.name)
            weight = self.placement_weights.get(plugin.name, 1)
            for row, value, raw_value in zip(rows, scores, raw):
                if not MIN_NODE_SCORE <= value <= MAX_NODE_SCORE:
                    return [], Status(Code.Error, (
                        f'plugin "{plugin.name}" returns an invalid score {value}, it should in the range of '
                        f"[{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing",), plugin.name)
                row["raw"][plugin.name] = raw_value
                row["scores"][plugin.name] = value * weight
                row["total"] += value * weight
        return rows, Status()

    def run_pod_group_post_filter(self, state: CycleState, group, pods: list, schedule) -> tuple[Any, Status]:
        """``RunPodGroupPostFilterPlugins``: stops at the first plugin that succeeds or errs;
        otherwise joins the plugins' reasons (``schedule()`` runs the group algorithm on the
        snapshot as the plugin changed it: ``(assignments, status)``, the assignments being the
        placed pods' results in placement order)."""
        reasons: list[str] = []
        rejector = None
        last = None
        for plugin in self.points["podGroupPostFilter"]:
            result, status = plugin.pod_group_post_filter(state, group, pods, schedule)
            status = status or Status()
            if status.is_success():
                return result, status.with_plugin(plugin.name)
            if not status.is_rejected():
                return None, Status(Code.Error, status.reasons, plugin.name)
            last = result if result is not None else last
            reasons.extend(status.reasons)
            rejector = rejector or plugin.name
        return last, Status(Code.Unschedulable, tuple(reasons), rejector)

    # -- reserve .. bind --------------------------------------------------------
    def run_reserve(self, state, pod, node: str) -> Status:
        """Stops at the first failure; the caller runs Unreserve (``RunReservePluginsReserve``)."""
        for plugin in self.points["reserve"]:
            status = reserve_outcome(plugin, plugin.reserve(state, pod, node))
            if status is not None:
                return status
        return Status()

    def run_unreserve(self, state, pod, node: str) -> None:
        for plugin in reversed(self.points["reserve"]):
            plugin.unreserve(state, pod, node)

    def run_permit(self, state, pod, node: str) -> tuple[Status, dict[str, float]]:
        """Returns the combined status and, when waiting, the timeout per waiting plugin."""
        waits: dict[str, float] = {}
        for plugin in self.points["permit"]:
            status, timeout = plugin.permit(state, pod, node)
            status = (status or Status()).with_plugin(plugin.name)
            if status.code == Code.Wait:
                waits[plugin.name] = min(float(timeout or 0), 15 * 60.0)
            elif not status.is_success():
                if status.is_rejected():
                    return status, {}
                return Status(Code.Error, (f'running Permit plugin "{plugin.name}": {status.message()}',),
                              plugin.name), {}
        if waits:
            return Status(Code.Wait, ("one or more plugins asked to wait and no plugin rejected pod",)), waits
        return Status(), {}

    def run_pre_bind_pre_flights(self, state: CycleState, pod, node: str) -> Status:
        """``RunPreBindPreFlights``: ask each PreBind plugin whether its PreBind will act.

        Success when at least one plugin answered Success (a plugin without
        ``pre_bind_pre_flight`` counts as one), Skip when all answered Skip; the
        plugins that answered Skip are kept in ``state.skip_pre_bind`` and
        :meth:`run_pre_bind` leaves them out. An Error stops at that plugin; any
        other code is an Error too (the only answers allowed are Success, Skip, Error).

        >>> from kschedlab.framework.interface import CycleState, Plugin
        >>> class Volumes(Plugin):
        ...     name = "Volumes"
        ...     def pre_bind_pre_flight(self, state, pod_info, node_name):
        ...         return Status.skip()
        ...     def pre_bind(self, state, pod_info, node_name):
        ...         return Status.error("not called")
        >>> fw = Framework({"plugins": {"multiPoint": {"disabled": [{"name": "*"}]},
        ...     "queueSort": {"enabled": [{"name": "PrioritySort"}]}, "bind": {"enabled": [{"name": "DefaultBinder"}]},
        ...     "preBind": {"enabled": [{"name": "Volumes"}]}}}, registry={"Volumes": Volumes})
        >>> state = CycleState()
        >>> fw.run_pre_bind_pre_flights(state, None, "n1").code.name, sorted(state.skip_pre_bind)
        ('Skip', ['Volumes'])
        >>> fw.run_pre_bind(state, None, "n1").code.name
        'Success'
        """
        answer = Status.skip()
        skipped: set[str] = set()
        for plugin in self.points["preBind"]:
            pre_flight = getattr(plugin, "pre_bind_pre_flight", None)
            status = Status() if pre_flight is None else (pre_flight(state, pod, node) or Status())
            if status.code == Code.Error:
                return Status(Code.Error, (f'running PreBindPreFlight "{plugin.name}": {status.message()}',))
            if status.is_success():
                answer = Status()
            elif status.is_skip():
                skipped.add(plugin.name)
            else:
                return Status(Code.Error, (f'PreBindPreFlight {plugin.name} returned "{status.code.name}", which is '
                                           f'unsupported. It is supposed to return Success, Skip, or Error status',))
        state.skip_pre_bind = skipped
        return answer

    def run_pre_bind(self, state, pod, node: str, *, resume: str | None = None) -> Status:
        """PreBind plugins in order (but those in ``state.skip_pre_bind``).  A plugin may answer ``Wait`` (a wait on the caller's clock,
        e.g. DynamicResources' binding conditions): the Wait is returned with the plugin's name,
        and ``resume=<that plugin>`` later asks the plugin's ``poll_pre_bind`` again, then runs the
        plugins after it."""
        plugins = self.points["preBind"]
        if resume is not None:
            index = next(i for i, p in enumerate(plugins) if p.name == resume)
            plugins = plugins[index:]
        skipped = getattr(state, "skip_pre_bind", ())
        for plugin in plugins:
            if plugin.name in skipped:  # its PreBindPreFlight answered Skip
                continue
            if resume is not None and plugin.name == resume:
                status = pre_bind_outcome(plugin, plugin.poll_pre_bind(state, pod, node))
            else:
                status = pre_bind_outcome(plugin, plugin.pre_bind(state, pod, node))
            if status is not None:
                return status
        return Status()

    def run_bind(self, state, pod, node: str) -> Status:
        for plugin in self.points["bind"]:
            status = (plugin.bind(state, pod, node) or Status()).with_plugin(plugin.name)
            if status.is_skip():
                continue
            if not status.is_success() and not status.is_rejected():
                return Status(Code.Error, (f'running Bind plugin "{plugin.name}": {status.message()}',))
            return status
        return Status.skip()

    def run_post_bind(self, state, pod, node: str) -> None:
        for plugin in self.points["postBind"]:
            plugin.post_bind(state, pod, node)


def reserve_outcome(plugin, answer: Status | None) -> Status | None:
    """A Reserve plugin's ``answer`` as ``RunReservePluginsReserve`` folds it: None to go on to
    the next plugin, else the fold's status (a rejection as it is, any other code an Error)."""
    status = (answer or Status()).with_plugin(plugin.name)
    if status.is_success():
        return None
    if status.is_rejected():
        return status
    return Status(Code.Error, (f'running Reserve plugin "{plugin.name}": {status.message()}',))


def pre_bind_outcome(plugin, answer: Status | None) -> Status | None:
    """A PreBind plugin's ``answer`` as ``RunPreBindPlugins`` folds it: None to go on (Success,
    Skip), else the fold's status (a Wait or a rejection as it is, any other code an Error)."""
    status = (answer or Status()).with_plugin(plugin.name)
    if status.is_success() or status.is_skip():
        return None
    if status.code == Code.Wait or status.is_rejected():
        return status
    return Status(Code.Error, (f'running PreBind plugin "{plugin.name}": {status.message()}',))


def filter_verdicts(plugin, state, pod, snapshot, rows: np.ndarray) -> Verdicts:
    """One Filter plugin's verdicts for ``rows`` (vectorized ``filter_nodes`` or per node ``filter``)."""
    return _filter(plugin, state, pod, snapshot, rows)


def _filter(plugin, state, pod, snapshot, rows: np.ndarray) -> Verdicts:
    vectorized = getattr(plugin, "filter_nodes", None)
    if vectorized is not None:
        verdicts = vectorized(state, pod, snapshot, rows)
        if not isinstance(verdicts, Verdicts) or len(verdicts.codes) != len(rows):
            raise TypeError(f'plugin "{plugin.name}": filter_nodes returned {_shown(verdicts)}, not Verdicts '
                            f"with one code per row ({len(rows)} rows)")
        return verdicts
    filter_one = plugin.filter
    statuses = [filter_one(state, pod, info) for info in snapshot.node_infos_at(rows.tolist())]
    if statuses.count(SUCCESS) == len(statuses):  # every node passed (mostly the shared Success itself)
        return Verdicts.passing(len(statuses))
    for status in statuses:
        if type(status) is not Status and not isinstance(status, Status):
            raise _not_a_status(plugin, status)
    return Verdicts.from_statuses(statuses)


def _shown(value) -> str:
    """``value`` as a contract error shows it: short, with its type."""
    text = repr(value)
    return f"{text[:60]}... ({type(value).__name__})" if len(text) > 60 else f"{text} ({type(value).__name__})"


def _not_a_status(plugin, answer) -> TypeError:
    """The error of a per-node ``filter`` whose answer is not a Status.

    >>> class Odd(Plugin):
    ...     name = "Odd"
    ...     def filter(self, state, pod_info, node_info):
    ...         return False
    >>> raise _not_a_status(Odd(), Odd().filter(None, None, None))
    Traceback (most recent call last):
    ...
    TypeError: plugin "Odd": filter returned False (bool), not a Status: Status() lets the node pass, Status.unschedulable("reason") rejects it
    """
    return TypeError(f'plugin "{plugin.name}": filter returned {_shown(answer)}, not a Status: Status() lets the '
                     'node pass, Status.unschedulable("reason") rejects it')


def normalize_score(plugin, state, pod, scores: np.ndarray) -> None:
    """The plugin's NormalizeScore on its ``scores`` (in place), when it has one; a failure
    raises as ``RunScorePlugins`` reports it."""
    normalize = getattr(plugin, "normalize_score", None)
    if normalize is not None:
        status = normalize(state, pod, scores)
        if status is not None and not status.is_success():
            raise FrameworkError(f'running Normalize on Score plugins: plugin "{plugin.name}" '
                                 f"failed with: {status.message()}")


def check_score_range(plugins, normalized: np.ndarray) -> None:
    """Raise as ``RunScorePlugins`` does when a normalized score (plugins x nodes) lies outside
    [MIN_NODE_SCORE, MAX_NODE_SCORE]: the first such plugin, its first such score."""
    if not normalized.size or MIN_NODE_SCORE <= normalized.min() and normalized.max() <= MAX_NODE_SCORE:
        return
    for plugin, scores in zip(plugins, normalized):
        out_of_range = (scores > MAX_NODE_SCORE) | (scores < MIN_NODE_SCORE)
        if out_of_range.any():
            raise FrameworkError(
                f'applying score defaultWeights on Score plugins: plugin "{plugin.name}" returns an '
                f"invalid score {scores[out_of_range][0]}, it should in the range of "
                f"[{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing")


_TUPLE, _PAIR, _INT = {tuple}, {2}, {int}


def score_plugin(plugin, state, pod, snapshot, rows: np.ndarray) -> np.ndarray:
    """One Score plugin's raw scores for ``rows`` (vectorized ``score_nodes`` or per node ``score``)."""
    vectorized = getattr(plugin, "score_nodes", None)
    if vectorized is not None:
        scores = np.asarray(vectorized(state, pod, snapshot, rows))
        if scores.shape != (len(rows),) or (scores.size and scores.dtype.kind not in "iu"):
            raise TypeError(f'plugin "{plugin.name}": score_nodes returned {scores.size} {scores.dtype} value(s) of '
                            f"shape {scores.shape}, not one integer per row ({len(rows)} rows; int64 as upstream, "
                            "// for integer division)")
        return scores.astype(np.int64, copy=False)
    score_one = plugin.score
    answers = [score_one(state, pod, info) for info in snapshot.node_infos_at(rows.tolist())]
    # the usual answers, (int, the shared Success), checked in a few passes in C; any other, one by one
    if answers and set(map(type, answers)) == _TUPLE and set(map(len, answers)) == _PAIR:
        given, statuses = zip(*answers)
        if set(map(type, given)) == _INT and statuses.count(SUCCESS) == len(statuses):
            return np.array(given, np.int64)
    values = []
    for answer in answers:
        # (exact-type tests first: isinstance against an abstract class such as numbers.Integral is slow)
        if type(answer) is not tuple and not isinstance(answer, tuple) or len(answer) != 2 \
                or not isinstance(answer[1], (Status, type(None))):
            raise TypeError(f'plugin "{plugin.name}": score returned {_shown(answer)}, not a pair (score, Status())')
        value, status = answer
        if type(value) is not int and not isinstance(value, numbers.Integral):
            raise TypeError(f'plugin "{plugin.name}": score returned the score {_shown(value)}, not an integer '
                            "(int64 as upstream: // for integer division)")
        if status is not None and not status.is_success():
            raise FrameworkError(f'running Score plugins: plugin "{plugin.name}" failed with: {status.message()}')
        values.append(value)
    return np.array(values, np.int64) if values else np.zeros(0, np.int64)
