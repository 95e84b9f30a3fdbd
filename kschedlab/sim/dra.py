"""DRA on the simulation clock: device taint eviction and PreBind waits for binding conditions.

:class:`SimDRA` is the part of a :class:`~kschedlab.sim.engine.Simulation` that

* runs the device taint eviction controller
  (:class:`~kschedlab.dra.devicetainteviction.DeviceTaintEvictionController`): pods whose
  claims use a device with a NoExecute taint they do not tolerate get ``DisruptionTarget``
  (``DeletionByDeviceTaintManager``) and are deleted gracefully; their ReplicaSet creates a
  replacement at once (a terminating pod no longer counts as one of its replicas), which gets
  a new claim from its template; the DeviceTaintRules get their ``EvictionInProgress`` condition;
* lets DynamicResources' PreBind wait for binding conditions on the virtual clock: the pod
  stays assumed on its node and the claims are read again every 5 s, until every binding
  condition is True (bound), a binding failure condition is True or ``bindingTimeout`` passed
  (the attempt fails with an error; the next attempt's PostFilter deallocates the claim);
* applies objects (DeviceTaintRule, ResourceSlice, ResourceClaim, DeviceClass) at a time, as
  the API server would (``timeAdded``, ``generation``), and writes device conditions into a
  claim's ``status.devices`` as a DRA driver does.

>>> from kschedlab.controllers.manifests import create
>>> from kschedlab.api.loader import load_objects
>>> from kschedlab.sim.engine import Simulation
>>> sim = Simulation(create(load_objects([{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}}])))
>>> sim.dra.wakeups(), sim.dra.binding_frame().empty
([], True)
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from kschedlab.dra.devicetainteviction import RULE_KINDS, DeviceTaintEvictionController, stamp_time_added
from kschedlab.framework.events import RESOURCE_CLAIM, RESOURCE_SLICE, ActionType, ClusterEvent

BINDING_COLUMNS = ["time", "pod", "node", "event", "message"]


class SimDRA:
    """The DRA controllers and waits of one simulation (see the module docstring)."""

    def __init__(self, sim) -> None:
        self.sim = sim
        self.taints = DeviceTaintEvictionController()
        for kind in RULE_KINDS:
            for rule in sim.cluster.objects.get(kind, {}).values():
                self._stamp_new_rule(rule)
        for fw in sim.scheduler.profiles.values():
            fw.handle.extra["binding_waits"] = True
        if sim.cluster.objects.get("ResourceClaimTemplate"):  # the initial pods' claims from templates
            from kschedlab.dra.resourceclaim_controller import ResourceClaimController

            controller = ResourceClaimController(sim.cluster)
            for pod in list(sim.cluster.pods.values()):
                if pod.spec.resource_claims:
                    controller.sync_pod(pod)
        #: pod key -> {"started", "next", "deadline"} of each PreBind wait
        self.binding: dict[str, dict[str, float]] = {}
        self.binding_records: list[dict] = []
        self._claims = dict(sim.cluster.objects.get("ResourceClaim", {}))

    def _stamp_new_rule(self, rule) -> None:
        stamp_time_added(rule, self.sim.now)
        rule.metadata.generation = rule.metadata.generation or 1
        rule.metadata.uid = rule.metadata.uid or f"devicetaintrule-{rule.metadata.name}-{self.sim.now:g}"

    # -- the clock ----------------------------------------------------------------------------------
    def _active(self) -> bool:
        objects = self.sim.cluster.objects
        return bool(objects.get("ResourceClaim") or any(objects.get(k) for k in RULE_KINDS)
                    or self.taints.next_wakeup() is not None or self.taints.delete_pod_at)

    def wakeups(self) -> list[float]:
        """Times something of DRA is due: the controller's next work item, the next PreBind poll."""
        out = [w["next"] for w in self.binding.values()]
        nxt = self.taints.next_wakeup()
        return out + ([nxt] if nxt is not None else [])

    def step(self) -> None:
        """Everything due now: claim changes told to the queue, new PreBind waits noted, waits
        polled, the controller's work."""
        self._claim_events()
        self._track_binding_waits()
        self._poll_binding_waits()
        if self._active():
            self.taints.step(self.sim.cluster, self.sim.now, delete=self._evict)
        self._claim_events()

    def _claim_events(self) -> None:
        """ResourceClaims the scheduler or a controller wrote since the last look (PreBind's
        reservation, PostFilter's deallocation, ...) reach the scheduling queue as ResourceClaim
        events, as the informer would deliver them."""
        current = self.sim.cluster.objects.get("ResourceClaim", {})
        if not current and not self._claims:
            return
        before, self._claims = self._claims, dict(current)
        for key in sorted(set(before) | set(current)):
            old, new = before.get(key), current.get(key)
            if old is new:
                continue
            action = ActionType.Add if old is None else ActionType.Delete if new is None else ActionType.Update
            self.sim.queue.move_all_to_active_or_backoff(ClusterEvent(RESOURCE_CLAIM, action), old, new)

    # -- device taint eviction ----------------------------------------------------------------------
    def _evict(self, key: str) -> None:
        # a graceful delete; a ReplicaSet's replacement follows it (Simulation._graceful_delete)
        self.sim._graceful_delete(key, self.sim.cluster.pod_infos[key], preempted=False)

    def evictions_frame(self) -> pd.DataFrame:
        """What the device taint eviction controller did (its ``records``)."""
        return self.taints.frame()

    def rules_frame(self) -> pd.DataFrame:
        """Each DeviceTaintRule's ``EvictionInProgress`` condition now (``rule``, ``status``,
        ``reason``, ``message``, ``lastTransitionTime`` in simulated seconds)."""
        from kschedlab.dra.devicetainteviction import rule_conditions, seconds_of

        rows = rule_conditions(r for kind in RULE_KINDS for r in self.sim.cluster.objects.get(kind, {}).values())
        for row in rows:
            row["lastTransitionTime"] = seconds_of(row["lastTransitionTime"])
        return pd.DataFrame(rows, columns=["rule", "status", "reason", "message", "lastTransitionTime"])

    def report(self) -> dict:
        """What ``kschedlab simulate -o json`` shows of DRA (only the parts that happened)."""
        import json

        out = {}
        for name, frame in (("deviceTaintEviction", self.evictions_frame()), ("deviceTaintRules", self.rules_frame()),
                            ("bindingWaits", self.binding_frame())):
            if len(frame):
                out[name] = json.loads(frame.dropna(axis=1, how="all").to_json(orient="records"))
        return out

    # -- binding conditions -------------------------------------------------------------------------
    def _track_binding_waits(self) -> None:
        from kschedlab.plugins.dynamic_resources import NAME as DRA_NAME

        now = self.sim.now
        for key, (fw, _state, _pod_info, node, _trace, plugin) in self.sim.scheduler.binding_waits.items():
            if key in self.binding or plugin != DRA_NAME:  # VolumeBinding's waits: kschedlab.sim.storage
                continue
            timeout = float(fw.plugins[plugin].args.binding_timeout)
            from kschedlab.plugins.dynamic_resources import BINDING_POLL_SECONDS

            self.binding[key] = {"started": now, "deadline": now + timeout,
                                 "next": min(now + BINDING_POLL_SECONDS, now + timeout)}
            self.binding_records.append({"time": now, "pod": key, "node": node, "event": "BindingConditionsPending",
                                         "message": f"waiting for binding conditions for device on node {node}"})
            row = self.sim._timeline.get(key)
            if row is not None and row["scheduled"] is None:  # the scheduling cycle chose the node now
                row["scheduled"] = now

    def _poll_binding_waits(self) -> None:
        from kschedlab.plugins.dynamic_resources import BINDING_POLL_SECONDS

        sim = self.sim
        for key in sorted(self.binding, key=lambda k: (self.binding[k]["next"], k)):
            wait = self.binding[key]
            if wait["next"] > sim.now:
                continue
            node = sim.scheduler.binding_waits[key][3]
            result = sim.scheduler.poll_pre_bind(key)
            if result is None:
                wait["next"] = min(wait["next"] + BINDING_POLL_SECONDS, wait["deadline"])
                continue
            del self.binding[key]
            sim.changes.changed()
            if result.node is not None:
                self.binding_records.append({"time": sim.now, "pod": key, "node": node, "event": "Bound",
                                             "message": ""})
                continue
            self.binding_records.append({"time": sim.now, "pod": key, "node": node, "event": "Failed",
                                         "message": result.message})
            sim.pre_bind_failed(key)

    def binding_frame(self) -> pd.DataFrame:
        """The PreBind waits: ``BindingConditionsPending`` when one starts, then ``Bound`` or
        ``Failed`` (with the error) when it ends."""
        return pd.DataFrame(self.binding_records, columns=BINDING_COLUMNS)

    # -- objects --------------------------------------------------------------------------------------
    def apply(self, obj) -> None:
        """Create or replace ``obj`` (``kubectl apply``).  A DeviceTaintRule gets ``uid``,
        ``generation`` 1 and ``timeAdded`` now when new; a replaced one keeps its uid and status,
        its generation goes up when the spec changed, and its ``timeAdded`` is kept unless the
        taint itself changed.  The scheduling queue hears of it as a ResourceSlice change (the
        scheduler sees rules through the slices' taints)."""
        from kschedlab.dra.devices import as_dict

        sim = self.sim
        kind = type(obj).__name__
        meta = obj.metadata
        store = sim.cluster.objects.get(kind, {})
        key = f"{meta.namespace}/{meta.name}" if getattr(meta, "namespace", None) else meta.name
        old = store.get(key)
        if kind in RULE_KINDS:
            if old is None:
                self._stamp_new_rule(obj)
            else:
                meta.uid = old.metadata.uid
                old_taint, new_taint = old.spec.taint, obj.spec.taint
                if new_taint.time_added is None:
                    same_taint = (old_taint.key, old_taint.value, old_taint.effect) == (
                        new_taint.key, new_taint.value, new_taint.effect)
                    new_taint.time_added = old_taint.time_added if same_taint else None
                    stamp_time_added(obj, sim.now)
                same_spec = as_dict(old).get("spec") == as_dict(obj).get("spec")
                meta.generation = (old.metadata.generation or 1) + (0 if same_spec else 1)
                obj.status = old.status
        sim.cluster.add(obj)
        sim.changes.changed()
        if kind == "ResourceClaim":
            event = ClusterEvent(RESOURCE_CLAIM, ActionType.Add if old is None else ActionType.Update)
        else:
            event = ClusterEvent(RESOURCE_SLICE, ActionType.Add if old is None else ActionType.Update)
        sim.queue.move_all_to_active_or_backoff(event, old, obj)

    def claims_of_pod(self, pod: str, pod_claim: str | None = None) -> list[str]:
        """``namespace/name`` of the claims pod ``namespace/name`` uses (only its
        ``spec.resourceClaims`` entry ``pod_claim`` when given); none for a pod that is gone."""
        ns, _, name = pod.rpartition("/")
        found = self.sim.cluster.pods.get(f"{ns or 'default'}/{name}")
        if found is None:
            return []
        generated = {s.name: s.resource_claim_name for s in found.status.resource_claim_statuses}
        out = []
        for rc in found.spec.resource_claims:
            if pod_claim is not None and rc.name != pod_claim:
                continue
            claim = rc.resource_claim_name or generated.get(rc.name)
            if claim:
                out.append(f"{ns or 'default'}/{claim}")
        return out

    def set_device_conditions(self, claim: str, conditions: list, *, device: str | None = None) -> None:
        """Write ``conditions`` (dicts of ``type``, ``status``, ``reason``, ``message``) into the
        ``status.devices`` entry of each allocated device of claim ``namespace/name`` (only
        ``device`` when given), as a DRA driver does; ``lastTransitionTime`` is now when a
        condition's status changes.  Nothing happens to a claim that does not exist or is not
        allocated (the driver has nothing to report on)."""
        from datetime import datetime, timezone

        from kschedlab.dra.manager import dra_manager

        sim = self.sim
        ns, _, name = claim.rpartition("/")
        manager = dra_manager(sim.cluster)
        current = manager.get_claim(ns or "default", name)
        allocation = ((current or {}).get("status") or {}).get("allocation")
        if not allocation:
            return
        stamp = datetime.fromtimestamp(sim.now, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        statuses: list[dict[str, Any]] = list(current["status"].get("devices") or [])
        for result in (allocation.get("devices") or {}).get("results") or []:
            if device is not None and result.get("device") != device:
                continue
            ident = (result.get("driver"), result.get("pool"), result.get("device"))
            entry = next((d for d in statuses if (d.get("driver"), d.get("pool"), d.get("device")) == ident), None)
            if entry is None:
                entry = {"driver": ident[0], "pool": ident[1], "device": ident[2]}
                if result.get("shareID"):
                    entry["shareID"] = result["shareID"]
                statuses.append(entry)
            have = {c.get("type"): c for c in entry.get("conditions") or []}
            for cond in conditions:
                cond = dict(cond)
                before = have.get(cond.get("type"))
                if before is not None and before.get("status") == cond.get("status"):
                    cond.setdefault("lastTransitionTime", before.get("lastTransitionTime") or stamp)
                else:
                    cond.setdefault("lastTransitionTime", stamp)
                cond.setdefault("reason", cond.get("reason") or "Set")
                cond.setdefault("message", "")
                have[cond["type"]] = cond
            entry["conditions"] = list(have.values())
        old = sim.cluster.objects["ResourceClaim"][f"{ns or 'default'}/{name}"]
        current["status"]["devices"] = statuses
        manager.update_claim(current)
        sim.changes.changed()
        sim.queue.move_all_to_active_or_backoff(ClusterEvent(RESOURCE_CLAIM, ActionType.Update), old,
                                                sim.cluster.objects["ResourceClaim"][f"{ns or 'default'}/{name}"])
