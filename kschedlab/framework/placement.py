"""Placements: the candidate node sets the PodGroup scheduling algorithm tries a group in
(upstream ``fwk.Placement``, ``fwk.PodGroupAssignments``).

A placement is a name and the snapshot rows of its nodes; the root placement holds every
node. ``PlacementGenerate`` plugins split a parent placement into candidates (e.g. one per
value of a topology key), the default algorithm runs inside each, and ``PlacementScore``
plugins rank the feasible ones by their proposed assignments.

>>> import numpy as np
>>> p = Placement("rack-a", np.array([0, 2]))
>>> p, len(p)
(Placement('rack-a', 2 nodes), 2)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["Placement", "PodGroupAssignments", "ROOT"]

#: name of the placement holding every node of the snapshot
ROOT = "<all nodes>"


@dataclass(eq=False)
class Placement:
    """A candidate node set: ``rows`` are snapshot rows, in snapshot order (the scheduler
    walks them in that order, as it walks the whole snapshot)."""

    name: str
    rows: np.ndarray

    def __len__(self) -> int:
        return len(self.rows)

    def __repr__(self) -> str:
        return f"Placement({self.name!r}, {len(self.rows)} nodes)"

    def node_names(self, snapshot) -> list[str]:
        return [snapshot.names[int(r)] for r in self.rows]

    @classmethod
    def all_nodes(cls, snapshot) -> "Placement":
        return cls(ROOT, np.asarray(snapshot.order, np.int64))


@dataclass
class PodGroupAssignments:
    """The pods a feasible placement would place: ``proposed`` is ``[(pod_info, node), ...]``
    over every leaf PodGroup of the scored group (its own pods for a PodGroup)."""

    placement: Placement
    proposed: list = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.placement.name
