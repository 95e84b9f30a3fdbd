"""The scheduling cycle and the binding cycle (``schedule_one.go``).

>>> from kschedlab.cluster import Cluster
>>> from kschedlab.api.loader import load_text
>>> cluster = Cluster(load_text('''
... apiVersion: v1
... kind: Node
... metadata: {name: small}
... status: {allocatable: {cpu: "1", memory: 1Gi, pods: "110"}}
... ---
... apiVersion: v1
... kind: Node
... metadata: {name: big}
... status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
... ---
... apiVersion: v1
... kind: Pod
... metadata: {name: web, namespace: default}
... spec: {containers: [{name: c, resources: {requests: {cpu: "2"}}}]}
... '''))
>>> result = Scheduler(cluster).schedule_one("default/web")
>>> result.node, result.message
('big', '')
"""

from __future__ import annotations

import itertools
import random
from collections import deque
from typing import Callable, Iterable

import numpy as np

from kschedlab.api.core import PodCondition
from kschedlab.features import FeatureGates
from kschedlab.framework.batch import BatchRecord, SortedScoredNodes
from kschedlab.framework.diagnosis import Diagnosis
from kschedlab.framework.interface import ArgsError, CycleState
from kschedlab.framework.nominator import MODE_OVERRIDE, NominatingInfo
from kschedlab.framework.runtime import FilterOutcome, Framework, FrameworkError
from kschedlab.framework.status import Code, Status
from kschedlab.framework.trace import CycleTrace
from kschedlab.queue.types import QueuedPodInfo
from kschedlab.scheduler.fast_binding import FastBinding
from kschedlab.scheduler.fast_path import CyclePlan, FastPath
from kschedlab.scheduler.result import SKIP_DELETING_PREFIX, RunResult, ScheduleResult

MIN_FEASIBLE_NODES_TO_FIND = 100
GATE_NOMINATED_NODE_NAME_FOR_EXPECTATION = "NominatedNodeNameForExpectation"
#: upstream's ``clearNominatedNode``: what the failure handler gets after every failure once the
#: pod was assumed (Reserve, Permit, WaitOnPermit, PreBindPreFlight, PreBind, Bind), and when the
#: cycle fails with no node at all, with an error, or with no PostFilter plugin to run
CLEAR_NOMINATED_NODE = NominatingInfo(MODE_OVERRIDE, "")
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5


class NoNodesAvailable(FrameworkError):
    """The cluster has no node at all (upstream ``ErrNoNodesAvailable``): the pod is rejected as
    UnschedulableAndUnresolvable, not failed with an error."""


class ConfigError(ValueError):
    """An invalid KubeSchedulerConfiguration."""


def _still_clock() -> float:
    """The default batch clock: time does not advance, so batches never expire."""
    return 0.0


