"""ipywidgets explorers built on :mod:`kschedlab.viz`.

The widgets only connect controls to library functions
(:func:`kschedlab.viz.calc.what_if`, the figures); every number they show can
be computed without them.

>>> from kschedlab.widgets import ShapeEditor
>>> ShapeEditor([(0, 10), (100, 0)]).score_at(25)
75
"""

from kschedlab.widgets.cluster_view import ClusterView
from kschedlab.widgets.explorer import ScoreExplorer
from kschedlab.widgets.preemption import PreemptionExplorer
from kschedlab.widgets.shape_editor import ShapeEditor
from kschedlab.widgets.spread_explorer import SpreadExplorer

__all__ = ["ClusterView", "PreemptionExplorer", "ScoreExplorer", "ShapeEditor", "SpreadExplorer"]

from kschedlab.widgets.gang import GangExplorer  # noqa: E402

__all__ += ["GangExplorer"]
from kschedlab.widgets.overhead import OverheadExplorer  # noqa: E402

__all__ += ["OverheadExplorer"]
from kschedlab.widgets.node_pressure import EvictionRankingExplorer  # noqa: E402

__all__ += ["EvictionRankingExplorer"]
from kschedlab.widgets.node_declared_features import DeclaredFeaturesExplorer  # noqa: E402

__all__ += ["DeclaredFeaturesExplorer"]
from kschedlab.widgets.label_keys import LabelKeysExplorer  # noqa: E402

__all__ += ["LabelKeysExplorer"]
from kschedlab.widgets.sweep_explorer import SweepExplorer  # noqa: E402

__all__ += ["SweepExplorer"]
from kschedlab.widgets.packing_explorer import PackingExplorer  # noqa: E402

__all__ += ["PackingExplorer"]
from kschedlab.widgets.allocatable import AllocatableExplorer  # noqa: E402

__all__ += ["AllocatableExplorer"]
