"""NodeResourcesBalancedAllocation: prefer nodes whose resource usage fractions,
with the pod placed, stay close to each other (low standard deviation)."""

import numpy as np

from kschedlab.api.resources import CPU, MEMORY
from kschedlab.framework.interface import ArgsError, FieldError, Plugin, register
from kschedlab.framework.status import Status
from kschedlab.plugins import resource_allocation as ra

NAME = "NodeResourcesBalancedAllocation"


def default_balanced_args(raw: dict) -> dict:
    """v1 defaulting: cpu and memory when no resources are listed, weight 0 becomes 1."""
    raw = dict(raw or {})
    raw["resources"] = ra.default_resource_specs(raw.get("resources"))
    return raw


@register
class NodeResourcesBalancedAllocation(Plugin):
    name = NAME
    default_args = staticmethod(default_balanced_args)

    @classmethod
    def parse_args(cls, raw, handle=None):
        raw = raw or {}
        resources = raw.get("resources")
        if resources is None:
            return [(CPU, 1), (MEMORY, 1)]
        parsed = [(r.get("name", ""), int(r.get("weight", 0))) for r in resources]
        errors, seen = [], set()
        for i, (name, weight) in enumerate(parsed):
            if name in seen:
                errors.append(FieldError("FieldValueDuplicate", f"resources[{i}].name", name))
            seen.add(name)
            if weight != 1:
                errors.append(FieldError("FieldValueInvalid", f"resources[{i}].weight", "must be 1"))
        if errors:
            raise ArgsError(NAME, errors)
        return parsed

    def __init__(self, args=None, handle=None):
        super().__init__(args or [(CPU, 1), (MEMORY, 1)], handle)
        self.scorer = ra.ResourceAllocationScorer(self.args, ra.balanced_allocation, use_requested=True)

    def sign_pod(self, pod_info):
        """Signature: the pod's requests; unsignable while DRAExtendedResource is on."""
        return ra.sign_resources(self.handle, pod_info)

    def pre_score(self, state, pod_info, snapshot, rows) -> Status:
        requests = self.scorer.requests_of(pod_info)
        if not any(requests):
            return Status.skip()
        state[NAME] = requests
        state[NAME + "/dra"] = ra.dra_extended_totals(self.handle, self.scorer.names)
        return Status()

    def score_nodes(self, state, pod_info, snapshot, rows: np.ndarray) -> np.ndarray:
        requests = state.get(NAME) or self.scorer.requests_of(pod_info)
        if not any(requests):
            return np.zeros(len(rows), np.int64)
        dra = state[NAME + "/dra"] if NAME + "/dra" in state else ra.dra_extended_totals(self.handle, self.scorer.names)
        return self.scorer.score(requests, snapshot, rows, dra)