def num_feasible_nodes_to_find(percentage: int, num_all_nodes: int) -> int:
    """How many feasible nodes to look for before scoring (adaptive when 0).

    >>> [num_feasible_nodes_to_find(0, n) for n in (50, 100, 1000, 5000, 6000)]
    [50, 100, 420, 500, 300]
    """
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    if percentage == 0:
        percentage = max(50 - num_all_nodes // 125, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
    return max(num_all_nodes * percentage // 100, MIN_FEASIBLE_NODES_TO_FIND)


class SearchPace:
    """How many nodes the search for feasible nodes filters next when a Filter plugin written per
    node (``filter``) takes part: each such plugin is asked about every node of a chunk that the
    plugins before it passed, so the chunks are sized to ask it about the nodes upstream's search
    asks about. A chunk holds enough nodes to find ``need`` more feasible ones among the ``left``
    not visited at ``rate`` (default: the share of feasible nodes in the profile's last such
    cycle), with a margin; at a rate of 1 it is ``need`` exactly: where every node is feasible,
    the nodes the search keeps and the one that stops it, no more. The chunks never change the
    outcome, only the calls.

    >>> pace = SearchPace()
    >>> pace.chunk_size(501, 5000)
    501
    >>> pace.filtered(250, 1000)
    >>> pace.chunk_size(501, 5000), pace.chunk_size(20, 4000, 0.5), pace.chunk_size(20, 30, 0.5)
    (2270, 61, 30)
    """

    __slots__ = ("pass_rate",)

    def __init__(self) -> None:
        self.pass_rate = 1.0

    def chunk_size(self, need: int, left: int, rate: float | None = None) -> int:
        rate = self.pass_rate if rate is None else rate
        if rate >= 1.0:
            return min(left, need)
        return min(left, int(need * 1.125 / max(rate, 0.01)) + 16)

    def filtered(self, feasible: int, visited: int) -> None:
        """Note a cycle's feasible and visited nodes: the pass rate the next cycle's first chunk is sized by."""
        self.pass_rate = feasible / visited if visited else 1.0


def _per_node_filter(plugins) -> bool:
    """Whether one of this cycle's Filter ``plugins`` answers one node at a time (no ``filter_nodes``)."""
    return any(getattr(p, "filter_nodes", None) is None for p in plugins)


def _rotated(rows: np.ndarray, start: int, begin: int, size: int) -> np.ndarray:
    """``rows`` visited from index ``start`` round the end: the ``size`` rows from the ``begin``-th
    on (fewer at the end of the round).

    >>> _rotated(np.arange(5), 3, 0, 4).tolist(), _rotated(np.arange(5), 3, 2, 9).tolist()
    ([3, 4, 0, 1], [0, 1, 2])
    """
    n = len(rows)
    first = start + begin
    last = start + min(begin + size, n)
    if last <= n:
        return rows[first:last]
    if first >= n:
        return rows[first - n:last - n]
    return np.concatenate([rows[first:], rows[:last - n]])


def _located(err: ArgsError, config, i: int, profile: dict) -> ArgsError:
    """``err`` (a plugin's invalid args) naming the configuration's file and the
    ``profiles[i].pluginConfig[j]`` the args came from."""
    names = [item.get("name") for item in profile.get("pluginConfig") or []]
    where = f"profiles[{i}]" + (f".pluginConfig[{names.index(err.plugin)}]" if err.plugin in names else "")
    source = getattr(config, "source_file", None)
    prefix = f"{source}: KubeSchedulerConfiguration" if source else "KubeSchedulerConfiguration"
    err.args = (f"{prefix}: {where}: {err}",)
    return err


def _config_dict(config) -> dict:
    if config is None:
        return {}
    if hasattr(config, "model_dump"):
        return config.model_dump(by_alias=True, exclude_unset=True)
    return dict(config)


class Scheduler:
    """kube-scheduler over a :class:`~kschedlab.cluster.Cluster`.

    ``config`` is a KubeSchedulerConfiguration (model or dict; by default the
    one loaded with the cluster's manifests, if any); ``registry``
    adds out-of-tree plugins by name; ``keep_traces`` bounds how many full
    traces are kept (None = all), older results keep only their outcome.

    ``clock`` (seconds) is read only to age opportunistic batches, which expire
    after 0.5 s.  The scheduler has no clock of its own: by default time stands
    still, so a batch never expires within a run.  A
    :class:`~kschedlab.sim.engine.Simulation` passes its virtual clock; pass
    ``time.monotonic`` for kube-scheduler's wall-clock behaviour.

    ``fast_path`` (default True) lets pods of a simple shape take the fused path of
    :mod:`kschedlab.scheduler.fast_path` (same statuses, scores and placements) and the fused
    binding cycle of :mod:`kschedlab.scheduler.fast_binding`; False runs every plugin one by
    one for every pod.
    """

    def __init__(self, cluster, config=None, *, gates: FeatureGates | dict | None = None, seed: int = 0,
                 registry: dict | None = None, keep_traces: int | None = None,
                 clock: Callable[[], float] | None = None, pod_group_cycle: bool | None = None,
                 fast_path: bool = True):
        if isinstance(gates, dict):
            gates = FeatureGates(gates)
        self.cluster = cluster
        self.gates = gates or FeatureGates()
        if config is None:
            loaded = cluster.of_kind("KubeSchedulerConfiguration")
            if len(loaded) > 1:
                raise ConfigError("more than one KubeSchedulerConfiguration in the cluster's objects")
            config = loaded[0] if loaded else None
        cfg = _config_dict(config)
        self.percentage_of_nodes_to_score = int(cfg.get("percentageOfNodesToScore") or 0)
        if not 0 <= self.percentage_of_nodes_to_score <= 100:
            raise ConfigError(f"percentageOfNodesToScore: Invalid value: {self.percentage_of_nodes_to_score}: "
                              f"not in valid range [0-100]")
        #: the configuration's ``percentageOfPlacementsToScore`` (0: adaptive; a profile's own value wins)
        self.percentage_of_placements_to_score = int(cfg.get("percentageOfPlacementsToScore") or 0)
        if not 0 <= self.percentage_of_placements_to_score <= 100:
            raise ConfigError(f"percentageOfPlacementsToScore: Invalid value: "
                              f"{self.percentage_of_placements_to_score}: not in valid range [0-100]")
        self.profiles: dict[str, Framework] = {}
        for i, profile in enumerate(cfg.get("profiles") or [{}]):
            try:
                fw = Framework(profile, gates=self.gates, registry=registry, cluster=cluster)
            except ArgsError as err:
                raise _located(err, config, i, profile) from None
            name = fw.profile.scheduler_name
            if name in self.profiles:
                raise ConfigError(f"profiles[{i}].schedulerName: Duplicate value: {name!r}")
            pct = fw.profile.percentage_of_nodes_to_score
            if pct is not None and not 0 <= pct <= 100:
                raise ConfigError(f"profiles[{i}].percentageOfNodesToScore: Invalid value: {pct}: "
                                  f"not in valid range [0-100]")
            pct = fw.profile.percentage_of_placements_to_score
            if pct is not None and not 0 <= pct <= 100:
                raise ConfigError(f"profiles[{i}].percentageOfPlacementsToScore: Invalid value: {pct}: "
                                  f"not in valid range [0-100]")
            self.profiles[name] = fw
        #: profile name -> its fused fast path (None: the profile always runs plugin by plugin)
        self.fast_paths: dict[str, FastPath | None] = {
            name: FastPath.for_framework(fw) if fast_path else None for name, fw in self.profiles.items()}
        #: profile name -> the pace of its search when a Filter plugin written per node takes part
        self.search_paces = {name: SearchPace() for name in self.profiles}
        #: profile name -> its fused binding cycle (None: Reserve to PostBind always run plugin by plugin)
        self.fast_bindings: dict[str, FastBinding | None] = {
            name: FastBinding.for_framework(fw) if fast_path else None for name, fw in self.profiles.items()}
        #: the seed of every random choice (objects controllers create while a run goes on are named by it)
        self.seed = seed
        self.rng = random.Random(seed)
        #: gang pods go through the PodGroup scheduling cycle (default: with GenericWorkload);
        #: False keeps the pod-by-pod path with GangScheduling's Permit wait (seed section 9)
        self.pod_group_cycle = self.gates.enabled("GenericWorkload") if pod_group_cycle is None else pod_group_cycle
        #: pods held at Permit: key -> (framework, state, pod_info, node, trace, {plugin: timeout})
        self.waiting: dict[str, tuple] = {}
        #: pods whose PreBind waits on the caller's clock: key -> (framework, state, pod_info, node,
        #: trace, plugin); :meth:`poll_pre_bind` asks again
        self.binding_waits: dict[str, tuple] = {}
        for fw in self.profiles.values():
            fw.handle.extra["preempt_waiting_pod"] = self._preempt_waiting_pod
            fw.handle.extra["waiting_pods"] = self.waiting
            fw.handle.extra["allow"] = self.allow
            fw.handle.extra["pod_group_cycle"] = self.pod_group_cycle
            for plugin in fw.plugins.values():
                if hasattr(plugin, "rng"):
                    plugin.rng = random.Random(seed)
        self.next_start_node_index = 0
        #: upstream's scheduling cycle: one per attempt (opportunistic batching needs consecutive ones)
        self.scheduling_cycle = 0
        self.clock: Callable[[], float] = clock if clock is not None else _still_clock
        #: orders equal scores in cached batch lists (kept apart from ``rng``, which breaks ties)
        self._batch_rng = np.random.default_rng(seed)
        self.keep_traces = keep_traces
        self._traced: deque[ScheduleResult] = deque()
        self._clock = itertools.count()
        self.results: list[ScheduleResult] = []
        #: callbacks(pod key, node name) run after a pod is bound (a simulation listens here)
        self.on_bound: list = []
        #: callbacks(ScheduleResult) run for every recorded attempt outcome (timelines listen here)
        self.on_result: list = []
        #: callbacks(assumed pod, Status) run when the binding cycle forgets an assumed pod (a Permit
        #: wait rejected or timed out, PreBind or Bind failed): the pod has ``nodeName`` set to the
        #: node it held, as upstream's ``handleBindingCycleError`` passes it with ``AssignedPodDelete``
        self.on_forget: list = []

    # -- profiles and queue ----------------------------------------------------
    def framework_for(self, pod) -> Framework | None:
        return self.profiles.get(pod.spec.scheduler_name or "default-scheduler")

    def queue(self, keys: Iterable[str] | None = None) -> list[QueuedPodInfo]:
        """Pending pods this scheduler is responsible for, in QueueSort order."""
        from functools import cmp_to_key

        if keys is None:
            keys = [k for k, p in self.cluster.pods.items() if not p.spec.node_name]
        queued = [QueuedPodInfo(self.cluster.pod_infos[k], next(self._clock)) for k in keys]
        queued = [q for q in queued if self.framework_for(q.pod) is not None]
        if not queued:
            return []
        fw = self.framework_for(queued[0].pod)
        return sorted(queued, key=cmp_to_key(lambda a, b: -1 if fw.less(a, b) else (1 if fw.less(b, a) else 0)))

    def run(self, keys: Iterable[str] | None = None, *, once: bool = False,
            max_attempts: int | None = None) -> RunResult:
        """Schedule the pending pods (all, or ``keys``) until nothing is left to try, as
        kube-scheduler's loop over its scheduling queue would: PreEnqueue first (gated pods and
        gangs below quorum wait), failed pods retried when a cluster event — a bind, a victim
        of preemption deleted — may help them, a preemptor binding on its nominated node. The
        first pod of a group (PodGroup cycle on) takes its group's queued pods through one
        PodGroup cycle. See :mod:`kschedlab.scheduler.scheduling_loop`.

        ``once=True`` tries every queued pod once, in queue order, and stops. ``max_attempts``
        bounds the attempts per pod (default :data:`~kschedlab.scheduler.scheduling_loop.DEFAULT_MAX_ATTEMPTS`);
        the pods that reach it are listed in the result's ``stopped``.

        Returns a :class:`~kschedlab.scheduler.result.RunResult`: a list of each pod's last
        ScheduleResult in queue order, with ``pods`` (a PodReport per pod, victims included).
        """
        from kschedlab.scheduler.scheduling_loop import DEFAULT_MAX_ATTEMPTS, SchedulingLoop

        loop = SchedulingLoop(self, once=once, max_attempts=DEFAULT_MAX_ATTEMPTS if max_attempts is None
                              else max_attempts)
        return loop.run(keys)

    # -- the scheduling cycle ------------------------------------------------------
    def schedule_one(self, key: str) -> ScheduleResult:
        pod_info = self.cluster.pod_infos[key]
        pod = pod_info.pod
        fw = self.framework_for(pod)
        if fw is None:
            raise ValueError(f"no profile for schedulerName {pod.spec.scheduler_name!r} of pod {key}")
        gate = fw.run_pre_enqueue(pod_info)
        if not gate.is_success():
            # scheduling gates say SchedulingGated; another PreEnqueue plugin (DynamicResources) its reason
            message = "SchedulingGated" if gate.plugin == "SchedulingGates" else gate.message() or "SchedulingGated"
            return self.record(ScheduleResult(key, None, gate, message))
        if pod.metadata.deletion_timestamp is not None:  # upstream skipPodSchedule: not scheduled, leaves the queue
            message = f"{SKIP_DELETING_PREFIX}{pod.metadata.namespace or ''}/{pod.metadata.name or ''}"
            return self.record(ScheduleResult(key, None, Status(Code.UnschedulableAndUnresolvable, (message,)), message))
        self.scheduling_cycle += 1
        snapshot = self.cluster.snapshot
        state = CycleState()
        trace = CycleTrace(key, fw.profile.scheduler_name, snapshot.node_names())
        try:
            node, diagnosis = self.find_node(fw, state, pod_info, snapshot, trace)
        except NoNodesAvailable as err:  # upstream: rejected, not an error, and no PostFilter
            status = Status(Code.UnschedulableAndUnresolvable, (str(err),))
            self.handle_nominating_info(pod_info, CLEAR_NOMINATED_NODE)
            self.set_condition(pod, False, "Unschedulable", str(err))
            return self.record(ScheduleResult(key, None, status, str(err), trace,
                                              nominating_info=CLEAR_NOMINATED_NODE))
        except FrameworkError as err:
            status = Status.error(str(err))
            self.handle_nominating_info(pod_info, CLEAR_NOMINATED_NODE)
            self.set_condition(pod, False, "SchedulerError", str(err))
            return self.record(ScheduleResult(key, None, status, str(err), trace,
                                              nominating_info=CLEAR_NOMINATED_NODE))
        if node is None:
            if fw.points["postFilter"]:
                info = self._post_filter(fw, state, pod_info, snapshot, diagnosis, trace)
            else:  # no preemption to try: the nomination is cleared
                info = CLEAR_NOMINATED_NODE
                self.handle_nominating_info(pod_info, info)
            message = diagnosis.message()
            self.set_condition(pod, False, "Unschedulable", message)
            return self.record(ScheduleResult(key, None, Status.unschedulable(message), message, trace, diagnosis,
                                              nominating_info=info))
        return self.record(self.assume_and_bind(fw, state, pod_info, node, trace))

    def pod_group_of(self, key: str) -> str | None:
        """The root group key a pod is scheduled with in a PodGroup cycle, or None (no
        PodGroup cycle, no group, or its PodGroup does not exist)."""
        from kschedlab.framework import podgroups as pgstate

        if not self.pod_group_cycle:
            return None
        pod = self.cluster.pods[key]
        name = pgstate.pod_group_name(pod)
        if name is None or pgstate.get_pod_group(self.cluster, pod.metadata.namespace, name) is None:
            return None
        from kschedlab.api.podgroup import pod_group_key

        return pgstate.root_key(self.cluster, pod_group_key(pod.metadata.namespace, name),
                                self.gates.enabled("CompositePodGroup"))

    def schedule_pod_group(self, root, pod_keys=None):
        """One PodGroup scheduling cycle (see :mod:`kschedlab.scheduler.podgroup.cycle`)."""
        from kschedlab.scheduler.podgroup.cycle import schedule_pod_group

        return schedule_pod_group(self, root, pod_keys)

    def _post_filter(self, fw: Framework, state, pod_info, snapshot, diagnosis,
                     trace: CycleTrace) -> NominatingInfo | None:
        """PostFilter (preemption): may nominate a node for the pod and evict victims. Returns the
        result's nominating info (None: the nomination is left as it is, upstream's Noop)."""
        from kschedlab.framework.preemption import NodeToStatus

        diagnosis.node_to_status = NodeToStatus.from_filter_outcome(trace.filter, trace.node_names,
                                                                    diagnosis.absent_status)
        if self.cluster.objects.get("PodDisruptionBudget"):
            from kschedlab.eviction.disruption import refresh

            refresh(self.cluster)  # the disruption controller's view, which preemption reads
        result, status = fw.run_post_filter(state, pod_info, diagnosis)
        # only PostFilter reads the per-node statuses: a kept result must not hold a node-sized
        # table for the rest of the run (the trace, kept for the last ``keep_traces``, has them)
        diagnosis.node_to_status = None
        trace.steps.append(("PostFilter", status.plugin or "", status))
        trace.preemption = state.get("DefaultPreemption/record")
        diagnosis.postfilter_msg = status.message()
        info = None
        if result is not None and getattr(result, "nominating_mode", None) == MODE_OVERRIDE:
            info = NominatingInfo(MODE_OVERRIDE, result.nominated_node_name or "")
            self.handle_nominating_info(pod_info, info)
        if self.cluster.objects.get("PodDisruptionBudget"):
            from kschedlab.eviction.disruption import refresh

            refresh(self.cluster)
        return info

    def handle_nominating_info(self, pod_info, info: NominatingInfo) -> None:
        """What upstream's ``handleSchedulingFailure`` does with an Override nominating info: the
        nominator takes it (``AddNominatedPod``; an empty name drops the pod) and the pod's
        ``status.nominatedNodeName`` is set to it (cleared by an empty name)."""
        self.cluster.nominate(pod_info.key, info.nominated_node_name or None)

    def find_node(self, fw: Framework, state, pod_info, snapshot, trace: CycleTrace, restrict=None):
        """Filter and score one pod (upstream ``schedulePod``): the chosen node name or None, and
        the Diagnosis; ``restrict`` (snapshot rows in snapshot order, e.g. a placement's) limits
        the nodes it may go to."""
        all_rows = snapshot.order if restrict is None else restrict
        num_all = len(all_rows)
        diagnosis = Diagnosis(num_all)
        if num_all == 0:
            raise NoNodesAvailable("no nodes available to schedule pods")
        signature = None
        if fw.batch is not None:  # (upstream signs the pod when it enters the queue)
            trace.batch = BatchRecord()
            signature = trace.batch.signature = fw.sign_pod(pod_info)
        fast = self.fast_paths.get(fw.profile.scheduler_name)
        plan = fast.plan(pod_info, snapshot) if fast is not None and fast.fw is fw else None
        if plan is not None:
            pre_res, status, log, with_nodes = fast.run_pre_filter(plan, state, pod_info)
        else:
            pre_res, status, log, with_nodes = fw.run_pre_filter(state, pod_info, snapshot)
        trace.prefilter = log
        # upstream: Diagnosis.UnschedulablePlugins starts as the PreFilter plugins that restricted nodes
        diagnosis.unschedulable_plugins.update(with_nodes)
        if not status.is_success():
            if not status.is_rejected():
                raise FrameworkError(status.message())
            diagnosis.absent_status = trace.absent_status = status
            diagnosis.prefilter_msg = status.message()
            if status.plugin:
                diagnosis.unschedulable_plugins.add(status.plugin)
            return None, diagnosis

        # opportunistic batching: the previous cycle's next best node, when this pod is like the last one
        hint = None
        if fw.batch is not None:
            hint = fw.batch.get_node_hint(pod_info, signature, state, snapshot, self.scheduling_cycle,
                                          self.clock(), trace.batch)

        # upstream evaluateNominatedNode: the nominated node (else the hint) is filtered alone first
        nominated = pod_info.pod.status.nominated_node_name if pod_info.pod.status else None
        target = nominated or hint
        target_failed = None
        if target and target in snapshot.index and (restrict is None or snapshot.index[target] in restrict):
            row = np.asarray([snapshot.index[target]])
            try:
                outcome = (fast.run_filter(plan, state, pod_info, snapshot, row) if plan is not None
                           else fw.run_filter_with_nominated_pods(state, pod_info, snapshot, row))
            except FrameworkError:  # upstream logs the error and goes on with all nodes
                outcome = None
            if outcome is not None and outcome.passed[0]:
                trace.filter = outcome
                trace.evaluated_nodes, trace.feasible_nodes = 1, 1
                node = self._select(fw, state, pod_info, snapshot, row, trace, plan)
                self._store_batch(fw, signature, hint, node, None, trace)
                return node, diagnosis
            target_failed = outcome

        rows = all_rows
        if not pre_res.all_nodes():
            keep = np.fromiter((snapshot.index[n] for n in pre_res.node_names if n in snapshot.index), np.int64)
            rows = all_rows[np.isin(all_rows, keep)]
            trace.prefilter_nodes = pre_res.node_names
            diagnosis.absent_status = trace.absent_status = Status.unresolvable(
                f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(with_nodes))}]")

        if len(rows) == 0:  # PreFilterResult named only nodes that do not exist
            return None, diagnosis
        feasible = self._find_nodes_that_pass_filters(fw, state, pod_info, snapshot, rows, diagnosis, trace, plan)
        processed = len(trace.filter.rows) if trace.filter is not None else len(feasible)
        revisited = trace.filter is not None and bool((trace.filter.rows == target_failed.rows[0]).any()) \
            if target_failed is not None else True
        if not revisited:
            # upstream keeps the nominated/hinted node's status in the Diagnosis: it counts as processed
            # (and in the message) even when the pass over all nodes did not reach it again
            processed += 1
            failed = target_failed.status(0)
            diagnosis.add_counts({reason: 1 for reason in failed.reasons}, 1)
            if failed.plugin:
                diagnosis.unschedulable_plugins.add(failed.plugin)
        self.next_start_node_index = (self.next_start_node_index + processed) % num_all
        trace.evaluated_nodes, trace.feasible_nodes = processed, len(feasible)
        if len(feasible) == 0:
            if plan is not None:  # PostFilter reads what the PreFilter plugins leave in the cycle state
                answer = fast.complete_for_post_filter(plan, state, pod_info)
                if answer is not None:
                    trace.prefilter = answer[2]
            return None, diagnosis
        node = self._select(fw, state, pod_info, snapshot, feasible, trace, plan)
        if fw.batch is not None:
            others = None
            if trace.score is not None:
                cols = (trace.score.rows != snapshot.index[node]).nonzero()[0]
                others = SortedScoredNodes(trace.node_names, trace.score, cols, self._batch_rng)
            self._store_batch(fw, signature, hint, node, others, trace)
        return node, diagnosis

    def _store_batch(self, fw, signature, hint, node: str, others, trace: CycleTrace) -> None:
        """``StoreScheduleResults`` when the profile batches (gate on)."""
        if fw.batch is not None:
            fw.batch.store_schedule_results(signature, hint, node, others, self.scheduling_cycle, self.clock(),
                                            trace.batch)

    def num_feasible_nodes_to_find(self, profile_percentage: int | None, num_all_nodes: int) -> int:
        """Upstream ``Scheduler.numFeasibleNodesToFind``: the profile's ``percentageOfNodesToScore``
        when it sets one (None: unset), else the configuration's.

        >>> from kschedlab.cluster import Cluster
        >>> s = Scheduler(Cluster(), {"percentageOfNodesToScore": 40})
        >>> s.num_feasible_nodes_to_find(None, 1000), s.num_feasible_nodes_to_find(0, 1000)
        (400, 420)
        """
        percentage = self.percentage_of_nodes_to_score if profile_percentage is None else profile_percentage
        return num_feasible_nodes_to_find(percentage, num_all_nodes)

    def _find_nodes_that_pass_filters(self, fw, state, pod_info, snapshot, rows, diagnosis, trace,
                                      plan: CyclePlan | None = None):
        """Filter nodes in order from ``next_start_node_index`` until enough fit.

        Nodes are filtered a chunk at a time (vectorized); the outcome is the
        same as upstream's pass with one worker: it visits the nodes one by
        one, keeps the first ``to_find`` feasible ones, goes on past them
        (the nodes that fail there are processed too) and stops at the next
        feasible node, which it neither keeps nor counts.
        """
        n = len(rows)
        to_find = self.num_feasible_nodes_to_find(fw.profile.percentage_of_nodes_to_score, n)
        if not fw.points["score"]:  # upstream numNodesToFind: nothing to score, one feasible node is enough
            to_find = min(to_find, 1)
        start = self.next_start_node_index % n if n else 0
        trace.start_index, trace.num_to_find = start, to_find
        filters = plan.filter_names if plan is not None else fw.filter_plugins(state)  # (the plan's: the same)
        if not filters:
            return _rotated(rows, start, 0, to_find)
        fast = self.fast_paths.get(fw.profile.scheduler_name) if plan is not None else None
        if fast is not None and fast.every_node_passes(plan, pod_info, snapshot):
            # the first nodes visited are the feasible ones (what the chunks below would find)
            feasible = _rotated(rows, start, 0, to_find)
            trace.filter = fast.all_passed(plan, feasible)
            return feasible
        parts = []
        ok: np.ndarray | None = None  # the last part's passed mask (read once)
        found = 0
        meets = to_find + 1  # the feasible nodes the pass meets: those it keeps and the one that stops it
        # a plugin written per node is asked about the nodes upstream asks about (the chunks change
        # only the calls, never the outcome); vectorized plugins take a margin, then doubling chunks
        pace = (self.search_paces[fw.profile.scheduler_name]
                if (plan.live_filter if fast is not None else _per_node_filter(filters)) else None)
        begin, size = 0, pace.chunk_size(meets, n) if pace is not None else to_find + to_find // 8 + 16
        if fast is not None and size < n and fast.fits_fewer(plan, snapshot, rows, meets):  # (all at once)
            size = n
        while begin < n and found < meets:
            chunk = _rotated(rows, start, begin, size)
            part = (fast.run_filter(plan, state, pod_info, snapshot, chunk) if fast is not None
                    else fw.run_filter_with_nominated_pods(state, pod_info, snapshot, chunk))
            parts.append(part)
            ok = part.passed
            passed = np.count_nonzero(ok)
            if not parts[1:] and passed == len(chunk):  # the first nodes all passed
                if pace is not None:
                    pace.filtered(passed, passed)
                outcome = part.head(to_find) if len(chunk) > to_find else part
                trace.filter = outcome
                return outcome.rows
            found += passed
            begin += size
            # none feasible yet (a pod that fits nowhere, say): the rest in one chunk; the outcome is
            # cut to the nodes a visit one by one would have seen below, so only the cost differs
            if not found:
                size = n - begin
            else:
                size = pace.chunk_size(meets - found, n - begin, found / begin) if pace is not None else size * 2
        outcome = FilterOutcome.concat(parts)
        passed = (ok if ok is not None and len(parts) == 1 else outcome.passed).nonzero()[0]
        if pace is not None:
            pace.filtered(len(passed), len(outcome.rows))
        if len(passed) > to_find:  # the pass stops at the feasible node after the ones it keeps
            outcome = outcome.head(int(passed[to_find]))
            passed = passed[:to_find]
        trace.filter = outcome
        if len(passed) < len(outcome.rows):
            diagnosis.add_outcome(outcome, len(outcome.rows) - len(passed))
        return outcome.rows[passed]

    def _select(self, fw, state, pod_info, snapshot, feasible: np.ndarray, trace: CycleTrace,
                plan: CyclePlan | None = None) -> str:
        if len(feasible) == 1:
            trace.selected = snapshot.names[int(feasible[0])]
            trace.ties = 1
            return trace.selected
        if plan is not None:
            fast = self.fast_paths[fw.profile.scheduler_name]
            trace.prescore = fast.run_pre_score(plan, state, pod_info, feasible)
            scores = fast.run_score(plan, state, pod_info, snapshot, feasible)
        else:
            trace.prescore = fw.run_pre_score(state, pod_info, snapshot, feasible)
            scores = fw.run_score(state, pod_info, snapshot, feasible)
        trace.score = scores
        total = scores.total
        ties = (total == total.max()).nonzero()[0]
        pick = int(ties[self.rng.randrange(len(ties))]) if len(ties) > 1 else int(ties[0])
        trace.ties = len(ties)
        trace.selected = snapshot.names[int(feasible[pick])]
        return trace.selected

    # -- assume, reserve, permit, bind ---------------------------------------------
    def assume_and_bind(self, fw: Framework, state, pod_info, node: str, trace: CycleTrace) -> ScheduleResult:
        """Assume the pod on ``node``, then Reserve, Permit (a Wait parks it in ``waiting``) and bind."""
        key = pod_info.key
        snapshot = self.cluster.snapshot
        snapshot.add_pod(pod_info, node)  # assume
        self.cluster.nominator.delete_nominated_pod_if_exists(key)  # upstream's assume: nominated no more
        # upstream's Reserve and Permit, then bindingCycle's PreBind, Bind and PostBind: in one
        # step when every plugin at these points is a no-op for this pod (same steps, same effects)
        fused = self.fast_bindings.get(fw.profile.scheduler_name)
        if fused is not None and fused.fw is fw:
            if fused.applies(state):
                fused.reserve_to_bind(state, pod_info, node, trace)
                return self._bound(pod_info, node, trace)
            if fused.claims_only(state):
                return self._bind_claims(fused, state, pod_info, node, trace)
        return self._after_reserve(fw, state, pod_info, node, trace, fw.run_reserve(state, pod_info, node))

    def _bind_claims(self, fused: FastBinding, state, pod_info, node: str, trace: CycleTrace) -> ScheduleResult:
        """Reserve to PostBind for a pod whose only binding work is DynamicResources'
        (:meth:`FastBinding.claims_only`): its Reserve, PreBindPreFlight and PreBind called
        directly while they succeed; from the first other answer on, the general path's."""
        fw = fused.fw
        status = fused.reserve(state, pod_info, node)
        if not status.is_success():
            return self._after_reserve(fw, state, pod_info, node, trace, status)
        trace.steps.extend(fused.steps[:2])  # Reserve, Permit (no Permit plugin): Success
        # PreBindPreFlight: DynamicResources answers Success (its PreBind will act), VolumeBinding
        # Skip; the fold's skip set is read only by PreBind's fold, which this pod runs only
        # from DynamicResources on (a Wait's poll), after VolumeBinding
        if self.gates.enabled(GATE_NOMINATED_NODE_NAME_FOR_EXPECTATION):
            pod_info.pod.status.nominated_node_name = node
            trace.nominated_node_name = node
        status = fused.pre_bind(state, pod_info, node)
        if not status.is_success():
            return self._bind(fw, state, pod_info, node, trace, status)
        trace.steps.extend(fused.steps[2:])  # PreBind, Bind
        fused.binder.bind(state, pod_info, node)
        return self._bound(pod_info, node, trace)

    def _after_reserve(self, fw: Framework, state, pod_info, node: str, trace: CycleTrace,
                       status: Status) -> ScheduleResult:
        """From Reserve's folded ``status`` on: Permit (a Wait parks the pod in ``waiting``), then bind."""
        key = pod_info.key
        trace.steps.append(("Reserve", status.plugin or "", status))
        if status.is_success():
            status, waits = fw.run_permit(state, pod_info, node)
            trace.steps.append(("Permit", status.plugin or "", status))
            if status.code == Code.Wait:
                failed = self._pre_bind_pre_flight(fw, state, pod_info, node, trace, waits_on_permit=True)
                if failed is not None:
                    return failed
                self.waiting[key] = (fw, state, pod_info, node, trace, dict(waits))
                return ScheduleResult(key, None, status, status.message(), trace)
        if not status.is_success():
            return self._fail_after_assume(fw, state, pod_info, node, trace, status, fit_error=True)
        failed = self._pre_bind_pre_flight(fw, state, pod_info, node, trace, waits_on_permit=False)
        if failed is not None:
            return failed
        return self._bind(fw, state, pod_info, node, trace)

    def _pre_bind_pre_flight(self, fw: Framework, state, pod_info, node: str, trace: CycleTrace, *,
                             waits_on_permit: bool) -> ScheduleResult | None:
        """The start of upstream's ``bindingCycle`` with gate ``NominatedNodeNameForExpectation``:
        PreBindPreFlight, then, when the pod waits at Permit or a PreBind plugin will act, the
        pod's ``status.nominatedNodeName`` set to ``node`` so others see where it is going
        (``trace.nominated_node_name`` records the write). The nominator is left alone: the
        pod is assumed, and the queue ignores updates of an assumed pod. A preflight Error
        fails the binding cycle (the failed result); None: go on."""
        if not self.gates.enabled(GATE_NOMINATED_NODE_NAME_FOR_EXPECTATION):
            return None
        status = fw.run_pre_bind_pre_flights(state, pod_info, node)
        if status.code == Code.Error or status.is_rejected():
            trace.steps.append(("PreBindPreFlight", status.plugin or "", status))
            return self._fail_after_assume(fw, state, pod_info, node, trace, status, binding_cycle=True)
        if status.is_success() or waits_on_permit:
            pod_info.pod.status.nominated_node_name = node
            trace.nominated_node_name = node
        return None

    def allow(self, key: str, plugin: str) -> ScheduleResult | None:
        """A waiting pod's plugin allows it; binds once no plugin is left waiting."""
        fw, state, pod_info, node, trace, waits = self.waiting[key]
        waits.pop(plugin, None)
        if waits:
            return None
        del self.waiting[key]
        return self.record(self._bind(fw, state, pod_info, node, trace))

    def _preempt_waiting_pod(self, key: str, plugin: str, message: str) -> bool:
        """Preemption of a pod still held at Permit: reject it there (upstream's waitingPod.Reject)."""
        if key not in self.waiting:
            return False
        self.reject(key, plugin, message)
        return True

    def reject(self, key: str, plugin: str, reason: str = "rejected") -> ScheduleResult:
        """Reject a waiting pod (or let its Permit wait time out)."""
        fw, state, pod_info, node, trace, _ = self.waiting.pop(key)
        status = Status.unschedulable(reason, plugin=plugin)
        return self.record(self._fail_after_assume(fw, state, pod_info, node, trace, status, fit_error=True,
                                                   binding_cycle=True))

    def _fail_after_assume(self, fw, state, pod_info, node, trace, status: Status,
                           fit_error: bool = False, binding_cycle: bool = False) -> ScheduleResult:
        """Unreserve and forget the assumed pod.  A rejection at Reserve, Permit or
        while waiting on Permit is reported as upstream's one-node FitError
        (``0/1 nodes are available: 1 <reason>.``).  In the binding cycle (after the
        Permit wait) the listeners of :attr:`on_forget` hear of the forgotten pod. The failure
        handler gets upstream's ``clearNominatedNode`` whatever the pod was nominated to (by the
        binding cycle or, before, by preemption): the nominator drops the pod and its
        ``status.nominatedNodeName`` is cleared."""
        fw.run_unreserve(state, pod_info, node)
        self.cluster.snapshot.remove_pod(pod_info.key)  # forget
        self.handle_nominating_info(pod_info, CLEAR_NOMINATED_NODE)
        if binding_cycle and self.on_forget:
            assumed = pod_info.pod.clone()
            assumed.spec.node_name = node
            for callback in self.on_forget:
                callback(assumed, status)
        diagnosis = None
        if fit_error and status.is_rejected():
            diagnosis = Diagnosis(1)
            diagnosis.add_counts({r: 1 for r in status.reasons}, explicit=1)
            if status.plugin:
                diagnosis.unschedulable_plugins.add(status.plugin)
            status = Status(status.code, (diagnosis.message(),), status.plugin)
        reason = "Unschedulable" if status.is_rejected() else "SchedulerError"
        self.set_condition(pod_info.pod, False, reason, status.message())
        return ScheduleResult(pod_info.key, None, status, status.message(), trace, diagnosis,
                              nominating_info=CLEAR_NOMINATED_NODE)

    def poll_pre_bind(self, key: str) -> ScheduleResult | None:
        """Ask a pod's waiting PreBind plugin again: None while it still waits, else the pod is
        bound or fails (recorded like any attempt's outcome)."""
        fw, state, pod_info, node, trace, plugin = self.binding_waits[key]
        status = fw.run_pre_bind(state, pod_info, node, resume=plugin)
        if status.code == Code.Wait:
            return None
        del self.binding_waits[key]
        return self.record(self._bind(fw, state, pod_info, node, trace, status))

    def _bind(self, fw: Framework, state, pod_info, node: str, trace: CycleTrace,
              pre_bind: Status | None = None) -> ScheduleResult:
        status = fw.run_pre_bind(state, pod_info, node) if pre_bind is None else pre_bind
        trace.steps.append(("PreBind", status.plugin or "", status))
        if status.code == Code.Wait:
            self.binding_waits[pod_info.key] = (fw, state, pod_info, node, trace, status.plugin)
            return ScheduleResult(pod_info.key, None, status, status.message(), trace)
        if status.is_success():
            status = fw.run_bind(state, pod_info, node)
            trace.steps.append(("Bind", status.plugin or "", status))
        if not status.is_success():
            return self._fail_after_assume(fw, state, pod_info, node, trace, status, binding_cycle=True)
        fw.run_post_bind(state, pod_info, node)
        return self._bound(pod_info, node, trace)

    def _bound(self, pod_info, node: str, trace: CycleTrace) -> ScheduleResult:
        """After PostBind: PodScheduled set, PodDisruptionBudgets refreshed, listeners told."""
        self.set_condition(pod_info.pod, True, None, None)
        if self.cluster.objects.get("PodDisruptionBudget"):
            from kschedlab.eviction.disruption import refresh

            refresh(self.cluster)
        for callback in self.on_bound:
            callback(pod_info.key, node)
        return ScheduleResult(pod_info.key, node, Status(), "", trace)

    # -- bookkeeping -------------------------------------------------------------------
    def record(self, result: ScheduleResult) -> ScheduleResult:
        """Keep an attempt's outcome (trimming old traces to ``keep_traces``) and tell listeners."""
        self.results.append(result)
        for callback in self.on_result:
            callback(result)
        if self.keep_traces is not None and result.trace is not None:
            self._traced.append(result)
            while len(self._traced) > self.keep_traces:
                old = self._traced.popleft()
                old.trace = None
        return result

    @staticmethod
    def set_condition(pod, ok: bool, reason: str | None, message: str | None) -> None:
        """Set the pod's ``PodScheduled`` condition (the others kept in order, this one last). A pod
        that has it already, as this would write it, is left alone (a pod failing again mostly
        fails with its last message)."""
        # every field is a plain string: no validation needed
        fields = {"type": "PodScheduled", "status": "True" if ok else "False"}
        if reason:
            fields["reason"] = str(reason)
        if message:
            fields["message"] = str(message)
        status = pod.status
        if _has_condition(status, fields):
            return
        cond = PodCondition.trusted(**fields)
        conditions = [c for c in status.conditions if c.type != "PodScheduled"]
        status.conditions = [*conditions, cond]


#: a PodCondition's values when none is set
_UNSET_CONDITION = dict.fromkeys(PodCondition.model_fields)


def _has_condition(status, fields: dict[str, str]) -> bool:
    """Whether ``Scheduler.set_condition`` would leave ``status`` as it is: its conditions (marked
    set) end with the one ``fields`` give, as ``PodCondition.trusted`` makes it (those fields set,
    the rest unset), and name no other PodScheduled condition."""
    conditions = status.conditions
    if not conditions or "conditions" not in status.__pydantic_fields_set__:
        return False
    last = conditions[-1]
    if (last.__pydantic_fields_set__ != fields.keys() or last.__pydantic_extra__ is not None
            or last.__pydantic_private__ is not None or last.__dict__ != {**_UNSET_CONDITION, **fields}):
        return False
    return all(c.type != "PodScheduled" for c in conditions[:-1])
