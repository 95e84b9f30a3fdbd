"""``kschedlab.io/v1alpha1`` Simulation: scenario settings and a timeline of cluster events.

Not a Kubernetes kind.  ``spec.featureGates`` sets kube-scheduler feature gates
for the scenario (upstream passes them as ``--feature-gates``; the
KubeSchedulerConfiguration has no such field), read by ``kschedlab schedule``
and ``kschedlab simulate``.  ``spec.events`` describes what happens to the
cluster over virtual time (pods created with a run duration, gates removed,
nodes added, cordoned, tainted or removed, pods deleted); ``spec.usage`` and
``spec.kubelet`` drive the kubelet's node-pressure eviction (:mod:`kschedlab.api.usage`);
the other objects of a scenario are the initial cluster.

>>> sim = Simulation.model_validate({"apiVersion": "kschedlab.io/v1alpha1", "kind": "Simulation",
...     "metadata": {"name": "demo"}, "spec": {"until": 60, "events": [
...         {"at": 5, "removeSchedulingGates": {"pod": "default/test-pod"}},
...         {"at": 9, "cordon": "node-1"}]}})
>>> [e.at for e in sim.spec.events], sim.spec.events[1].cordon
([5.0, 9.0], 'node-1')
"""

from __future__ import annotations

import math
from typing import Annotated, Any, ClassVar

from pydantic import AfterValidator, field_validator, model_validator

from ._base import K8sModel, check_enum
from .core import TAINT_EFFECTS, Taint
from .meta import KubeObject
from .usage import NodeKubelet, PodUsage

__all__ = ["Simulation", "SimulationSpec", "SimulationEvent", "GateRemoval", "TaintChange", "DeviceConditions",
           "SimulationStorage", "ProvisionerTiming"]


def finite_seconds(value: float | None) -> float | None:
    """A virtual time or duration: a finite number of seconds, not negative (``.inf`` and
    ``.nan`` would keep a run from ever ending).

    >>> finite_seconds(30.0)
    30.0
    >>> finite_seconds(float("inf"))
    Traceback (most recent call last):
    ...
    ValueError: Invalid value: inf: must be a finite number of seconds, greater than or equal to 0
    """
    if value is not None and (not math.isfinite(value) or value < 0):
        raise ValueError(f"Invalid value: {value}: must be a finite number of seconds, greater than or equal to 0")
    return value


Seconds = Annotated[float, AfterValidator(finite_seconds)]


class GateRemoval(K8sModel):
    pod: str
    names: list[str] | None = None


class TaintChange(K8sModel):
    """``setTaints``: the node's ``spec.taints`` from now on (an empty list removes them all);
    each effect one the API server supports (a node update validates them as a create does).

    >>> from kschedlab.api.loader import load_objects
    >>> load_objects({"apiVersion": "kschedlab.io/v1alpha1", "kind": "Simulation", "metadata": {"name": "s"},
    ...     "spec": {"events": [{"at": 1, "setTaints": {"node": "n1", "taints": [{"key": "k", "effect": "Sometimes"}]}}]}},
    ...     "sim.yaml")
    Traceback (most recent call last):
    ...
    kschedlab.api.errors.ManifestError: sim.yaml: Simulation s: spec.events[0].setTaints.taints: [0].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"
    """

    node: str
    taints: list[Taint] = []

    @field_validator("taints")
    @classmethod
    def _check_effects(cls, taints: list[Taint]) -> list[Taint]:
        for i, t in enumerate(taints):
            try:
                check_enum(t.effect, TAINT_EFFECTS)
            except ValueError as err:
                raise ValueError(f"[{i}].effect: {err}") from None
        return taints


class DeviceConditions(K8sModel):
    """``setDeviceConditions``: a DRA driver writes conditions of allocated devices into a claim's
    ``status.devices``; the claim is ``claim`` (``namespace/name``) or the claim of ``pod``
    (``namespace/name``) for its ``spec.resourceClaims`` entry ``podClaim`` (all of the pod's
    claims when not given); ``device`` limits it to one device."""

    claim: str | None = None
    pod: str | None = None
    pod_claim: str | None = None
    device: str | None = None
    conditions: list[dict[str, Any]] = []

    @model_validator(mode="after")
    def _one_target(self) -> "DeviceConditions":
        if (self.claim is None) == (self.pod is None):
            raise ValueError("setDeviceConditions needs exactly one of claim, pod")
        if self.pod_claim is not None and self.pod is None:
            raise ValueError("podClaim only goes with pod")
        for i, cond in enumerate(self.conditions):
            if not cond.get("type") or cond.get("status") not in ("True", "False", "Unknown"):
                raise ValueError(f"conditions[{i}]: needs a type and a status True, False or Unknown")
        return self


class SimulationEvent(K8sModel):
    """Exactly one action at time ``at`` (seconds of virtual time)."""

    at: Seconds = 0.0
    create: dict[str, Any] | None = None
    duration: Seconds | None = None
    delete_pod: str | None = None
    add_node: dict[str, Any] | None = None
    remove_node: str | None = None
    cordon: str | None = None
    uncordon: str | None = None
    remove_scheduling_gates: GateRemoval | None = None
    set_taints: TaintChange | None = None
    set_device_conditions: DeviceConditions | None = None

    ACTIONS: ClassVar[tuple[str, ...]] = ("create", "delete_pod", "add_node", "remove_node", "cordon", "uncordon",
                                          "remove_scheduling_gates", "set_taints", "set_device_conditions")

    @model_validator(mode="after")
    def _one_action(self) -> "SimulationEvent":
        given = [a for a in self.ACTIONS if getattr(self, a) is not None]
        if len(given) != 1:
            raise ValueError("an event needs exactly one of create, deletePod, addNode, removeNode, cordon, "
                             f"uncordon, removeSchedulingGates, setTaints, setDeviceConditions (got {len(given)})")
        if self.duration is not None and self.create is None:
            raise ValueError("duration only goes with create")
        return self


class ProvisionerTiming(K8sModel):
    """``spec.storage.provisioners.<name>``: the external provisioner ``name`` answers
    ``delaySeconds`` after it sees a claim the scheduler chose a node for, with a volume, or
    (``fail``) by giving the claim back to the scheduler."""

    delay_seconds: Seconds = 0.0
    fail: bool = False


class SimulationStorage(K8sModel):
    """``spec.storage``: provisioners on the simulation clock (others answer at once)."""

    provisioners: dict[str, ProvisionerTiming] = {}


class SimulationSpec(K8sModel):
    feature_gates: dict[str, bool] = {}
    until: Seconds | None = None
    seed: int = 0
    attempt_duration: float = 0.0
    #: gang pods through the PodGroup cycle (unset: with GenericWorkload); false: the pod-by-pod
    #: path with GangScheduling's Permit wait
    pod_group_cycle: bool | None = None
    events: list[SimulationEvent] = []
    #: what pods use over time (node-pressure eviction; see :mod:`kschedlab.api.usage`)
    usage: list[PodUsage] = []
    #: the nodes' kubelets (KubeletConfiguration and what the node uses outside pods)
    kubelet: list[NodeKubelet] = []
    #: storage on the clock (provisioners that take time)
    storage: SimulationStorage = SimulationStorage()


class Simulation(KubeObject):
    API_VERSION: ClassVar[str] = "kschedlab.io/v1alpha1"
    KIND: ClassVar[str] = "Simulation"
    NAMESPACED: ClassVar[bool] = False

    spec: SimulationSpec = SimulationSpec()
