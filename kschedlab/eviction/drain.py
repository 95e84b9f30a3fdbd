"""``kubectl drain`` (upstream ``staging/src/k8s.io/kubectl/pkg/drain`` and
``pkg/cmd/drain``) on a virtual clock: cordon the node, pick the pods to
remove, evict them through the Eviction API (:func:`kschedlab.eviction.api_initiated.evict`),
retry every 5 s while a PodDisruptionBudget answers 429, and wait for each
evicted pod to be gone.

What kubectl does, step by step:

1. **cordon**: ``spec.unschedulable = true`` (``node/<n> cordoned``, or
   ``already cordoned``);
2. **pick pods** bound to the node (by namespace/name), through the filters in
   order, the first that refuses a pod decides:

   * a pod deleted more than ``--skip-wait-for-delete-timeout`` seconds ago: skipped;
   * DaemonSet-managed (not terminal): an error without ``--ignore-daemonsets``
     ("cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to
     ignore)"), else left in place with the warning "ignoring DaemonSet-managed
     Pods"; an orphan (its DaemonSet missing) is deleted with ``--force``;
   * mirror (static) pods, annotation ``kubernetes.io/config.mirror``: skipped silently;
   * pods with an ``emptyDir`` volume: an error without ``--delete-emptydir-data``;
   * pods without a controller: an error without ``--force``.

   Any error stops the drain before anything is evicted; the node stays cordoned.
3. **evict** every picked pod at once (one goroutine each in kubectl): 429 ->
   ``error when evicting pods/"p" -n "ns" (will retry after 5s): ...`` and
   again 5 s later; 404 -> done; another error -> that pod fails; success ->
   poll every second until the pod is gone (``pod/<p> evicted``);
4. with ``--timeout`` (0: none) the whole run gives up with "global timeout
   reached"; when all pods are done: ``node/<n> drained``.

:class:`Drainer` is the state machine (``start``, ``step``, ``next_wakeup``)
for a simulation that owns the clock; :func:`drain` runs it alone, moving the
rest of the world with ``advance(cluster, t)`` between its steps (by default:
terminating pods finish when their grace period ends, and the disruption
controller refreshes the budgets).  A budget with ``disruptionsAllowed`` 0
that nothing will raise keeps answering 429: the stuck drain of the seed's
"Виправлення застряглих виселень".

>>> from kschedlab.api.core import Node, Pod
>>> from kschedlab.cluster import Cluster
>>> c = Cluster([Node(metadata={"name": "n1"}), Pod(metadata={"name": "web-0", "namespace": "default",
...     "ownerReferences": [{"kind": "ReplicaSet", "name": "web", "controller": True}]},
...     spec={"nodeName": "n1", "terminationGracePeriodSeconds": 10})])
>>> result = drain(c, "n1", now=0)
>>> print("\\n".join(result.stdout))
node/n1 cordoned
evicting pod default/web-0
pod/web-0 evicted
node/n1 drained
>>> result.ok, result.end_time
(True, 10.0)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from kschedlab.eviction.api_initiated import evict, finish_terminations, graceful_delete
from kschedlab.eviction.disruption import to_seconds

__all__ = ["drain", "Drainer", "DrainOptions", "DrainResult", "DrainEvent", "PodDeleteStatus", "pods_for_deletion",
           "cordon", "go_duration", "default_advance", "Replacements",
           "DAEMONSET_FATAL", "DAEMONSET_WARNING", "LOCAL_STORAGE_FATAL", "LOCAL_STORAGE_WARNING",
           "UNMANAGED_FATAL", "UNMANAGED_WARNING", "MIRROR_POD_ANNOTATION"]

DAEMONSET_FATAL = "DaemonSet-managed Pods (use --ignore-daemonsets to ignore)"
DAEMONSET_WARNING = "ignoring DaemonSet-managed Pods"
LOCAL_STORAGE_FATAL = "Pods with local storage (use --delete-emptydir-data to override)"
LOCAL_STORAGE_WARNING = "deleting Pods with local storage"
UNMANAGED_FATAL = "cannot delete Pods that declare no controller (use --force to override)"
UNMANAGED_WARNING = "deleting Pods that declare no controller"
MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"
POD_SKIP_MSG = 'pod "{name}" has DeletionTimestamp older than {seconds} seconds, skipping'

#: ``EvictErrorRetryDelay``: kubectl sleeps this long after a 429
EVICT_RETRY_DELAY = 5.0
#: ``waitForDelete`` polls this often
POLL_INTERVAL = 1.0


def go_duration(seconds: float) -> str:
    """A duration the way Go's ``time.Duration.String`` prints it.

    >>> go_duration(5), go_duration(60), go_duration(90.5), go_duration(3600), go_duration(0.25)
    ('5s', '1m0s', '1m30.5s', '1h0m0s', '250ms')
    """
    if seconds == 0:
        return "0s"
    if seconds < 1:
        ms = seconds * 1000
        return f"{ms:g}ms"
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    s_text = f"{s:.9f}".rstrip("0").rstrip(".") + "s"
    if h:
        return f"{int(h)}h{int(m)}m{s_text}"
    if m:
        return f"{int(m)}m{s_text}"
    return s_text


# --------------------------------------------------------------------------- options
@dataclass(frozen=True)
class DrainOptions:
    """The flags of ``kubectl drain`` (defaults as kubectl's).

    ``grace_period_seconds`` -1 uses each pod's own ``terminationGracePeriodSeconds``;
    ``timeout`` 0 waits forever.  ``retry_delay`` is kubectl's fixed
    ``EvictErrorRetryDelay`` (no flag), ``poll_interval`` its wait-for-delete poll.
    ``daemonset_exists(pod) -> bool`` says whether a DaemonSet pod's owner exists
    (by default: looked up among the cluster's DaemonSet objects; every owner
    exists when the cluster holds none).
    """

    force: bool = False
    ignore_daemonsets: bool = False
    delete_emptydir_data: bool = False
    grace_period_seconds: int = -1
    timeout: float = 0.0
    disable_eviction: bool = False
    pod_selector: dict | None = None
    skip_wait_for_delete_timeout: int = 0
    dry_run: str | None = None  # None, "client" or "server"
    retry_delay: float = EVICT_RETRY_DELAY
    poll_interval: float = POLL_INTERVAL
    daemonset_exists: Callable | None = None


@dataclass(frozen=True)
class PodDeleteStatus:
    """``drain.PodDeleteStatus``: ``reason`` Okay, Skip, Warning or Error."""

    delete: bool
    reason: str
    message: str = ""


@dataclass(frozen=True)
class DrainEvent:
    """One row of the drain timeline.

    ``action``: ``cordon``, ``warning``, ``error``, ``evict`` (an Eviction API
    call: ``code``/``reason``/``message`` are its answer), ``delete`` (with
    ``--disable-eviction``), ``retry-scheduled``, ``gone`` (the pod left the
    cluster), ``skip``, ``timeout``, ``drained``."""

    time: float
    action: str
    pod: str = ""
    code: int | None = None
    reason: str = ""
    message: str = ""


@dataclass
class DrainResult:
    """What a drain did: the timeline, kubectl's stdout and stderr lines, and the outcome."""

    node: str
    ok: bool = False
    finished: bool = False
    error: str | None = None
    end_time: float | None = None
    timeline: list[DrainEvent] = field(default_factory=list)
    stdout: list[str] = field(default_factory=list)
    stderr: list[str] = field(default_factory=list)
    evicted: list[str] = field(default_factory=list)

    def attempts(self) -> list[DrainEvent]:
        """The Eviction API calls, in order."""
        return [e for e in self.timeline if e.action == "evict"]

    def frame(self):
        """The timeline as a pandas DataFrame."""
        import pandas as pd

        frame = pd.DataFrame([e.__dict__ for e in self.timeline],
                             columns=["time", "action", "pod", "code", "reason", "message"])
        frame["code"] = frame["code"].astype("Int64")
        return frame

    def codes(self) -> dict[str, list[int]]:
        """Pod -> the codes its eviction attempts got, in order."""
        out: dict[str, list[int]] = {}
        for e in self.attempts():
            out.setdefault(e.pod, []).append(e.code)
        return out


# --------------------------------------------------------------------------- filters
def _has_local_storage(pod) -> bool:
    return any(vol.empty_dir is not None for vol in pod.spec.volumes)


def _terminal(pod) -> bool:
    return bool(pod.status) and pod.status.phase in ("Succeeded", "Failed")


def _default_daemonset_exists(cluster) -> Callable:
    known = cluster.objects.get("DaemonSet")

    def exists(pod) -> bool:
        if not known:
            return True
        ref = pod.metadata.controller_ref()
        ns = pod.metadata.namespace
        return f"{ns}/{ref.name}" in known or ref.name in known
    return exists


def _pod_filters(cluster, opts: DrainOptions, now: float) -> list[Callable]:
    ds_exists = opts.daemonset_exists or _default_daemonset_exists(cluster)

    def skip_deleted(pod):
        if _should_skip(pod, opts.skip_wait_for_delete_timeout, now):
            return PodDeleteStatus(False, "Skip")
        return PodDeleteStatus(True, "Okay")

    def daemonset(pod):
        ref = pod.metadata.controller_ref()
        if ref is None or ref.kind != "DaemonSet" or _terminal(pod):
            return PodDeleteStatus(True, "Okay")
        if not ds_exists(pod):
            message = f'daemonsets.apps "{ref.name}" not found'
            return PodDeleteStatus(True, "Warning", message) if opts.force else PodDeleteStatus(False, "Error", message)
        if not opts.ignore_daemonsets:
            return PodDeleteStatus(False, "Error", DAEMONSET_FATAL)
        return PodDeleteStatus(False, "Warning", DAEMONSET_WARNING)

    def mirror(pod):
        if MIRROR_POD_ANNOTATION in pod.metadata.annotations:
            return PodDeleteStatus(False, "Skip")
        return PodDeleteStatus(True, "Okay")

    def local_storage(pod):
        if not _has_local_storage(pod) or _terminal(pod):
            return PodDeleteStatus(True, "Okay")
        if not opts.delete_emptydir_data:
            return PodDeleteStatus(False, "Error", LOCAL_STORAGE_FATAL)
        return PodDeleteStatus(True, "Warning", LOCAL_STORAGE_WARNING)

    def unreplicated(pod):
        if _terminal(pod) or pod.metadata.controller_ref() is not None:
            return PodDeleteStatus(True, "Okay")
        if opts.force:
            return PodDeleteStatus(True, "Warning", UNMANAGED_WARNING)
        return PodDeleteStatus(False, "Error", UNMANAGED_FATAL)

    return [skip_deleted, daemonset, mirror, local_storage, unreplicated]


def _should_skip(pod, seconds: int, now: float) -> bool:
    ts = pod.metadata.deletion_timestamp
    return seconds > 0 and ts is not None and int(now - to_seconds(ts)) > seconds


def pods_for_deletion(cluster, node: str, options: DrainOptions | None = None, *, now: float = 0.0
                      ) -> tuple[list, list[tuple[object, PodDeleteStatus]], list[str], list[str]]:
    """``GetPodsForDeletion``: (pods to evict, every pod with its status, warnings, errors).

    Warnings and errors are grouped by message as kubectl prints them
    (``"<message>: ns/a, ns/b"``; errors start with "cannot delete"); kubectl
    iterates a Go map here, kschedlab sorts the messages.
    """
    opts = options or DrainOptions()
    filters = _pod_filters(cluster, opts, now)
    pods = sorted((p for p in cluster.pods.values() if p.spec.node_name == node),
                  key=lambda p: (p.metadata.namespace or "", p.metadata.name or ""))
    if opts.pod_selector:
        pods = [p for p in pods if all(p.metadata.labels.get(k) == v for k, v in opts.pod_selector.items())]
    items = []
    for pod in pods:
        status = PodDeleteStatus(True, "Okay")
        for f in filters:
            status = f(pod)
            if not status.delete:
                break
        items.append((pod, status))
    warn: dict[str, list[str]] = {}
    errs: dict[str, list[str]] = {}
    for pod, st in items:
        name = f"{pod.metadata.namespace}/{pod.metadata.name}"
        if st.reason == "Warning":
            warn.setdefault(st.message, []).append(name)
        elif st.reason == "Error":
            errs.setdefault(st.message or "unexpected error", []).append(name)
    warnings = [f"{m}: {', '.join(ps)}" for m, ps in sorted(warn.items())]
    errors = [(f"{m}: " if m.lower().startswith("cannot delete") else f"cannot delete {m}: ") + ", ".join(ps)
              for m, ps in sorted(errs.items())]
    return [p for p, st in items if st.delete], items, warnings, errors


def cordon(cluster, node: str, desired: bool = True, *, update: Callable | None = None) -> bool:
    """Set ``spec.unschedulable`` (``CordonHelper``); returns whether it changed.
    ``update(new_node)`` defaults to ``cluster.update_node``."""
    current = cluster.nodes[node]
    if bool(current.spec.unschedulable) == desired:
        return False
    new = current.clone()
    new.spec.unschedulable = desired
    new.mark_set("spec")
    (update or cluster.update_node)(new)
    return True


def _aggregate(errors: list[str]) -> str:
    """``utilerrors.NewAggregate(errs).Error()``: one message as it is, several (duplicates
    dropped) in brackets."""
    unique = list(dict.fromkeys(errors))
    return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"


# --------------------------------------------------------------------------- drainer
@dataclass
class _PodState:
    pod: object
    key: str
    uid: str | None
    phase: str = "evict"  # evict | wait | done | failed
    next_time: float = 0.0
    error: str | None = None


class Drainer:
    """``kubectl drain NODE`` as a state machine on the caller's clock.

    >>> from kschedlab.api.core import Node
    >>> from kschedlab.cluster import Cluster
    >>> d = Drainer(Cluster([Node(metadata={"name": "n1"})]), "n1")
    >>> d.start(now=0.0); d.done, d.result.stdout
    (True, ['node/n1 cordoned', 'node/n1 drained'])
    """

    def __init__(self, cluster, node: str, options: DrainOptions | None = None, *,
                 remove: Callable[[str], None] | None = None, update_node: Callable | None = None):
        self.cluster = cluster
        self.node = node
        self.options = options or DrainOptions()
        self.remove = remove
        self.update_node = update_node
        self.result = DrainResult(node)
        self._pods: list[_PodState] = []
        self._deadline: float | None = None
        self.started = False

    @property
    def done(self) -> bool:
        return self.result.finished

    # -- output --------------------------------------------------------------------------------
    def _out(self, t: float, line: str) -> None:
        self.result.stdout.append(line)

    def _err(self, t: float, line: str) -> None:
        self.result.stderr.append(line)

    def _event(self, *args, **kw) -> None:
        self.result.timeline.append(DrainEvent(*args, **kw))

    def _finish(self, t: float, error: str | None) -> None:
        self.result.finished = True
        self.result.end_time = t
        self.result.error = error
        self.result.ok = error is None
        if error is None:
            self._out(t, f"node/{self.node} drained")
            self._event(t, "drained")
        else:
            self._err(t, f'error: unable to drain node "{self.node}", aborting command...')
            self._err(t, "")
            self._err(t, f"error: {error}")
            self._event(t, "error", message=error)

    # -- the run ---------------------------------------------------------------------------------
    def start(self, now: float) -> None:
        """Cordon, pick the pods, and evict (or delete) every one of them once."""
        t = float(now)
        self.started = True
        opts = self.options
        if self.node not in self.cluster.nodes:
            self._finish(t, f'nodes "{self.node}" not found')
            return
        if opts.dry_run:
            changed = not self.cluster.nodes[self.node].spec.unschedulable
        else:
            changed = cordon(self.cluster, self.node, True, update=self.update_node)
        suffix = " (dry run)" if opts.dry_run == "client" else " (server dry run)" if opts.dry_run else ""
        self._out(t, f"node/{self.node} {'cordoned' if changed else 'already cordoned'}{suffix}")
        self._event(t, "cordon", message="cordoned" if changed else "already cordoned")
        pods, _, warnings, errors = pods_for_deletion(self.cluster, self.node, opts, now=t)
        if errors:
            self._finish(t, _aggregate(errors))
            return
        if warnings:
            self._err(t, "WARNING: " + "; ".join(warnings))
            self._event(t, "warning", message="; ".join(warnings))
        if opts.dry_run == "client":
            for pod in pods:
                self._out(t, f"evicting pod {pod.metadata.namespace}/{pod.metadata.name} (dry run)")
            self._finish(t, None)
            return
        if opts.timeout > 0:
            self._deadline = t + opts.timeout
        self._pods = [_PodState(p, f"{p.metadata.namespace or ''}/{p.metadata.name}", p.metadata.uid,
                                next_time=t) for p in pods]
        if not self._pods:
            self._finish(t, None)
            return
        if opts.disable_eviction:
            for st in self._pods:
                grace = None if opts.grace_period_seconds < 0 else opts.grace_period_seconds
                graceful_delete(self.cluster, st.key, now=t, grace_period_seconds=grace, remove=self.remove,
                                dry_run=opts.dry_run == "server")
                self._event(t, "delete", st.key)
                st.phase = "wait"
        self.step(t)

    def next_wakeup(self) -> float | None:
        """When the drain wants to run next (None when it is finished)."""
        if self.done:
            return None
        times = [s.next_time for s in self._pods if s.phase in ("evict", "wait")]
        return min(times) if times else None

    def step(self, now: float) -> None:
        """Run everything due at ``now``: eviction attempts and deletion polls."""
        if self.done:
            return
        t = float(now)
        opts = self.options
        expired = self._deadline is not None and t >= self._deadline
        timeout_text = go_duration(opts.timeout)
        for st in self._pods:
            if st.phase not in ("evict", "wait") or st.next_time > t:
                continue
            ns, name = st.key.split("/", 1)
            if st.phase == "evict":
                server = " (server dry run)" if opts.dry_run == "server" else ""
                self._out(t, f"evicting pod {st.key}{server}")
                if expired:
                    st.phase, st.error = "failed", (f'error when evicting pods/"{name}" -n "{ns}": global timeout '
                                                    f"reached: {timeout_text}")
                    self._event(t, "timeout", st.key, message=st.error)
                    continue
                grace = None if opts.grace_period_seconds < 0 else opts.grace_period_seconds
                resp = evict(self.cluster, st.key, now=t, grace_period_seconds=grace, remove=self.remove,
                             dry_run=opts.dry_run == "server")
                self._event(t, "evict", st.key, resp.code, resp.reason, resp.message)
                if resp.code == 200:
                    if opts.dry_run == "server":
                        st.phase = "done"
                        continue
                    st.phase = "wait"
                elif resp.code == 404:
                    st.phase = "done"
                    continue
                elif resp.code == 429:
                    self._err(t, f'error when evicting pods/"{name}" -n "{ns}" (will retry after '
                                 f"{go_duration(opts.retry_delay)}): {resp.message}")
                    st.next_time = t + opts.retry_delay
                    self._event(t, "retry-scheduled", st.key, message=f"next attempt at t={st.next_time:g}")
                    continue
                else:
                    st.phase, st.error = "failed", f'error when evicting pods/"{name}" -n "{ns}": {resp.message}'
                    continue
            # wait for delete (PollImmediate: the first check right after the eviction)
            current = self.cluster.pods.get(st.key)
            if current is None or (st.uid and current.metadata.uid != st.uid):
                st.phase = "done"
                self.result.evicted.append(st.key)
                verb = "deleted" if opts.disable_eviction else "evicted"
                self._out(t, f"pod/{name} {verb}")
                self._event(t, "gone", st.key)
                continue
            if _should_skip(current, opts.skip_wait_for_delete_timeout, t):
                st.phase = "done"
                self._out(t, POD_SKIP_MSG.format(name=name, seconds=opts.skip_wait_for_delete_timeout))
                self._event(t, "skip", st.key)
                continue
            if expired:
                st.phase = "failed"
                st.error = (f'error when waiting for pod "{name}" in namespace "{ns}" to terminate: global timeout '
                            f"reached: {timeout_text}")
                self._event(t, "timeout", st.key, message=st.error)
                continue
            st.next_time = t + opts.poll_interval
        if all(s.phase in ("done", "failed") for s in self._pods):
            errors = [s.error for s in self._pods if s.phase == "failed" and s.error]
            if errors:
                pending = [s for s in self._pods if s.key in self.cluster.pods]
                if pending:
                    self._err(t, f'There are pending pods in node "{self.node}" when an error occurred: '
                                 f"{_aggregate(errors)}")
                    for s in pending:
                        self._err(t, f"pod/{s.key.split('/', 1)[1]}")
            self._finish(t, _aggregate(errors) if errors else None)


# --------------------------------------------------------------------------- driver
def default_advance(cluster, t: float) -> None:
    """The world between two drain steps when nobody else moves it: terminating
    pods whose grace period has ended are gone (kubelet), and the disruption
    controller recomputes every budget (:func:`kschedlab.eviction.disruption.refresh` with ``now``)."""
    from kschedlab.eviction.disruption import refresh

    finish_terminations(cluster, t)
    if cluster.of_kind("PodDisruptionBudget"):
        refresh(cluster, now=t)


def _next_termination(cluster) -> float | None:
    times = [to_seconds(p.metadata.deletion_timestamp) for p in cluster.pods.values()
             if p.metadata.deletion_timestamp is not None]
    return min(times) if times else None


def drain(cluster, node: str, *, now: float, options: DrainOptions | None = None,
          advance: Callable[[object, float], None] | None = default_advance,
          wakeups: Callable[[], float | None] | None = None, until: float | None = None,
          remove: Callable[[str], None] | None = None, max_steps: int = 100_000, **flags) -> DrainResult:
    """Run ``kubectl drain node`` from ``now`` until it finishes (or ``until``).

    Flags may be given as keywords (``ignore_daemonsets=True``, ``timeout=60``,
    ...; see :class:`DrainOptions`).  Between steps the clock jumps to the next
    drain wake-up, the next end of a grace period, or ``wakeups()`` (other
    events the caller's ``advance`` will produce); ``advance(cluster, t)`` is
    called before each step.  A drain that cannot finish (a budget that stays
    at 0, no ``--timeout``) stops at ``until`` with ``result.finished`` False
    (kubectl would wait forever; ``max_steps`` steps are the last resort).
    """
    opts = options or DrainOptions(**flags)
    if options is not None and flags:
        raise TypeError("give either options= or flags, not both")
    d = Drainer(cluster, node, opts, remove=remove)
    t = float(now)
    if advance is not None:
        advance(cluster, t)
    d.start(t)
    steps = 0
    while not d.done and steps < max_steps:
        steps += 1
        nxt = d.next_wakeup()
        if nxt is None:
            break
        others = [x for x in (_next_termination(cluster), wakeups() if wakeups is not None else None)
                  if x is not None and t < x < nxt]
        step_at = max(t, min([nxt, *others]))
        if until is not None and step_at > until:
            d.result.end_time = float(until)
            break
        t = step_at
        if advance is not None:
            advance(cluster, t)
        wake = d.next_wakeup()
        if wake is not None and wake <= t:
            d.step(t)
    if not d.done and d.result.end_time is None:
        d.result.end_time = t
    return d.result


class Replacements:
    """A stand-in for the ReplicaSet controller, the scheduler and the kubelet,
    for :func:`drain` demos: when a pod with a controller leaves the cluster, a
    replacement (same labels, owner and spec) is created on ``node`` (or the
    first node ``place(pod)`` returns) with ``Ready: False``, and becomes ready
    ``startup_seconds`` later.  Use it as ``advance=Replacements(...)``; it calls
    :func:`default_advance` itself.
    """

    def __init__(self, cluster, node: str | None = None, *, startup_seconds: float = 10.0,
                 place: Callable | None = None, suffix: str = "-r"):
        self.cluster = cluster
        self.node = node
        self.place = place
        self.startup_seconds = startup_seconds
        self.suffix = suffix
        self._known = {k: p for k, p in cluster.pods.items() if p.metadata.controller_ref() is not None}
        self._ready_at: dict[str, float] = {}
        self.log: list[tuple[float, str, str]] = []

    def next_event(self) -> float | None:
        """When a replacement becomes ready next (for ``drain(wakeups=...)``)."""
        pending = [t for k, t in self._ready_at.items() if k in self.cluster.pods]
        return min(pending) if pending else None

    def __call__(self, cluster, t: float) -> None:
        from kschedlab.api.core import PodCondition

        finish_terminations(cluster, t)
        for key, old in list(self._known.items()):
            if key in cluster.pods:
                continue
            del self._known[key]
            new = old.clone()
            new.metadata.name = f"{old.metadata.name}{self.suffix}"
            new.metadata.uid = None
            new.metadata.deletion_timestamp = None
            new.metadata.deletion_grace_period_seconds = None
            new.spec.node_name = self.place(new) if self.place else self.node
            new.status.phase = "Running"
            new.status.conditions = [PodCondition(type="Ready", status="False")]
            nkey = f"{new.metadata.namespace or ''}/{new.metadata.name}"
            cluster.add(new)
            self._known[nkey] = new
            self._ready_at[nkey] = t + self.startup_seconds
            self.log.append((t, nkey, "created"))
        for key, when in list(self._ready_at.items()):
            pod = cluster.pods.get(key)
            if pod is None:
                del self._ready_at[key]
            elif when <= t:
                pod.status.conditions = [PodCondition(type="Ready", status="True")]
                del self._ready_at[key]
                self.log.append((t, key, "ready"))
        if cluster.of_kind("PodDisruptionBudget"):
            from kschedlab.eviction.disruption import refresh

            refresh(cluster, now=t)
