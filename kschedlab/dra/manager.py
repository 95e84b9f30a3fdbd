"""The scheduler's shared view of DRA objects (upstream ``SharedDRAManager``).

One :class:`DRAManager` per :class:`~kschedlab.cluster.Cluster` (see :func:`dra_manager`) answers
what the DynamicResources and NodeResourcesFit plugins ask of ResourceClaims, DeviceClasses and
ResourceSlices:

- claims by namespace and name, and the claims whose allocation is *in flight* (assumed at
  Reserve, not yet written at PreBind): their devices count as allocated for every later pod;
- the allocated state (devices held exclusively, capacity consumed on shared devices);
- the ResourceSlices with the taints of DeviceTaintRules applied;
- which DeviceClass serves an extended resource (``spec.extendedResourceName`` or the implicit
  ``deviceclass.resource.kubernetes.io/<class>``).

Objects are handed out as Kubernetes-shaped dicts (camelCase, as the allocator takes them).

>>> from kschedlab.cluster import Cluster
>>> from kschedlab.api.resource import DeviceClass
>>> c = Cluster([DeviceClass.model_validate({"metadata": {"name": "gpu"},
...     "spec": {"extendedResourceName": "example.com/gpu"}})])
>>> m = dra_manager(c)
>>> m.device_class_for("example.com/gpu")["metadata"]["name"], m.device_class_for(
...     "deviceclass.resource.kubernetes.io/gpu")["metadata"]["name"]
('gpu', 'gpu')
>>> dra_manager(c) is m
True
"""

from __future__ import annotations

import copy
import functools
import itertools
import operator
import weakref
from typing import Any, Iterable

from kschedlab.api.quantity import Quantity
from kschedlab.dra.allocator import AllocatedState
from kschedlab.dra.allocator_cache import AllocatorCache
from kschedlab.dra.devices import Slice, as_dict, read_slice

__all__ = ["DRAManager", "dra_manager", "ClaimStore", "HeldDevices", "claim_key", "claim_identity", "IMPLICIT_EXTENDED_RESOURCE_PREFIX",
           "EXTENDED_RESOURCE_CLAIM_ANNOTATION", "FINALIZER", "RESERVED_FOR_MAX_SIZE"]

#: ``resourceapi.ResourceDeviceClassPrefix``
IMPLICIT_EXTENDED_RESOURCE_PREFIX = "deviceclass.resource.kubernetes.io/"
#: ``resourceapi.ExtendedResourceClaimAnnotation``
EXTENDED_RESOURCE_CLAIM_ANNOTATION = "resource.kubernetes.io/extended-resource-claim"
#: ``resourceapi.Finalizer``: set on claims the scheduler allocated
FINALIZER = "resource.kubernetes.io/delete-protection"
#: ``resourceapi.ResourceClaimReservedForMaxSize``
RESERVED_FOR_MAX_SIZE = 256

_MANAGERS: "weakref.WeakKeyDictionary[Any, DRAManager]" = weakref.WeakKeyDictionary()


def dra_manager(cluster) -> "DRAManager":
    """The cluster's DRA manager, created on first use and kept as long as the cluster lives."""
    found = _MANAGERS.get(cluster)
    if found is None:
        found = _MANAGERS[cluster] = DRAManager(cluster)
    return found


def claim_key(claim: dict) -> str:
    """``namespace/name`` of a claim dict (the cluster's key for it).

    >>> claim_key({"metadata": {"name": "c", "namespace": "ns"}})
    'ns/c'
    """
    meta = claim.get("metadata") or {}
    ns = meta.get("namespace")
    return f"{ns}/{meta.get('name', '')}" if ns else meta.get("name", "")


def claim_identity(claim: dict) -> str:
    """The claim's UID, or its key when it has none (test fixtures).

    >>> claim_identity({"metadata": {"name": "c", "uid": "u1"}}), claim_identity({"metadata": {"name": "c"}})
    ('u1', 'c')
    """
    meta = claim.get("metadata") or {}
    return meta.get("uid") or claim_key(claim)


