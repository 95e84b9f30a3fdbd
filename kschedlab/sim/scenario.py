"""Scenario files for ``kschedlab simulate``: the initial cluster (any kinds the
loader knows), an optional KubeSchedulerConfiguration, and a ``Simulation``
object with the timeline of events."""

from __future__ import annotations

from kschedlab.api.config import KubeSchedulerConfiguration
from kschedlab.api.errors import ManifestError
from kschedlab.api.loader import load, load_objects
from kschedlab.api.simulation import Simulation as SimulationSpecObject
from kschedlab.apiserver.admission import admit
from kschedlab.apiserver.object_validation import check_objects
from kschedlab.controllers.manifests import create
from kschedlab.controllers.workloads import expand
from kschedlab.sim.engine import Simulation

#: kinds a ``create`` event may add (or replace) during a simulation besides pods and nodes (a Job
#: with the pods its controller starts, which run the event's ``duration``)
APPLIED_KINDS = ("Job", "DeviceTaintRule", "DeviceTaintRuleV1beta2", "ResourceSlice", "ResourceClaim", "DeviceClass",
                 "PersistentVolume", "PersistentVolumeClaim", "StorageClass", "CSINode", "CSIDriver",
                 "CSIStorageCapacity")


def _one(objects, kind, what: str):
    found = [o for o in objects if isinstance(o, kind)]
    if len(found) > 1:
        raise ManifestError(f"more than one {what} given")
    return found[0] if found else None


def _enable_kubelet(sim: Simulation, spec, kubelet_config) -> None:
    """Node-pressure eviction for the scenario's nodes: ``spec.kubelet`` entries, else the
    scenario's KubeletConfiguration, else (usage given alone) the kubelet's defaults.  Each
    node's config is checked now, so a bad one is reported before the run."""
    from kschedlab.api.kubeletconfig import KubeletConfiguration
    from kschedlab.sim.kubelet import NodePressureEviction

    default = kubelet_config if kubelet_config is not None else KubeletConfiguration()
    for i, entry in enumerate(spec.kubelet):
        if entry.node_names is not None:
            for j, name in enumerate(entry.node_names):
                if name not in sim.cluster.nodes:
                    raise ManifestError(f"Simulation spec.kubelet[{i}].nodeNames[{j}]: Not found: {name!r}")
    for i, usage in enumerate(spec.usage):
        if usage.pod is not None:
            ns, _, name = usage.pod.rpartition("/")
            key = f"{ns or 'default'}/{name}"
            created = {f"{(e.create or {}).get('metadata', {}).get('namespace') or 'default'}/"
                       f"{(e.create or {}).get('metadata', {}).get('name')}" for e in spec.events}
            if key not in sim.cluster.pods and key not in created:
                raise ManifestError(f"Simulation spec.usage[{i}].pod: Not found: {usage.pod!r}")
    sim.kubelet = NodePressureEviction(spec.usage, spec.kubelet, default)
    sim.kubelet.learn_images(sim.cluster.nodes.values())
    from datetime import datetime, timezone

    for key, pod in sim.cluster.pods.items():  # pods bound before the run: the kubelet runs them from its start
        if pod.spec.node_name and pod.status.phase in (None, "Pending"):
            sim.cluster.start_pod(key, datetime.fromtimestamp(sim.now, timezone.utc))
            pod.status.container_statuses = sim.kubelet.container_statuses(pod, sim.now)
    for node in sim.cluster.nodes.values():
        sim.kubelet.manager(node)


