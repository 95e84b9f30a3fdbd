"""PodGroupPodsCount: prefer the placement that takes more of the group's pods
(PlacementScore; TopologyAwareWorkloadScheduling, weight 1 in the default profile).

Raw score: the group's already scheduled pods (assumed or bound; summed over every leaf
PodGroup of a CompositePodGroup) plus the pods the placement would place. Normalized as
``score * 100 // max`` over the candidates (minCount is deliberately not used), so
counts 6, 8 and 8 become 75, 100 and 100.

>>> plugin = PodGroupPodsCount()
>>> scores = [6, 8, 8]
>>> plugin.normalize_placement_score({}, None, scores), scores
(None, [75, 100, 100])
"""

from __future__ import annotations

from kschedlab.framework.interface import MAX_NODE_SCORE, MIN_NODE_SCORE, Plugin, register
from kschedlab.framework.status import Status

NAME = "PodGroupPodsCount"


@register
class PodGroupPodsCount(Plugin):
    name = NAME

    def score_placement(self, state, group, assignments) -> tuple[int, Status]:
        scheduled = len(group.scheduled_pod_keys(self.handle.cluster))
        return scheduled + len(assignments.proposed), Status()

    def normalize_placement_score(self, state, group, scores: list[int]) -> Status | None:
        top = max(scores, default=0)
        if top == 0:
            return Status.error("no pods from pod group are assigned to any of the candidate placements")
        for i, value in enumerate(scores):
            scores[i] = MIN_NODE_SCORE + value * (MAX_NODE_SCORE - MIN_NODE_SCORE) // top
        return None