class DRAManager:
    """Claims, classes and slices of one cluster, plus the in-flight allocations (see module doc)."""

    def __init__(self, cluster) -> None:
        self.cluster = cluster
        #: claim identity -> claim dict with the allocation assumed at Reserve
        self.in_flight: dict[str, dict] = {}
        # what was read from each stored object, keyed by the object's id and holding the object
        # (so the id is not reused while cached); stored objects are replaced, never changed in place
        self._claim_devices: dict[int, tuple[Any, tuple]] = {}
        self._slices: dict[int, tuple[Any, Slice]] = {}
        #: the stored slices and their readings of the last :meth:`parsed_slices` call, and the
        #: store they were in (a :class:`ClaimStore`: its notes say whether a slice was written since)
        self._last_slices: tuple[list, list[Slice], Any] | None = None
        #: the stored claims last read by :meth:`allocated_state` (see :class:`_ExclusiveDevices`)
        self._exclusive: _ExclusiveDevices | None = None
        #: the pools per node kept for the next pod's allocator (``AllocatorCache``)
        self.allocator_cache = AllocatorCache()
        #: what :meth:`allocated_state` handed out last: (the ``_ExclusiveDevices`` it came from,
        #: its token, a copy of its devices, the devices of in-flight allocations then)
        self._handed: tuple | None = None
        #: the stored claims by the UID of their controlling owner (see :meth:`claims_controlled_by`)
        self._owners: _ControllerIndex | None = None
        #: id(stored claim) -> (the claim, its dump) handed out by :meth:`claim_dict`
        self._dumps: dict[int, tuple[Any, dict]] = {}
        #: id(stored DeviceClass model) -> (it, its dump), and the extended-resource mapping of
        #: the stored class objects last read (``device_classes``, ``extended_resource_mapping``)
        self._class_dumps: dict[int, tuple[Any, dict]] = {}
        self._last_mapping: tuple[list, dict[str, str]] | None = None

    # -- claims ---------------------------------------------------------------------
    def claim_objects(self) -> dict[str, Any]:
        """The ResourceClaim API objects by ``namespace/name`` (the live objects; do not modify).
        A plain dict stored by the cluster is made a :class:`ClaimStore` (same keys and objects)
        on first read, so that writes to it are noted for :meth:`allocated_state`."""
        objects = self.cluster.objects
        store = objects.get("ResourceClaim")
        if store is None:
            return {}
        if type(store) is dict:
            store = objects["ResourceClaim"] = ClaimStore(store)
        return store

    def get_claim(self, namespace: str, name: str) -> dict | None:
        """A claim as a dict, or None when it does not exist."""
        obj = self.claim_objects().get(f"{namespace}/{name}" if namespace else name)
        return None if obj is None else as_dict(obj)

    def claim_dict(self, namespace: str, name: str) -> dict | None:
        """:meth:`get_claim` dumped once per stored object and kept: the same dict for every
        caller until the object is replaced, so it is read-only (for the scheduler's reads, which
        never change a claim in place; take :meth:`get_claim_copy` to change one).

        >>> from kschedlab.cluster import Cluster
        >>> m = dra_manager(Cluster())
        >>> m.update_claim({"metadata": {"name": "c", "namespace": "ns"}, "spec": {}})
        >>> m.claim_dict("ns", "c") is m.claim_dict("ns", "c"), m.claim_dict("ns", "c") == m.get_claim("ns", "c")
        (True, True)
        """
        obj = self.claim_objects().get(f"{namespace}/{name}" if namespace else name)
        if obj is None:
            return None
        dumps = self._dumps
        hit = dumps.get(id(obj))
        if hit is not None and hit[0] is obj:
            return hit[1]
        if len(dumps) > 2 * len(self.claim_objects()) + 64:  # objects replaced without the manager
            dumps.clear()
        found = as_dict(obj)
        dumps[id(obj)] = (obj, found)
        return found

    def get_claim_copy(self, namespace: str, name: str) -> dict | None:
        """:meth:`get_claim` as a dict of the caller's own, to change (a stored model is dumped
        anew anyway; a stored dict is copied)."""
        obj = self.claim_objects().get(f"{namespace}/{name}" if namespace else name)
        if obj is None:
            return None
        return copy.deepcopy(obj) if isinstance(obj, dict) else as_dict(obj)

    def list_claims(self) -> list[dict]:
        """Every claim as a dict, in the cluster's order."""
        return [as_dict(o) for o in self.claim_objects().values()]

    def claims_controlled_by(self, uid: str) -> list:
        """The stored claim objects whose controller owner reference has ``uid``, in the cluster's
        order (upstream's ResourceClaim controller keeps such an index by owner). The index is
        kept between calls and follows the stored claims by identity: objects replaced in place
        or added at the end are read again, anything else rebuilds it."""
        objs = list(self.claim_objects().values())
        index = self._owners
        if index is None or not index.update(objs):
            index = self._owners = _ControllerIndex(objs)
        return index.lookup(uid)

    def has_pending_allocation(self, claim: dict) -> bool:
        """``ClaimHasPendingAllocation``: the claim's allocation was assumed and not written yet."""
        return claim_identity(claim) in self.in_flight

    def signal_pending_allocation(self, claim: dict) -> None:
        """``SignalClaimPendingAllocation``: ``claim`` (with its allocation) is in flight."""
        self.in_flight[claim_identity(claim)] = claim

    def remove_pending_allocation(self, claim: dict) -> bool:
        """``RemoveClaimPendingAllocation``: True when the claim was in flight."""
        return self.in_flight.pop(claim_identity(claim), None) is not None

    def claim_object(self, namespace: str, name: str):
        """The stored ResourceClaim object (a model, or a dict put there as one), or None."""
        return self.claim_objects().get(f"{namespace}/{name}" if namespace else name)

    def update_claim(self, claim: dict, *, base=None) -> None:
        """Store ``claim`` (a dict) as the cluster's ResourceClaim object (create or replace).

        ``base``: the stored model ``claim`` was dumped from, when only ``metadata.finalizers``
        and ``status`` were changed since (the scheduler writing an allocation and a consumer):
        the new object is then ``base``'s copy with those two, the status validated alone, and of
        it only the fields whose value is not the very object of ``base``'s kept dump
        (:meth:`claim_dict`; the rest is ``base``'s, valid already): the model a validation of the
        whole dict gives (equal, with the same dump; ``tests/dra_bench/test_dra_caches.py``), whose
        parts not written keep the fields ``base`` had set, where a validation of the dump would
        count every dumped default as set.

        >>> from kschedlab.cluster import Cluster
        >>> m = dra_manager(Cluster())
        >>> m.update_claim({"metadata": {"name": "c", "namespace": "ns"}, "spec": {}})
        >>> base = m.claim_object("ns", "c")
        >>> claim = m.get_claim_copy("ns", "c")
        >>> claim["metadata"]["finalizers"] = [FINALIZER]
        >>> claim["status"]["reservedFor"] = [{"resource": "pods", "name": "p", "uid": "u"}]
        >>> m.update_claim(claim, base=base)
        >>> new = m.claim_object("ns", "c")
        >>> new is not base and new.spec is base.spec, new.status.reserved_for[0].name, new.metadata.finalizers
        (True, 'p', ['resource.kubernetes.io/delete-protection'])
        """
        from kschedlab.api.resource import ResourceClaim, ResourceClaimStatus

        composed = None  # the new object's dump, when it follows from base's kept one
        reading = None  # what allocated_state reads of the new object, when it is base's
        if base is not None and type(base) is ResourceClaim:
            finalizers = list(claim["metadata"].get("finalizers") or [])
            # (finalizers set and unchanged: the metadata is base's, shared as the spec is)
            meta = base.metadata if "finalizers" in base.metadata.__pydantic_fields_set__ and \
                base.metadata.finalizers == finalizers else _with(base.metadata, finalizers=finalizers)
            status = claim.get("status") or {}
            hit = self._dumps.get(id(base))
            kept = (hit[1].get("status") or {}) if hit is not None and hit[0] is base else None
            if hit is not None and kept is not None and status.keys() == kept.keys():
                # a value that is the stored object's dump's own (``claim_dict``, the same object) is
                # the stored object's field: only the others are validated
                changed = {k: v for k, v in status.items() if v is not kept[k]}
                names = _status_fields()
                old_meta = hit[1].get("metadata") or {}
                dumps = "status" in hit[1] and old_meta.get("finalizers", None) == meta.finalizers
                added = _consumers_added(changed, kept)
                if added is not None:
                    # consumers appended, nothing else: only the new entries are read (as validation
                    # reads them: :func:`_consumer_references`), the allocation's reading is base's
                    refs, more = _consumer_references(added)
                    new_status = _with(base.status, reserved_for=[*base.status.reserved_for, *refs])
                    if dumps:
                        composed = {**hit[1], "status": {**kept, "reservedFor": [*kept["reservedFor"], *more]}}
                    reading = self._claim_devices.get(id(base))
                else:
                    part = ResourceClaimStatus.model_validate(changed)
                    new_status = _with(base.status, **{names[k]: getattr(part, names[k]) for k in changed})
                    if dumps:
                        # (the finalizers as they were: only status fields changed, each dumped in its place)
                        dumped = part.model_dump(by_alias=True, exclude_none=True, mode="json")
                        if all(k in dumped for k in changed):
                            composed = {**hit[1], "status": {**kept, **{k: dumped[k] for k in changed}}}
            else:
                new_status = ResourceClaimStatus.model_validate(status)
            obj = _with(base, metadata=meta, status=new_status)
        else:
            obj = ResourceClaim.model_validate(claim)
        if "ResourceClaim" not in self.cluster.objects:
            self.cluster.objects["ResourceClaim"] = ClaimStore()
        store = self.claim_objects()
        key = claim_key(claim)
        old = store.get(key)
        if old is not None and old is not obj:
            hit = self._claim_devices.get(id(old))
            if hit is not None and hit[0] is old:
                del self._claim_devices[id(old)]
            self._dumps.pop(id(old), None)
        store[key] = obj
        # what allocated_state reads of the new object, from the dict it was validated from (the
        # fields read are kept as they are; base's reading when only consumers were added), so
        # that the next pod does not dump it again
        self._claim_devices[id(obj)] = (obj, reading[1] if reading is not None and reading[0] is base else
                                        (claim_identity(claim), _allocated_devices(claim)))
        if composed is not None:  # read back by claim_dict without dumping the whole claim
            self._dumps[id(obj)] = (obj, composed)

    def delete_claim(self, claim: dict) -> None:
        """Remove a claim from the cluster (no-op when it is gone)."""
        self.claim_objects().pop(claim_key(claim), None)
        self.in_flight.pop(claim_identity(claim), None)

    # -- allocated devices ------------------------------------------------------------
    def allocated_state(self) -> AllocatedState:
        """``GatherAllocatedState``: devices of every allocation (written or in flight) except
        admin-access results; shared devices (with a ``shareID``) add up their consumed capacity.

        While no allocation has a ``shareID`` and no two stored claims share an identity, the
        devices are kept from the previous call and only the replaced claims are read again
        (:class:`_ExclusiveDevices`); otherwise every claim is gone through
        (:meth:`allocated_state_full`). Both give the same state. The replaced claims are
        known from the :class:`ClaimStore`'s notes (the change feed; a removed claim or a store
        of another type: every stored claim is compared by identity instead). The state's
        devices are valid until the next call: without in-flight allocations they are the kept
        set itself (a :class:`HeldDevices`, which refuses changes), changed by that call."""
        store = self.claim_objects()
        ex = self._exclusive
        if isinstance(store, ClaimStore):
            notes = store.drain()
            if ex is None or ex.store is not store or not ex.follow(store, notes, self._read_claim):
                ex = _ExclusiveDevices.build(list(store.items()), self._read_claim)
                if ex is not None:
                    ex.store = store
        else:
            items = list(store.items())
            if ex is None or ex.store is not None or not ex.update(items, self._read_claim):
                ex = _ExclusiveDevices.build(items, self._read_claim)
        self._exclusive = ex
        if ex is not None:
            devices, touched = ex.with_in_flight(self.in_flight)
            if devices is not None:
                return AllocatedState(allocated_devices=devices, aggregated_capacity={},
                                      delta=self._delta(ex, devices, touched))
        self._handed = None
        return self.allocated_state_full()

    def _delta(self, ex: "_ExclusiveDevices", devices: set, touched: set) -> tuple:
        """``AllocatedState.delta`` of ``devices`` against the devices handed out last time, from
        the devices whose holders changed since (``touched``: those of in-flight allocations)."""
        token = object()
        changed = ex.drain_changed()
        last = self._handed
        delta = (None, token, frozenset(), frozenset())
        if last is not None and last[0] is ex:
            _, base, kept, touched_before = last
            candidates = changed | touched | touched_before
            added = frozenset(d for d in candidates if d in devices and d not in kept)
            removed = frozenset(d for d in candidates if d not in devices and d in kept)
            kept -= removed
            kept |= added
            delta = (base, token, added, removed)
        else:
            kept = set(devices)
        self._handed = (ex, token, kept, touched)
        return delta

    def _read_claim(self, obj) -> tuple:
        """``(identity, _allocated_devices)`` of a stored claim (read again: the kept reading is
        per position in :class:`_ExclusiveDevices`)."""
        hit = self._claim_devices.get(id(obj))
        if hit is not None and hit[0] is obj:
            return hit[1]
        claim = as_dict(obj)
        return claim_identity(claim), _allocated_devices(claim)

    def allocated_state_full(self) -> AllocatedState:
        """:meth:`allocated_state` computed from every stored claim and in-flight allocation."""
        seen: dict[str, tuple] = {}
        cache: dict[int, tuple[Any, tuple]] = {}
        for obj in self.claim_objects().values():
            hit = self._claim_devices.get(id(obj))
            if hit is None or hit[0] is not obj:
                claim = as_dict(obj)
                hit = (obj, (claim_identity(claim), _allocated_devices(claim)))
            cache[id(obj)] = hit
            identity, found = hit[1]
            seen[identity] = found
        self._claim_devices = cache
        for identity, claim in self.in_flight.items():
            seen[identity] = _allocated_devices(claim)
        devices: set[tuple[str, str, str]] = set()
        capacity: dict[tuple[str, str, str], dict[str, Quantity]] = {}
        for found in seen.values():
            for dev, share_id, consumed in found:
                if share_id:
                    used = capacity.setdefault(dev, {})
                    for name, q in consumed:
                        used[name] = used.get(name, Quantity.parse("0")) + q
                else:
                    devices.add(dev)
        return AllocatedState(allocated_devices=devices, aggregated_capacity=capacity)

    # -- classes ----------------------------------------------------------------------
    def device_classes(self) -> list[dict]:
        """Every DeviceClass as a dict (read-only: a stored model is dumped once and its dump
        handed out until the object is replaced, as a stored dict is handed out as it is).

        >>> from kschedlab.cluster import Cluster
        >>> from kschedlab.api.resource import DeviceClass
        >>> cluster = Cluster()
        >>> cluster.objects["DeviceClass"] = {"c": DeviceClass.model_validate({"metadata": {"name": "c"}})}
        >>> m = dra_manager(cluster)
        >>> m.device_classes()[0] is m.get_device_class("c"), m.device_classes()[0]["metadata"]["name"]
        (True, 'c')
        """
        stored = self.cluster.objects.get("DeviceClass", {})
        return [self._class_dict(o, len(stored)) for o in stored.values()]

    def get_device_class(self, name: str) -> dict | None:
        """A DeviceClass by name, or None (read-only, as :meth:`device_classes`)."""
        stored = self.cluster.objects.get("DeviceClass", {})
        obj = stored.get(name)
        return None if obj is None else self._class_dict(obj, len(stored))

    def _class_dict(self, obj: Any, stored: int) -> dict:
        """``obj``'s dump, kept per stored object (``stored``: how many classes are stored)."""
        if type(obj) is dict:
            return obj
        dumps = self._class_dumps
        hit = dumps.get(id(obj))
        if hit is not None and hit[0] is obj:
            return hit[1]
        if len(dumps) > 2 * stored + 64:  # objects replaced: forget the old ones
            dumps.clear()
        found = as_dict(obj)
        dumps[id(obj)] = (obj, found)
        return found

    def extended_resource_mapping(self) -> dict[str, str]:
        """``DeviceClassMapping``: extended resource name -> DeviceClass name, for every class's
        implicit name and its ``extendedResourceName``. When several classes name the same
        resource, the most recently created wins (then the name sorting first). Worked out again
        only when the stored class models changed (every time while some class is a dict)."""
        objs = list(self.cluster.objects.get("DeviceClass", {}).values())
        last = self._last_mapping
        if last is not None and len(last[0]) == len(objs) and all(map(operator.is_, last[0], objs)):
            return dict(last[1])
        mapping: dict[str, str] = {}
        explicit: dict[str, tuple[str, str]] = {}
        for cls in self.device_classes():
            meta = cls.get("metadata") or {}
            name = meta.get("name", "")
            mapping[IMPLICIT_EXTENDED_RESOURCE_PREFIX + name] = name
            ext = (cls.get("spec") or {}).get("extendedResourceName")
            if ext:
                created = str(meta.get("creationTimestamp") or "")
                best = explicit.get(ext)
                if best is None or (created, _neg(name)) > (best[0], _neg(best[1])):
                    explicit[ext] = (created, name)
        mapping.update({ext: name for ext, (_, name) in explicit.items()})
        if not any(type(o) is dict for o in objs):  # (a stored dict may be changed in place)
            self._last_mapping = (objs, dict(mapping))
        return mapping

    def device_class_for(self, resource: str) -> dict | None:
        """``DeviceClassResolver.GetDeviceClass``: the class serving extended resource ``resource``."""
        name = self.extended_resource_mapping().get(resource)
        return None if name is None else self.get_device_class(name)

    # -- slices -----------------------------------------------------------------------
    def parsed_slices(self) -> list[Slice]:
        """:meth:`resource_slices` read into :class:`~kschedlab.dra.devices.Slice` objects for the
        allocator, each slice read once while its object stays (so its devices keep their CEL
        input between pods). With DeviceTaintRules the slices are read anew each call. The
        cluster's slices are kept in a :class:`ClaimStore` (made one on first read): while it
        notes no write since the last call, the last readings are handed out without comparing
        the stored objects.

        >>> from kschedlab.cluster import Cluster
        >>> cluster = Cluster()
        >>> cluster.objects["ResourceSlice"] = {"s": {"metadata": {"name": "s"}, "spec": {"driver": "d",
        ...     "nodeName": "n1", "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1}}}}
        >>> m = dra_manager(cluster)
        >>> first = m.parsed_slices(); first == m.parsed_slices(), type(cluster.objects["ResourceSlice"]).__name__
        (True, 'ClaimStore')
        >>> cluster.objects["ResourceSlice"]["s"] = dict(cluster.objects["ResourceSlice"]["s"])
        >>> m.parsed_slices()[0] is first[0]
        False
        """
        objects = self.cluster.objects
        if objects.get("DeviceTaintRule") or objects.get("DeviceTaintRuleV1beta2"):
            return [read_slice(s) for s in self.resource_slices()]
        store = objects.get("ResourceSlice")
        if type(store) is dict:  # its writes noted from now on (the slices' change feed)
            store = objects["ResourceSlice"] = ClaimStore(store)
        last = self._last_slices
        if last is not None and store is not None and last[2] is store and store.drain() == []:
            return list(last[1])  # no slice stored or removed since the last call: the same readings
        objs = list(store.values()) if store is not None else []
        if last is not None and len(last[0]) == len(objs) and all(map(operator.is_, last[0], objs)):
            self._last_slices = (objs, last[1], store)
            return list(last[1])  # the same stored objects as last time: the same readings
        out = []
        cache: dict[int, tuple[Any, Slice]] = {}
        for obj in objs:
            hit = self._slices.get(id(obj))
            if hit is None or hit[0] is not obj:
                hit = (obj, read_slice(obj))
            cache[id(obj)] = hit
            out.append(hit[1])
        self._slices = cache
        self._last_slices = (objs, out, store)
        return list(out)

    def resource_slices(self) -> list[dict]:
        """``ListWithDeviceTaintRules``: the ResourceSlices, each device carrying the taints of the
        DeviceTaintRules whose selector (driver, pool, device) matches it."""
        slices = [as_dict(o) for o in self.cluster.objects.get("ResourceSlice", {}).values()]
        rules = [as_dict(o) for kind in ("DeviceTaintRule", "DeviceTaintRuleV1beta2")
                 for o in self.cluster.objects.get(kind, {}).values()]
        if not rules:
            return slices
        out = []
        for s in slices:
            spec = s.get("spec") or {}
            pool = (spec.get("pool") or {}).get("name", "")
            changed = None
            for i, device in enumerate(spec.get("devices") or []):
                extra = [r["spec"]["taint"] for r in rules if _rule_selects(r, spec.get("driver", ""), pool,
                                                                          device.get("name", ""))]
                if extra:
                    if changed is None:
                        changed = copy.deepcopy(s)
                    dev = changed["spec"]["devices"][i]
                    dev["taints"] = list(dev.get("taints") or []) + extra
            out.append(changed or s)
        return out


