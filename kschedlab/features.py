"""Feature gates with the defaults kube-scheduler has at v1.37.

Only the gates the scheduler consults are listed; their defaults come from
upstream's versioned feature table for 1.37 (alpha off, most beta on).

>>> gates = FeatureGates()
>>> gates.enabled("TaintTolerationComparisonOperators")
False
>>> gates.with_overrides({"TaintTolerationComparisonOperators": True}).enabled(
...     "TaintTolerationComparisonOperators")
True
>>> FeatureGates.parse_flag("OpportunisticBatching=false,GenericWorkload=true")
{'OpportunisticBatching': False, 'GenericWorkload': True}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

#: name -> (default at v1.37, maturity, locked to default)
DEFAULTS_V1_37: dict[str, tuple[bool, str, bool]] = {
    "CompositePodGroup": (False, "Alpha", False),
    "DRAAdminAccess": (True, "GA", True),
    "DRAConsumableCapacity": (True, "Beta", False),
    "DRADerivedAttributes": (False, "Alpha", False),
    "DRADeviceBindingConditions": (True, "Beta", False),
    "DRADeviceCompatibilityGroups": (False, "Alpha", False),
    "DRADeviceTaintRules": (True, "GA", False),
    "DRADeviceTaints": (True, "GA", False),
    "DRAExtendedResource": (True, "GA", True),
    "DRAFractionalCapacityRange": (True, "Beta", False),
    "DRAListTypeAttributes": (False, "Alpha", False),
    "DRANodeAllocatableResources": (False, "Alpha", False),
    "DRAOptionalNodeOperations": (False, "Alpha", False),
    "DRAPartitionableDevices": (True, "Beta", False),
    "DRAPrioritizedList": (True, "GA", True),
    "DRAResourceClaimDeviceStatus": (True, "GA", True),
    "DRASchedulerFilterTimeout": (True, "Beta", False),
    "ClearingNominatedNodeNameAfterBinding": (True, "Beta", False),
    "DRAWorkloadResourceClaims": (False, "Beta", False),
    "DynamicResourceAllocation": (True, "GA", True),
    "GenericWorkload": (False, "Beta", False),
    "InPlacePodLevelResourcesVerticalScaling": (True, "Beta", False),
    "InPlacePodVerticalScaling": (True, "GA", True),
    "InPlacePodVerticalScalingSchedulerPreemption": (False, "Alpha", False),
    "InterPodAffinityHostnameFastPath": (False, "Alpha", False),
    "MatchLabelKeysInPodTopologySpread": (True, "Beta", False),
    "NodeDeclaredFeatures": (True, "GA", True),
    "NodeInclusionPolicyInPodTopologySpread": (True, "GA", True),
    "NominatedNodeNameForExpectation": (True, "Beta", False),
    "OpportunisticBatching": (True, "Beta", False),
    "PodGroupPreemptionPolicy": (False, "Alpha", False),
    "PodLevelResources": (True, "Beta", False),
    # an API server gate: the PodTopologyLabels admission and the binding storage (kschedlab.api.binding)
    "PodTopologyLabelsAdmission": (True, "Beta", False),
    "SchedulerAsyncAPICalls": (False, "Beta", False),
    "SchedulerAsyncPreemption": (True, "Beta", False),
    "SchedulerPopFromBackoffQ": (True, "Beta", False),
    "SchedulerPreQueueingHints": (False, "Alpha", False),
    "StorageCapacityScoring": (True, "Beta", False),
    "TaintTolerationComparisonOperators": (False, "Alpha", False),
    "TopologyAwareWorkloadScheduling": (False, "Alpha", False),
    "VolumeAttributesClass": (True, "GA", True),
    "VolumeLimitScaling": (True, "Beta", False),
}


class FeatureGateError(ValueError):
    """An unknown gate, a malformed flag, or an attempt to change a locked gate."""


@dataclass(frozen=True)
class FeatureGates:
    """An immutable set of gate values; unknown names are refused."""

    overrides: Mapping[str, bool] = field(default_factory=dict)
    #: allow changing gates locked at v1.37 (as upstream tests do by emulating an older version)
    emulate_older: bool = False

    def __post_init__(self) -> None:
        for name, value in self.overrides.items():
            if name not in DEFAULTS_V1_37:
                raise FeatureGateError(f"unrecognized feature gate: {name}")
            default, _, locked = DEFAULTS_V1_37[name]
            if locked and value != default and not self.emulate_older:
                raise FeatureGateError(
                    f"cannot set feature gate {name} to {str(value).lower()}, "
                    f"feature is locked to {str(default).lower()}")

    def enabled(self, name: str) -> bool:
        if name not in DEFAULTS_V1_37:
            raise FeatureGateError(f"unrecognized feature gate: {name}")
        return self.overrides.get(name, DEFAULTS_V1_37[name][0])

    def with_overrides(self, values: Mapping[str, bool]) -> "FeatureGates":
        return FeatureGates({**self.overrides, **values}, self.emulate_older)

    def as_dict(self) -> dict[str, bool]:
        return {name: self.enabled(name) for name in DEFAULTS_V1_37}

    @staticmethod
    def parse_flag(text: str) -> dict[str, bool]:
        """Parse ``--feature-gates`` syntax: ``Name=true,Other=false``."""
        values: dict[str, bool] = {}
        for item in filter(None, (part.strip() for part in text.split(","))):
            name, sep, raw = item.partition("=")
            if not sep or raw.lower() not in ("true", "false"):
                raise FeatureGateError(f"invalid value of {item}: must be Name=true|false")
            values[name.strip()] = raw.lower() == "true"
        return values
