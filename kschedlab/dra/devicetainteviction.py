"""The device taint eviction controller (upstream ``pkg/controller/devicetainteviction``)
on a virtual clock.

Pods whose allocated ResourceClaims use a device with a ``NoExecute`` taint are
deleted, unless every such taint is tolerated by the allocation result:

* the taints come from the devices in the ResourceSlices (only slices of a pool's
  newest generation) and from the DeviceTaintRules whose ``deviceSelector``
  (``driver``, ``pool``, ``device``; all given ones must match, no selector selects
  nothing) names the device;
* a toleration counts only with ``effect: NoExecute``; without
  ``tolerationSeconds`` the taint is ignored, otherwise the smallest value (negative
  = 0) delays eviction, counted from the taint's ``timeAdded``;
* a pod is evicted at the earliest time of any of its claims (it must be bound and
  be in the claim's ``reservedFor``) with the condition ``DisruptionTarget``, reason
  ``DeletionByDeviceTaintManager``, then deleted.

Each DeviceTaintRule gets an ``EvictionInProgress`` condition: once when created,
again whenever a pod is going to be evicted because of it, and 10 s
(``ruleStatusPeriod``) after each eviction; never more often than every 10 s for
one generation.  ``effect: None`` is a dry run: the controller pretends the effect
were ``NoExecute`` and reports what it would select and evict -- once ("This
information will not be updated again").

The controller keeps no goroutines: :meth:`DeviceTaintEvictionController.step`
re-reads the cluster when it changed, runs the work items due now and returns the
pods to delete; :meth:`~DeviceTaintEvictionController.next_wakeup` says when to
come back.  Upstream reacts to informer events; here every step compares each pod's
eviction time and reasons with the previous step's, which has the same effect for
the work items (a pod's eviction scheduled or changed queues a status update of
the rules behind it).

>>> from kschedlab.api.resource import DeviceTaintRule
>>> rule = DeviceTaintRule.model_validate({"metadata": {"name": "example"}, "spec": {
...     "deviceSelector": {"driver": "dra.example.com"},
...     "taint": {"key": "dra.example.com/unhealthy", "value": "Broken", "effect": "None"}}})
>>> rule_condition_message("None", pending_pods=1, pending_namespaces=1, evicted=0,
...                        published_devices=3, allocated_devices=1)
'3 published devices selected. 1 allocated device selected. 1 pod would be evicted in 1 namespace if the effect was NoExecute. This information will not be updated again. Recreate the DeviceTaintRule to trigger an update.'
>>> rule_condition_message("NoExecute", pending_pods=2, pending_namespaces=2, evicted=1)
'2 pods need to be evicted in 2 different namespaces. 1 pod evicted since starting the controller.'
"""

from __future__ import annotations

import heapq
import itertools
import operator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Iterable

from kschedlab.dra.devices import as_dict, tolerates
from kschedlab.dra.manager import pod_claim_names
from kschedlab.dra.podgroup_claims import pod_group_of

#: shortest time between two status updates of one rule generation (``ruleStatusPeriod``)
RULE_STATUS_PERIOD = 10.0
CONDITION_EVICTION_IN_PROGRESS = "EvictionInProgress"
REASON_DELETION_BY_DEVICE_TAINT_MANAGER = "DeletionByDeviceTaintManager"
MESSAGE_DELETION_BY_DEVICE_TAINT_MANAGER = "Device Taint manager: deleting due to NoExecute taint"
#: the Normal event recorded on a pod (``DeviceTaintManagerEviction``)
EVENT_REASON = "DeviceTaintManagerEviction"
RULE_KINDS = ("DeviceTaintRule", "DeviceTaintRuleV1beta2")


def seconds_of(value: Any) -> float | None:
    """A ``metav1.Time`` (datetime or RFC 3339 text) as seconds since the epoch.

    >>> seconds_of("1970-01-01T00:01:00Z"), seconds_of(None)
    (60.0, None)
    """
    if value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, datetime):
        return (value if value.tzinfo else value.replace(tzinfo=timezone.utc)).timestamp()
    return datetime.fromisoformat(str(value).replace("Z", "+00:00")).timestamp()


def _time(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, timezone.utc)