class ClaimStore(dict):
    """The cluster's ResourceClaims by key (``Cluster.objects["ResourceClaim"]`` once the DRA
    manager has read it), noting every key written or removed since the manager last read the
    notes: the change feed :meth:`DRAManager.allocated_state` follows instead of comparing every
    stored claim. Reads are a dict's; every writing method of ``dict`` is noted. The cluster's
    ResourceSlices are kept in one too (:meth:`DRAManager.parsed_slices` reads its notes).

    >>> store = ClaimStore({"ns/a": 1})
    >>> store["ns/b"] = 2; store["ns/a"] = 3; del store["ns/b"]
    >>> store.drain()
    [('ns/b', 'add'), ('ns/a', 'set'), ('ns/b', 'remove')]
    >>> store.drain(), dict(store)
    ([], {'ns/a': 3})
    """

    #: notes kept while nobody drains them; past that, :meth:`drain` answers None (read everything)
    LIMIT = 1 << 16

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._notes = []

    #: (a class default: an unpickled store sets its items before its attributes)
    _notes: list[tuple[Any, str]] | None = None

    def _note(self, key, op: str) -> None:
        notes = self._notes
        if notes is not None:
            if len(notes) >= self.LIMIT:
                self._notes = None
            else:
                notes.append((key, op))

    def drain(self) -> list[tuple[Any, str]] | None:
        """The ``(key, op)`` notes since the last call, ``op`` one of add, set (replaced) and
        remove, in order; None when too many came to be kept (the reader starts again)."""
        notes, self._notes = self._notes, []
        return notes

    def __setitem__(self, key, value) -> None:
        self._note(key, "set" if key in self else "add")
        super().__setitem__(key, value)

    def __delitem__(self, key) -> None:
        super().__delitem__(key)
        self._note(key, "remove")

    def pop(self, key, *default):
        if key in self:
            self._note(key, "remove")
        return super().pop(key, *default)

    def popitem(self):
        key, value = super().popitem()
        self._note(key, "remove")
        return key, value

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def update(self, *args, **kwargs) -> None:  # type: ignore[override]
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def __ior__(self, other):  # type: ignore[override]
        self.update(other)
        return self

    def clear(self) -> None:
        for key in list(self):
            self._note(key, "remove")
        super().clear()


