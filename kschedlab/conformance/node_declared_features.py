"""Conformance fixtures and stages for NodeDeclaredFeatures and plugin QueueingHints.

Upstream's NodeDeclaredFeatures tests build the plugin around a registry of mock features
and a component version. A case gives them as extra input keys, applied to the plugin the
``prefilter`` / ``filter`` stages build:

* ``declaredFeatureRegistry``: ``[{name, inferForScheduling, maxVersion}]``, where
  ``inferForScheduling`` is a bool, or a list of bools answered on successive calls;
* ``componentVersion``: the version requirements are inferred for (``null``: none);
* ``other.preFilterState`` (with ``other.runPreFilter: false``): the state Filter reads,
  ``{"reqs": [names]}``, written without running PreFilter.

Two stages work for any plugin:

========================  ===============================================================
``queueing-hint``         ``event {resource: Node|Pod|PersistentVolume|PersistentVolumeClaim|
                          StorageClass|CSINode|VolumeAttachment, oldObj, newObj}`` offered to the hint the
                          plugin registers for it; ``expected.other: {hint, errorContains?}``
                          (a hint error counts as Queue, as the queue treats it)
``events-to-register``    ``expected.other.eventCount``: how many events the plugin registers
``binding-admission``     the PodTopologyLabels admission of a Binding: ``node`` (its labels),
                          ``bindingLabels``, ``targetKind`` (default Node), ``labelKeys`` (the
                          plugin's configured keys; default topology.kubernetes.io/zone and /region),
                          ``featureGates``; ``expected.other.bindingLabels``
========================  ===============================================================
"""

from __future__ import annotations

from typing import Any, Callable

from kschedlab.conformance.compare import Mismatch, check

__all__ = ["STAGES"]


#: event resource -> (module, model) of its objects
EVENT_MODELS = {"Node": ("kschedlab.api.core", "Node"), "Pod": ("kschedlab.api.core", "Pod"),
                "PersistentVolume": ("kschedlab.api.persistentvolume", "PersistentVolume"),
                "PersistentVolumeClaim": ("kschedlab.api.persistentvolume", "PersistentVolumeClaim"),
                "StorageClass": ("kschedlab.api.storage", "StorageClass"),
                "CSINode": ("kschedlab.api.storage", "CSINode"),
                "VolumeAttachment": ("kschedlab.api.storage", "VolumeAttachment")}


def _objects(event: dict) -> tuple[Any, Any]:
    """The event's objects as API models; a value that is no object (upstream's rows pass a
    string to check the hint's error) is handed over as it is."""
    import importlib

    found = EVENT_MODELS.get(event.get("resource"))
    if found is None:
        raise Mismatch(f"event resource {event.get('resource')!r} is not one of {sorted(EVENT_MODELS)}")
    model = getattr(importlib.import_module(found[0]), found[1])

    def build(obj):
        return model.model_validate(obj) if isinstance(obj, dict) else obj

    return build(event.get("oldObj")), build(event.get("newObj"))


def _hint_for(plugin, resource: str) -> Callable:
    from kschedlab.framework.events import (
        CSI_NODE,
        NODE,
        PERSISTENT_VOLUME,
        PERSISTENT_VOLUME_CLAIM,
        POD,
        STORAGE_CLASS,
        TARGET_POD,
        VOLUME_ATTACHMENT,
    )

    wanted = {"Node": (NODE,), "Pod": (POD, TARGET_POD), "PersistentVolume": (PERSISTENT_VOLUME,),
              "PersistentVolumeClaim": (PERSISTENT_VOLUME_CLAIM,), "StorageClass": (STORAGE_CLASS,),
              "CSINode": (CSI_NODE,), "VolumeAttachment": (VOLUME_ATTACHMENT,)}[resource]
    for event, hint in plugin.events_to_register():
        if event.resource in wanted and hint is not None:
            return hint
    raise Mismatch(f"plugin {plugin.name} registers no hint for {resource} events")


def _stage_queueing_hint(case, diffs):
    from kschedlab.conformance.plugins import fixtures, plugin_for
    from kschedlab.framework.events import QUEUE

    cluster, pod_info = fixtures(case)
    plugin = plugin_for(case, cluster)
    old, new = _objects(case["event"])
    hint_fn = _hint_for(plugin, case["event"]["resource"])
    error = None
    try:
        hint = hint_fn(pod_info, old, new)
    except Mismatch:
        raise
    except Exception as err:  # noqa: BLE001 -- the queue requeues on any hint error
        hint, error = QUEUE, str(err)
    want = case["expected"]["other"]
    check(diffs, "hint", hint.name, want["hint"])
    contains = want.get("errorContains")
    if contains and (error is None or contains not in error):
        diffs.append(f"hint error {error!r} lacks {contains!r}")
    if not contains and error is not None:
        diffs.append(f"unexpected hint error {error!r}")


def _stage_events_to_register(case, diffs):
    from kschedlab.conformance.plugins import fixtures, plugin_for

    cluster, _ = fixtures(case)
    plugin = plugin_for(case, cluster)
    check(diffs, "eventCount", len(plugin.events_to_register()), case["expected"]["other"]["eventCount"])


def _stage_binding_admission(case, diffs):
    from kschedlab.api.binding import TOPOLOGY_LABELS, admit_binding
    from kschedlab.api.core import Node
    from kschedlab.features import FeatureGates

    node = None if case.get("node") is None else Node.model_validate(case["node"])
    gates = FeatureGates(case.get("featureGates") or {}, emulate_older=True)
    keys = tuple(case.get("labelKeys") or TOPOLOGY_LABELS)
    got = admit_binding(case.get("bindingLabels") or {}, case.get("targetKind", "Node"), node, gates, keys)
    check(diffs, "bindingLabels", got, case["expected"]["other"]["bindingLabels"])


STAGES: dict[str, Callable] = {
    "binding-admission": _stage_binding_admission,
    "queueing-hint": _stage_queueing_hint,
    "events-to-register": _stage_events_to_register,
}