def rule_matches_device(rule: dict, driver: str, pool: str, device: str) -> bool:
    """``ruleMatchesDevice``: every field the selector gives must match; no selector, no device.

    >>> r = {"spec": {"deviceSelector": {"driver": "d", "pool": "p"}}}
    >>> rule_matches_device(r, "d", "p", "x"), rule_matches_device(r, "d", "q", "x")
    (True, False)
    >>> rule_matches_device({"spec": {}}, "d", "p", "x")
    False
    """
    sel = (rule.get("spec") or {}).get("deviceSelector")
    if sel is None:
        return False
    return all(sel.get(k) is None or sel.get(k) == v for k, v in (("driver", driver), ("pool", pool),
                                                                    ("device", device)))


def _plural(n: int, one: str, many: str) -> str:
    return one if n == 1 else many.format(n=n)


def rule_condition_message(effect: str, *, pending_pods: int, pending_namespaces: int, evicted: int,
                           published_devices: int = 0, allocated_devices: int = 0) -> str:
    """The ``EvictionInProgress`` message of a rule (``maybeUpdateRuleStatus``).

    >>> rule_condition_message("NoExecute", pending_pods=0, pending_namespaces=0, evicted=1)
    '1 pod evicted since starting the controller.'
    >>> rule_condition_message("NoSchedule", pending_pods=0, pending_namespaces=0, evicted=0)
    'Eviction only happens for the NoExecute effect.'
    """
    message = ""
    if effect == "NoExecute":
        if pending_pods > 0:
            message = _plural(pending_pods, "1 pod needs to be evicted in ", "{n} pods need to be evicted in ")
            message += _plural(pending_namespaces, "1 namespace.", "{n} different namespaces.")
    elif effect == "None":
        message += _plural(published_devices, "1 published device selected. ", "{n} published devices selected. ")
        message += _plural(allocated_devices, "1 allocated device selected. ", "{n} allocated devices selected. ")
        message += _plural(pending_pods, "1 pod would be evicted in ", "{n} pods would be evicted in ")
        message += _plural(pending_namespaces, "1 namespace ", "{n} different namespaces ")
        message += ("if the effect was NoExecute. This information will not be updated again. "
                    "Recreate the DeviceTaintRule to trigger an update.")
    else:
        message = "Eviction only happens for the NoExecute effect."
    if evicted > 0:
        if message:
            message += " "
        message += _plural(evicted, "1 pod ", "{n} pods ") + "evicted since starting the controller."
    return message


def rule_condition_reason(effect: str, *, pending_pods: int, evicted: int) -> tuple[str, str]:
    """``(reason, status)`` of the ``EvictionInProgress`` condition.

    >>> rule_condition_reason("NoExecute", pending_pods=2, evicted=0)
    ('PodsPendingEviction', 'True')
    >>> rule_condition_reason("NoExecute", pending_pods=0, evicted=3), rule_condition_reason("None", pending_pods=1, evicted=0)
    (('Completed', 'False'), ('NoEffect', 'False'))
    """
    if effect == "NoExecute":
        if pending_pods > 0:
            return "PodsPendingEviction", "True"
        return ("Completed" if evicted > 0 else "NotStarted"), "False"
    if effect == "None":
        return "NoEffect", "False"
    return "OtherEffect", "False"


@dataclass(frozen=True, order=True)
class TaintSource:
    """Where a NoExecute taint comes from: a rule (sorted first, by name) or taint ``index`` of a
    device in a slice (by driver, pool, device, index)."""

    from_slice: bool
    rule: str = ""
    driver: str = ""
    pool: str = ""
    device: str = ""
    index: int = 0

    def __str__(self) -> str:
        if not self.from_slice:
            return f"DeviceTaintRule {self.rule}"
        return f"ResourceSlice {self.driver}/{self.pool}/{self.device} taint #{self.index}"


@dataclass(frozen=True)
class Eviction:
    """When a pod (or claim) must go and every taint that says so."""

    when: float
    reasons: tuple[TaintSource, ...]

    def rules(self) -> list[str]:
        return [r.rule for r in self.reasons if not r.from_slice]


@dataclass
class _Rule:
    name: str
    uid: str
    generation: int
    spec: dict
    obj: Any