class HeldDevices(set):
    """The devices held by the stored claims as :meth:`DRAManager.allocated_state` hands them
    out: a set that refuses to be changed by its readers (``add``, ``discard``, ``|=`` ... raise
    TypeError); the manager changes it in place on its next call, so a reader keeps it only for
    the allocation it was handed out for (copy it, ``set(held)``, to keep it longer).

    >>> held = HeldDevices({("d", "p", "a")})
    >>> ("d", "p", "a") in held, len(held | {("d", "p", "b")})
    (True, 2)
    >>> held.add(("d", "p", "b"))
    Traceback (most recent call last):
    TypeError: the devices handed out by DRAManager.allocated_state are read-only
    """

    def _refuse(self, *args, **kwargs):
        raise TypeError("the devices handed out by DRAManager.allocated_state are read-only")

    add = discard = remove = pop = clear = update = _refuse
    difference_update = intersection_update = symmetric_difference_update = _refuse
    __ior__ = __iand__ = __isub__ = __ixor__ = _refuse  # type: ignore[assignment]


@functools.cache
def _status_fields() -> dict[str, str]:
    """``ResourceClaimStatus``'s field names by their (camelCase) keys."""
    from kschedlab.api.resource import ResourceClaimStatus

    return {(f.alias or name): name for name, f in ResourceClaimStatus.model_fields.items()}