def from_files(*paths, gates=None, seed: int | None = None, strict: bool = False,
               keep_traces: int | None = 200, config=None, registry: dict | None = None,
               utilization=None, keep_history: bool = True) -> tuple[Simulation, float | None]:
    """Build a :class:`Simulation` from scenario files; returns it with the ``until`` time.
    Kinds the scheduler does not use are skipped with one warning (refused when ``strict``);
    objects the API server refuses are left out as ``kubectl apply -f`` leaves them
    (``sim.cluster.refused``; with ``strict`` they refuse the whole input);
    ``keep_traces``: how many recent attempts keep their full trace.  ``config`` (a
    KubeSchedulerConfiguration) replaces the files' own, ``registry`` adds out-of-tree plugins
    and ``utilization`` is the simulation's utilisation recorder, ``keep_history`` whether it keeps
    the queue's moves and every attempt's result (see :class:`Simulation`)."""
    objects = load(list(paths), strict=strict)
    from kschedlab.api.kubeletconfig import KubeletConfiguration

    if config is None:
        config = _one(objects, KubeSchedulerConfiguration, "KubeSchedulerConfiguration")
    kubelet_config = _one(objects, KubeletConfiguration, "KubeletConfiguration")
    timeline = _one(objects, SimulationSpecObject, "Simulation")
    spec = timeline.spec if timeline is not None else SimulationSpecObject().spec
    seed = spec.seed if seed is None else seed
    if spec.feature_gates:
        from kschedlab.features import FeatureGates

        gates = FeatureGates(spec.feature_gates).with_overrides(dict(gates.overrides) if gates else {})
    cluster_objects = [o for o in objects
                       if not isinstance(o, (KubeSchedulerConfiguration, SimulationSpecObject, KubeletConfiguration))]
    served = dict(gates.overrides) if gates is not None else None  # API kinds behind gates (PodGroup, ...)
    sim = Simulation(create(cluster_objects, feature_gates=served, seed=seed, strict=strict), config, gates=gates,
                     seed=seed,
                     attempt_duration=spec.attempt_duration, pod_group_cycle=spec.pod_group_cycle,
                     keep_traces=keep_traces, registry=registry, utilization=utilization, keep_history=keep_history,
                     provisioners={name: (p.delay_seconds, p.fail) for name, p in spec.storage.provisioners.items()})
    if spec.usage or spec.kubelet or kubelet_config is not None:
        _enable_kubelet(sim, spec, kubelet_config)
    classes = [o for o in cluster_objects if type(o).__name__ in ("PriorityClass", "RuntimeClass")]
    known_nodes = set(sim.cluster.nodes) | {
        (e.add_node or e.create or {}).get("metadata", {}).get("name") for e in spec.events
        if (e.add_node or e.create or {}).get("kind") == "Node"}
    for i, event in enumerate(spec.events):
        where = f"Simulation spec.events[{i}]"
        if event.create is not None:
            try:
                created = admit([*classes, *expand(load_objects([event.create]), seed=seed)],
                                feature_gates=served)[len(classes):]
            except ManifestError as err:
                raise ManifestError(f"{where}.create: {err}") from None
            for obj in created:
                if type(obj).__name__ == "Pod":
                    sim.create_pod(obj, at=event.at, duration=event.duration)
                elif type(obj).__name__ == "Node":
                    sim.add_node(obj, at=event.at)
                elif type(obj).__name__ in APPLIED_KINDS:
                    sim.create_object(obj, at=event.at)
                else:
                    raise ManifestError(f"{where}.create: cannot create a {type(obj).__name__} during a simulation "
                                        f"(Pod, Node, {', '.join(APPLIED_KINDS)})")
        elif event.delete_pod is not None:
            sim.delete_pod(event.delete_pod, at=event.at)
        elif event.add_node is not None:
            node = load_objects([event.add_node])
            check_objects(node)  # the API server validates it (a taint's effect, its name...) as any create
            sim.add_node(admit(node)[0], at=event.at)
        elif event.remove_node is not None:
            sim.remove_node(event.remove_node, at=event.at)
        elif event.cordon is not None:
            sim.cordon(event.cordon, at=event.at)
        elif event.uncordon is not None:
            sim.cordon(event.uncordon, at=event.at, unschedulable=False)
        elif event.remove_scheduling_gates is not None:
            gr = event.remove_scheduling_gates
            sim.remove_scheduling_gates(gr.pod, at=event.at, names=gr.names)
        elif event.set_device_conditions is not None:
            dc = event.set_device_conditions
            sim.set_device_conditions([dict(c) for c in dc.conditions], claim=dc.claim, pod=dc.pod,
                                      pod_claim=dc.pod_claim, device=dc.device, at=event.at)
        elif event.set_taints is not None:
            change = event.set_taints
            if change.node not in known_nodes:
                raise ManifestError(f"{where}.setTaints.node: Not found: {change.node!r}")
            sim.set_taints(change.node, change.taints, at=event.at)
    return sim, spec.until