@dataclass
class DeviceTaintEvictionController:
    """The controller's state between steps (see the module docstring).

    ``records`` lists what it did: ``{"time", "action", "object", ...}`` with actions
    ``evict-scheduled``, ``evict-cancelled``, ``evict`` and ``rule-status``.
    """

    #: pod key -> (uid, Eviction) of every pod that is to be deleted
    delete_pod_at: dict[str, tuple[str, Eviction]] = field(default_factory=dict)
    #: rule uid -> pods evicted because of it since the controller started
    evicted_by_rule: dict[str, int] = field(default_factory=dict)
    records: list[dict] = field(default_factory=list)
    _work: list = field(default_factory=list)
    _seq: Any = field(default_factory=itertools.count)
    _seen_rules: dict[str, str] = field(default_factory=dict)
    _first_seen: dict[tuple, float] = field(default_factory=dict)
    _key: Any = None
    _slice_check: Any = None

    # -- reading the cluster --------------------------------------------------------------------
    @staticmethod
    def _rules(cluster) -> list[_Rule]:
        out = []
        for kind in RULE_KINDS:
            for obj in cluster.objects.get(kind, {}).values():
                d = as_dict(obj)
                meta = d.get("metadata") or {}
                out.append(_Rule(meta.get("name", ""), meta.get("uid") or meta.get("name", ""),
                                 int(meta.get("generation") or 1), d.get("spec") or {}, obj))
        return sorted(out, key=lambda r: r.name)

    @staticmethod
    def _pools(cluster) -> dict[tuple[str, str], list[dict]]:
        """(driver, pool) -> the devices of the pool's newest-generation slices."""
        slices = [as_dict(s) for s in cluster.objects.get("ResourceSlice", {}).values()]
        newest: dict[tuple[str, str], int] = {}
        for s in slices:
            spec = s.get("spec") or {}
            pid = (spec.get("driver", ""), (spec.get("pool") or {}).get("name", ""))
            newest[pid] = max(newest.get(pid, -(2 ** 63)), int((spec.get("pool") or {}).get("generation") or 0))
        out: dict[tuple[str, str], list[dict]] = {}
        for s in slices:
            spec = s.get("spec") or {}
            pid = (spec.get("driver", ""), (spec.get("pool") or {}).get("name", ""))
            if int((spec.get("pool") or {}).get("generation") or 0) == newest[pid]:
                out.setdefault(pid, []).extend(spec.get("devices") or [])
        return out

    def _time_added(self, taint: dict, source: tuple, now: float) -> float:
        added = seconds_of(taint.get("timeAdded"))
        if added is None:  # the API server stamps it; take the first time the controller saw it
            added = self._first_seen.setdefault(source, now)
        return added

    def claim_eviction(self, claim: dict, pools: dict, rules: list[_Rule], now: float,
                       simulate: _Rule | None = None) -> Eviction | None:
        """``claimEvictionTime``: the earliest eviction time over the claim's allocated devices'
        NoExecute taints that are not tolerated for good; None when there is none."""
        when: float | None = None
        reasons: set[TaintSource] = set()
        results = (((claim.get("status") or {}).get("allocation") or {}).get("devices") or {}).get("results") or []
        for result in results:
            driver, pool, name = result.get("driver", ""), result.get("pool", ""), result.get("device", "")
            taints: list[tuple[TaintSource, dict, float]] = []
            device = next((d for d in pools.get((driver, pool), ()) if d.get("name") == name), None)
            for i, taint in enumerate((device or {}).get("taints") or []):
                if taint.get("effect") == "NoExecute":
                    src = TaintSource(True, driver=driver, pool=pool, device=name, index=i)
                    taints.append((src, taint, self._time_added(taint, ("slice", driver, pool, name, i), now)))
            for rule in [*rules, *([simulate] if simulate is not None else [])]:
                taint = rule.spec.get("taint") or {}
                if taint.get("effect") != "NoExecute" or not rule_matches_device({"spec": rule.spec}, driver, pool, name):
                    continue
                taints.append((TaintSource(False, rule=rule.name), taint,
                               self._time_added(taint, ("rule", rule.uid), now)))
            for src, taint, added in taints:
                seconds = None
                tolerated_forever = False
                for toleration in result.get("tolerations") or []:
                    if toleration.get("effect") == "NoExecute" and tolerates(toleration, taint):
                        if toleration.get("tolerationSeconds") is None:
                            tolerated_forever = True
                            break
                        value = max(0, int(toleration["tolerationSeconds"]))
                        seconds = value if seconds is None else min(seconds, value)
                if tolerated_forever:
                    continue
                at = added + (seconds or 0)
                reasons.add(src)
                when = at if when is None else min(when, at)
        if when is None:
            return None
        return Eviction(when, tuple(sorted(reasons)))

    def pod_evictions(self, cluster, now: float, simulate: _Rule | None = None,
                      rules: list[_Rule] | None = None) -> dict[str, tuple[str, Eviction]]:
        """``podEvictionTime`` of every bound pod: pod key -> (uid, Eviction)."""
        claims = {}
        for obj in cluster.objects.get("ResourceClaim", {}).values():
            d = as_dict(obj)
            if ((d.get("status") or {}).get("allocation")):
                meta = d.get("metadata") or {}
                claims[(meta.get("namespace") or "", meta.get("name", ""))] = d
        if not claims:
            return {}
        pools = self._pools(cluster)
        rules = self._rules(cluster) if rules is None else rules
        per_claim: dict[tuple[str, str], Eviction | None] = {}
        out = {}
        for key, pod in cluster.pods.items():
            if not pod.spec.node_name or not pod.spec.resource_claims:
                continue
            ns, uid = pod.metadata.namespace or "", pod.metadata.uid or ""
            group = pod_group_of(cluster, pod)  # a claim reserved for the pod's PodGroup counts too
            consumers = {uid} | ({group.metadata.uid or ""} if group is not None and group.spec.resource_claims
                                 else set())
            found: Eviction | None = None
            for name in pod_claim_names(pod):
                claim = claims.get((ns, name))
                if claim is None:
                    continue
                reserved = (claim.get("status") or {}).get("reservedFor") or []
                if not any((r.get("uid") or "") in consumers for r in reserved):  # IsReservedForPod
                    continue
                if (ns, name) not in per_claim:
                    per_claim[(ns, name)] = self.claim_eviction(claim, pools, rules, now, simulate)
                ev = per_claim[(ns, name)]
                if ev is None:
                    continue
                if found is None:
                    found = ev
                else:
                    found = Eviction(min(found.when, ev.when), tuple(sorted(set(found.reasons) | set(ev.reasons))))
            if found is not None:
                out[key] = (uid, found)
        return out

    # -- the clock ------------------------------------------------------------------------------
    def _add(self, when: float, kind: str, ref: str) -> None:
        heapq.heappush(self._work, (when, next(self._seq), kind, ref))

    def _change_key(self, cluster) -> tuple:
        """What :meth:`sync` compares with the last call's: the snapshot's generation, the pod
        count and the stored claim, slice and rule objects themselves (compared by identity in
        :func:`_same_key`; holding them keeps a replaced object's address from being taken by
        its successor, which an ``id`` alone would mistake for the old one)."""
        return (cluster.snapshot.generation, len(cluster.pods),
                *(tuple(cluster.objects.get(k, {}).values()) for k in ("ResourceClaim", "ResourceSlice", *RULE_KINDS)))

    def sync(self, cluster, now: float) -> None:
        """Catch up with the cluster: new rules get a status work item; pods whose eviction is
        new or changed are (re)scheduled, queuing a status update of their rules; pods that
        need no eviction any more are let go."""
        key = self._change_key(cluster)
        if _same_key(key, self._key):
            return
        self._key = key
        rules = self._rules(cluster)
        for rule in rules:
            if self._seen_rules.get(rule.name) != rule.uid:
                self._seen_rules[rule.name] = rule.uid
                self._add(now, "rule", rule.name)
        for name in [n for n, uid in self._seen_rules.items() if all(r.name != n for r in rules)]:
            self.evicted_by_rule.pop(self._seen_rules.pop(name), None)
        if not self.delete_pod_at and not (
                cluster.objects.get("ResourceClaim")
                and (any((r.spec.get("taint") or {}).get("effect") == "NoExecute" for r in rules)
                     or self._slices_have_noexecute(cluster))):
            return  # nothing can be evicted: skip reading every claim
        wanted = self.pod_evictions(cluster, now, rules=rules)
        for pod_key in list(self.delete_pod_at):
            if pod_key not in wanted or wanted[pod_key][0] != self.delete_pod_at[pod_key][0]:
                del self.delete_pod_at[pod_key]
                if pod_key in cluster.pods:
                    self.records.append({"time": now, "action": "evict-cancelled", "object": pod_key,
                                         "message": "Cancelling deletion"})
        for pod_key, (uid, ev) in wanted.items():
            pod = cluster.pods[pod_key]
            if pod.metadata.deletion_timestamp is not None and pod_key not in self.delete_pod_at:
                continue
            if self.delete_pod_at.get(pod_key) == (uid, ev):
                continue
            self.delete_pod_at[pod_key] = (uid, ev)
            self._add(ev.when, "pod", pod_key)
            self.records.append({"time": now, "action": "evict-scheduled", "object": pod_key, "at": ev.when,
                                 "reasons": ", ".join(map(str, ev.reasons))})
            for rule in ev.rules():
                self._add(now, "rule", rule)

    def _slices_have_noexecute(self, cluster) -> bool:
        """Some device of some ResourceSlice has a NoExecute taint (cached per set of slice objects)."""
        objs = tuple(cluster.objects.get("ResourceSlice", {}).values())
        last = self._slice_check
        if last is None or len(last[0]) != len(objs) or not all(map(operator.is_, last[0], objs)):
            found = any(t.effect == "NoExecute" for o in objs for d in o.spec.devices for t in d.taints)
            self._slice_check = (objs, found)
        return self._slice_check[1]

    def next_wakeup(self) -> float | None:
        """When the next work item is due (None: no work)."""
        return self._work[0][0] if self._work else None

    def step(self, cluster, now: float, delete=None) -> list[str]:
        """Sync, then run every work item due at ``now`` in order; returns the pods it deleted:
        each gets its ``DisruptionTarget`` condition, then ``delete(key)`` (the caller's graceful
        DELETE, which sets ``deletionTimestamp``) runs at once, before the next work item."""
        self.sync(cluster, now)
        out = []
        while self._work and self._work[0][0] <= now:
            _, _, kind, ref = heapq.heappop(self._work)
            if kind == "pod":
                if self._maybe_delete_pod(cluster, ref, now):
                    out.append(ref)
                    if delete is not None:
                        delete(ref)
            else:
                self._maybe_update_rule_status(cluster, ref, now)
        return out

    def _maybe_delete_pod(self, cluster, pod_key: str, now: float) -> bool:
        entry = self.delete_pod_at.get(pod_key)
        if entry is None:
            return False
        uid, ev = entry
        if ev.when > now:  # the time moved: its own work item is queued
            return False
        del self.delete_pod_at[pod_key]
        pod = cluster.pods.get(pod_key)
        if pod is None or (pod.metadata.uid or "") != uid:
            return False
        deleting = pod.metadata.deletion_timestamp is not None
        if not deleting:
            from kschedlab.api.core import PodCondition

            conditions = [c for c in pod.status.conditions if c.type != "DisruptionTarget"]
            pod.status.conditions = [*conditions, PodCondition.model_validate({
                "type": "DisruptionTarget", "status": "True", "reason": REASON_DELETION_BY_DEVICE_TAINT_MANAGER,
                "message": MESSAGE_DELETION_BY_DEVICE_TAINT_MANAGER, "lastTransitionTime": _time(now)})]
            self.records.append({"time": now, "action": "evict", "object": pod_key,
                                 "reasons": ", ".join(map(str, ev.reasons)), "message": "Marking for deletion"})
        for rule in ev.rules():
            rule_uid = self._seen_rules.get(rule, rule)
            self.evicted_by_rule[rule_uid] = self.evicted_by_rule.get(rule_uid, 0) + 1
            self._add(now + RULE_STATUS_PERIOD, "rule", rule)
        return not deleting

    def _maybe_update_rule_status(self, cluster, name: str, now: float) -> None:
        rule = next((r for r in self._rules(cluster) if r.name == name), None)
        if rule is None:
            return
        status = getattr(rule.obj, "status", None)
        existing = next((c for c in (status.conditions if status is not None else [])
                         if c.type == CONDITION_EVICTION_IN_PROGRESS), None)
        if existing is not None:
            since = now - (seconds_of(existing.last_transition_time) or 0.0)
            if existing.observed_generation == rule.generation and since < RULE_STATUS_PERIOD:
                self._add(now + RULE_STATUS_PERIOD - since, "rule", name)
                return
        effect = (rule.spec.get("taint") or {}).get("effect") or ""
        pending = namespaces = published = allocated = 0
        if effect in ("NoExecute", "None"):
            if effect == "None":
                simulated = _Rule(rule.name, rule.uid, rule.generation,
                                  {**rule.spec, "taint": {**(rule.spec.get("taint") or {}), "effect": "NoExecute"}},
                                  rule.obj)
                evictions = self.pod_evictions(cluster, now, simulate=simulated, rules=[])
                published, allocated = self.count_tainted_devices(cluster, rule.spec)
            else:
                evictions = self.pod_evictions(cluster, now)
            hit = [k for k, (_, ev) in evictions.items()
                   if cluster.pods[k].metadata.deletion_timestamp is None and name in ev.rules()]
            pending, namespaces = len(hit), len({k.split("/", 1)[0] for k in hit})
        evicted = self.evicted_by_rule.get(rule.uid, 0)
        reason, state = rule_condition_reason(effect, pending_pods=pending, evicted=evicted)
        message = rule_condition_message(effect, pending_pods=pending, pending_namespaces=namespaces,
                                         evicted=evicted, published_devices=published, allocated_devices=allocated)
        new = (CONDITION_EVICTION_IN_PROGRESS, state, reason, message, rule.generation)
        if existing is not None and (existing.type, existing.status, existing.reason, existing.message or "",
                                     existing.observed_generation) == new:
            return
        from kschedlab.api.meta import Condition

        cond = Condition.model_validate({"type": new[0], "status": state, "reason": reason, "message": message,
                                         "observedGeneration": rule.generation, "lastTransitionTime": _time(now)})
        others = [c for c in status.conditions if c.type != CONDITION_EVICTION_IN_PROGRESS]
        status.conditions = [*others, cond]
        self.records.append({"time": now, "action": "rule-status", "object": name, "status": state,
                             "reason": reason, "message": message})

    def count_tainted_devices(self, cluster, spec: dict) -> tuple[int, int]:
        """``countTaintedDevices``: devices in slices the rule selects, and allocated ones."""
        rule = {"spec": spec}
        published = sum(rule_matches_device(rule, driver, pool, d.get("name", ""))
                        for (driver, pool), devices in self._pools(cluster).items() for d in devices)
        allocated = 0
        for obj in cluster.objects.get("ResourceClaim", {}).values():
            d = as_dict(obj)
            results = ((((d.get("status") or {}).get("allocation") or {}).get("devices") or {}).get("results")
                       or [])
            allocated += sum(rule_matches_device(rule, r.get("driver", ""), r.get("pool", ""), r.get("device", ""))
                             for r in results)
        return published, allocated

    # -- reading the result ---------------------------------------------------------------------
    def frame(self):
        """:attr:`records` as a DataFrame (``time``, ``action``, ``object``, ``at``, ``reasons``,
        ``status``, ``reason``, ``message``)."""
        import pandas as pd

        return pd.DataFrame(self.records, columns=["time", "action", "object", "at", "reasons", "status", "reason",
                                                   "message"])