def _consumers_added(changed: dict, kept: dict) -> list | None:
    """The entries appended to ``reservedFor`` when that is the only status field ``changed`` and
    its first entries are the kept dump's own (the same objects); None otherwise.

    >>> a, b = {"uid": "a"}, {"uid": "b"}
    >>> _consumers_added({"reservedFor": [a, b]}, {"reservedFor": [a]}), _consumers_added({"reservedFor": [b]}, {"reservedFor": [a]})
    ([{'uid': 'b'}], None)
    """
    if changed.keys() != {"reservedFor"}:
        return None
    old, new = kept.get("reservedFor"), changed["reservedFor"]
    if not isinstance(old, list) or not isinstance(new, list) or len(new) <= len(old):
        return None
    if not all(map(operator.is_, new, old)):  # (map stops at the shorter, ``old``)
        return None
    return new[len(old):]


#: ``ResourceClaimConsumerReference``'s keys and field names, in its declaration (and dump) order
_CONSUMER_FIELDS = (("apiGroup", "api_group"), ("resource", "resource"), ("name", "name"), ("uid", "uid"))
_CONSUMER_KEYS = frozenset(key for key, _ in _CONSUMER_FIELDS)


def _consumer_references(entries: list) -> tuple[list, list]:
    """``reservedFor`` entries as validation makes them and as the claim's dump shows them:
    an entry of string values under the API's keys (a consumer the scheduler writes) is taken
    as it is (``K8sModel.trusted``), any other is validated.

    >>> from kschedlab.api.resource import ResourceClaimConsumerReference as Ref
    >>> entry = {"uid": "u", "resource": "pods", "name": "p"}
    >>> refs, dumps = _consumer_references([entry])
    >>> refs == [Ref.model_validate(entry)], refs[0].model_fields_set == Ref.model_validate(entry).model_fields_set
    (True, True)
    >>> dumps == [Ref.model_validate(entry).model_dump(by_alias=True, exclude_none=True, mode="json")], list(dumps[0])
    (True, ['resource', 'name', 'uid'])
    >>> _consumer_references([{"name": "p", "uid": None}])[1]  # (validated: a null)
    [{'name': 'p'}]
    """
    from kschedlab.api.resource import ResourceClaimConsumerReference

    refs, dumps = [], []
    for entry in entries:
        if type(entry) is dict and entry.keys() <= _CONSUMER_KEYS and all(type(v) is str for v in entry.values()):
            refs.append(ResourceClaimConsumerReference.trusted(
                **{name: entry[key] for key, name in _CONSUMER_FIELDS if key in entry}))
            dumps.append({key: entry[key] for key, _ in _CONSUMER_FIELDS if key in entry})
        else:
            ref = ResourceClaimConsumerReference.model_validate(entry)
            refs.append(ref)
            dumps.append(ref.model_dump(by_alias=True, exclude_none=True, mode="json"))
    return refs, dumps


def _with(model, **fields):
    """``model.model_copy(update=fields)`` (a shallow copy; the fields given count as set),
    without pydantic's generic copy.

    >>> from kschedlab.api.meta import ObjectMeta
    >>> a = ObjectMeta(name="c"); b = _with(a, finalizers=["f"])
    >>> b == a.model_copy(update={"finalizers": ["f"]}), sorted(b.model_fields_set), a.finalizers
    (True, ['finalizers', 'name'], [])
    """
    obj = type(model).__new__(type(model))
    object.__setattr__(obj, "__dict__", {**model.__dict__, **fields})
    object.__setattr__(obj, "__pydantic_fields_set__", model.__pydantic_fields_set__ | fields.keys())
    object.__setattr__(obj, "__pydantic_extra__", model.__pydantic_extra__)
    private = model.__pydantic_private__
    object.__setattr__(obj, "__pydantic_private__", None if private is None else dict(private))
    return obj


def _allocated_devices(claim: dict) -> tuple:
    """``((driver, pool, device), shareID, ((capacity, Quantity), ...)), ...`` of a claim's
    allocation, admin-access results left out.

    >>> _allocated_devices({"status": {"allocation": {"devices": {"results": [
    ...     {"driver": "d", "pool": "p", "device": "a"}, {"driver": "d", "pool": "p", "device": "b", "adminAccess": True},
    ...     {"driver": "d", "pool": "p", "device": "c", "shareID": "s1", "consumedCapacity": {"mem": "1Gi"}}]}}}})
    ((('d', 'p', 'a'), None, ()), (('d', 'p', 'c'), 's1', (('mem', Quantity('1Gi')),)))
    """
    allocation = (claim.get("status") or {}).get("allocation")
    if not allocation:
        return ()
    out = []
    for r in (allocation.get("devices") or {}).get("results") or []:
        if r.get("adminAccess"):
            continue
        dev = (r.get("driver", ""), r.get("pool", ""), r.get("device", ""))
        share_id = r.get("shareID") or None
        consumed = tuple((name, Quantity.parse(str(q))) for name, q in (r.get("consumedCapacity") or {}).items()) \
            if share_id else ()
        out.append((dev, share_id, consumed))
    return tuple(out)