def _same_key(a: tuple | None, b: tuple | None) -> bool:
    """Two :meth:`DeviceTaintEvictionController._change_key` values are the same: equal counts,
    the same objects in the same order.

    >>> x, y = {"a": 1}, {"a": 1}
    >>> _same_key((1, 0, (x,)), (1, 0, (x,))), _same_key((1, 0, (x,)), (1, 0, (y,)))
    (True, False)
    """
    if a is None or b is None or len(a) != len(b) or a[:2] != b[:2]:
        return False
    return all(len(p) == len(q) and all(map(operator.is_, p, q)) for p, q in zip(a[2:], b[2:]))


def stamp_time_added(rule, now: float) -> None:
    """What the API server does on create: ``spec.taint.timeAdded`` set when missing."""
    taint = rule.spec.taint
    if taint is not None and taint.time_added is None:
        taint.time_added = _time(now)


def rule_conditions(rules: Iterable) -> list[dict]:
    """Each rule's ``EvictionInProgress`` condition as a row (``rule``, ``status``, ``reason``,
    ``message``, ``lastTransitionTime``)."""
    out = []
    for rule in rules:
        for c in rule.status.conditions:
            if c.type == CONDITION_EVICTION_IN_PROGRESS:
                out.append({"rule": rule.metadata.name, "status": c.status, "reason": c.reason,
                            "message": c.message, "lastTransitionTime": c.last_transition_time})
    return out