def _neg(name: str) -> tuple[int, ...]:
    """A key that sorts names in reverse, so ``max`` prefers the name sorting first."""
    return tuple(-ord(ch) for ch in name) + (0,)


def _rule_selects(rule: dict, driver: str, pool: str, device: str) -> bool:
    sel = (rule.get("spec") or {}).get("deviceSelector")
    if not sel or not (rule.get("spec") or {}).get("taint"):
        return False
    return all(not sel.get(k) or sel.get(k) == v for k, v in (("driver", driver), ("pool", pool), ("device", device)))


def pod_claim_names(pod) -> Iterable[str]:
    """Names of the claims a pod's ``spec.resourceClaims`` refer to, where known yet."""
    statuses = {s.name: s.resource_claim_name for s in (pod.status.resource_claim_statuses if pod.status else [])}
    for rc in pod.spec.resource_claims:
        if rc.resource_claim_name:
            yield rc.resource_claim_name
        elif rc.resource_claim_template_name and statuses.get(rc.name):
            yield statuses[rc.name]


class _ExclusiveDevices:
    """The devices held by the stored claims, kept between :meth:`DRAManager.allocated_state`
    calls. Only valid while no allocation has a ``shareID`` (capacity sums are not kept) and
    every stored claim has its own identity. ``objects`` are the stored claims in the cluster's
    order (kept, so that a replaced object is told apart by identity), ``keys`` their keys,
    ``read`` what each holds, ``count`` how many claims hold each device; ``store`` the
    :class:`ClaimStore` whose notes it follows (None: followed by identity)."""

    __slots__ = ("objects", "keys", "position", "read", "identities", "count", "devices", "changed", "store")

    def __init__(self) -> None:
        self.objects: list = []
        self.keys: list = []
        self.position: dict[Any, int] = {}
        self.read: list[tuple] = []
        self.identities: dict[str, int] = {}
        self.count: dict[tuple, int] = {}
        #: the devices of ``count`` (held by some claim), kept beside it (changed through ``set``'s methods)
        self.devices: HeldDevices = HeldDevices()
        #: devices that came into ``count`` or left it since :meth:`drain_changed`
        self.changed: set[tuple] = set()
        self.store: ClaimStore | None = None

    def drain_changed(self) -> set:
        """The devices held by some claim before and not now, or the other way round, since the
        last call."""
        changed, self.changed = self.changed, set()
        return changed

    @classmethod
    def build(cls, items: list, read_claim) -> "_ExclusiveDevices | None":
        """From scratch (``items``: the stored ``(key, claim)``); None when some allocation is
        shared or an identity repeats."""
        ex = cls()
        return ex if ex._append(items, read_claim) else None

    def _append(self, items: list, read_claim) -> bool:
        count, devices = self.count, self.devices
        for key, obj in items:
            identity, found = read_claim(obj)
            if identity in self.identities or any(share_id for _, share_id, _ in found):
                return False
            self.identities[identity] = self.position[key] = len(self.objects)
            self.keys.append(key)
            self.objects.append(obj)
            self.read.append((identity, found))
            for dev, _, _ in found:
                n = count.get(dev, 0)
                if not n:
                    self.changed.add(dev)
                    set.add(devices, dev)
                count[dev] = n + 1
        return True

    def _replace(self, changed: list[int], objects: list, read_claim) -> bool:
        """Take the claims ``objects`` (at positions ``changed``) in place of those kept there;
        False when an identity changed or an allocation is shared."""
        news = [read_claim(obj) for obj in objects]
        for i, (identity, found) in zip(changed, news):
            if identity != self.read[i][0] or any(share_id for _, share_id, _ in found):
                return False
        count, devices = self.count, self.devices
        for i, obj, (identity, found) in zip(changed, objects, news):
            for dev, _, _ in self.read[i][1]:
                left = count[dev] - 1
                if left:
                    count[dev] = left
                else:
                    del count[dev]
                    self.changed.add(dev)
                    set.discard(devices, dev)
            for dev, _, _ in found:
                held = count.get(dev, 0)
                if not held:
                    self.changed.add(dev)
                    set.add(devices, dev)
                count[dev] = held + 1
            self.read[i] = (identity, found)
            self.objects[i] = obj
        return True

    def update(self, items: list, read_claim) -> bool:
        """Follow the stored ``(key, claim)`` items by identity: True when objects were only
        replaced in place or added at the end (and the rules above still hold), after taking
        their devices into account; False (the caller starts again) otherwise."""
        n = len(self.objects)
        if len(items) < n:
            return False
        objects = [obj for _, obj in items]
        changed = _replaced(self.objects, objects)
        return self._replace(changed, [objects[i] for i in changed], read_claim) and self._append(
            items[n:], read_claim)

    def follow(self, store: ClaimStore, notes: list | None, read_claim) -> bool:
        """Follow ``store`` by its notes since the last call (:meth:`ClaimStore.drain`): claims
        replaced or added are read, nothing else; False (the caller starts again) when a claim
        was removed, the notes were dropped, or the rules above no longer hold."""
        if notes is None:
            return False
        replaced: dict[int, None] = {}
        added: dict[Any, None] = {}
        for key, op in notes:
            if op == "remove":
                return False
            i = self.position.get(key)
            if i is not None:
                replaced[i] = None
            else:
                added[key] = None
        changed = list(replaced)
        keys = self.keys
        return self._replace(changed, [store[keys[i]] for i in changed], read_claim) and self._append(
            [(key, store[key]) for key in added], read_claim)

    def with_in_flight(self, in_flight: dict[str, dict]) -> tuple[set | None, set]:
        """The exclusively held devices, the in-flight allocations replacing the stored ones of
        the same claims (None when an in-flight allocation is shared), and the devices those
        allocations and the claims they replace name. Without in-flight allocations the set
        handed out is the kept one itself (no copy, read-only: it is changed by the next
        :meth:`update` or :meth:`follow`)."""
        touched: set = set()
        if not in_flight:
            return self.devices, touched
        devices = set(self.devices)
        flying = [(identity, _allocated_devices(claim)) for identity, claim in in_flight.items()]
        left: dict[tuple, int] = {}
        for identity, found in flying:
            if any(share_id for _, share_id, _ in found):
                return None, touched
            i = self.identities.get(identity)
            if i is not None:
                for dev, _, _ in self.read[i][1]:
                    touched.add(dev)
                    n = left.get(dev, self.count[dev]) - 1
                    left[dev] = n
                    if not n:
                        devices.discard(dev)
        for _, found in flying:
            for dev, _, _ in found:
                touched.add(dev)
                devices.add(dev)
        return devices, touched


def _replaced(old: list, objects: list, block: int = 128) -> list[int]:
    """The positions of ``old`` whose object ``objects`` replaced (``objects`` may be longer). A
    block of equal lists is passed over at once (the list comparison tries identity first); an
    object replaced by an equal one may be passed over with it: what is read of it is the same.

    >>> a, b = {"x": 1}, {"x": 2}
    >>> _replaced([a, a, b], [a, b, b, a], block=2), _replaced([a], [dict(a)])
    ([1], [])
    """
    out: list[int] = []
    for i in range(0, len(old), block):
        x = old[i:i + block]
        y = objects[i:i + len(x)]
        if x != y:
            out.extend(itertools.compress(range(i, i + len(x)), map(operator.is_not, x, y)))
    return out


def controller_uids(obj) -> tuple[str, ...]:
    """The UIDs of the controller owner references of a stored object (dict or model; one at
    most when valid).

    >>> controller_uids({"metadata": {"ownerReferences": [{"uid": "a"}, {"uid": "b", "controller": True}]}})
    ('b',)
    """
    if isinstance(obj, dict):
        refs = ((r.get("controller"), r.get("uid")) for r in (obj.get("metadata") or {}).get("ownerReferences") or [])
    else:
        refs = ((r.controller, r.uid) for r in obj.metadata.owner_references)
    return tuple(uid or "" for controller, uid in refs if controller)


class _ControllerIndex:
    """Stored claims by their controller's UID, following the stored objects by identity."""

    __slots__ = ("objects", "owners", "by_uid")

    def __init__(self, objects: list) -> None:
        self.objects: list = []
        self.owners: list[tuple[str, ...]] = []
        self.by_uid: dict[str, list[int]] = {}
        self._append(objects)

    def _append(self, objects: list) -> None:
        for obj in objects:
            uids = controller_uids(obj)
            for uid in uids:
                self.by_uid.setdefault(uid, []).append(len(self.objects))
            self.objects.append(obj)
            self.owners.append(uids)

    def update(self, objects: list) -> bool:
        """Take replaced and added objects into account; False when some object was removed
        (positions moved: the caller rebuilds)."""
        old = self.objects
        n = len(old)
        if len(objects) < n:
            return False
        for i in itertools.compress(range(n), map(operator.is_not, old, objects[:n] if len(objects) > n
                                                                           else objects)):
            uids = controller_uids(objects[i])
            if uids != self.owners[i]:
                for uid in self.owners[i]:
                    self.by_uid[uid].remove(i)
                for uid in uids:
                    positions = self.by_uid.setdefault(uid, [])
                    positions.append(i)
                    positions.sort()
                self.owners[i] = uids
            old[i] = objects[i]
        self._append(objects[n:])
        return True

    def lookup(self, uid: str) -> list:
        """The objects controlled by ``uid``."""
        return [self.objects[i] for i in dict.fromkeys(self.by_uid.get(uid, ()))]
