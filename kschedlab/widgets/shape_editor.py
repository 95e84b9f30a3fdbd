"""ShapeEditor: edit a RequestedToCapacityRatio shape and see the function
kube-scheduler builds from it.

>>> ed = ShapeEditor()
>>> ed.points
[(0, 0), (100, 10)]
>>> ed.set(text="0:10, 100:0", utilization=30).score_at()
70
>>> ed.set(text="0:0, 100:11").points, ed.error
([(0, 10), (100, 0)], 'invalid shape: scoringStrategy.shape[1].score: FieldValueInvalid: not in valid range [0, 10]')
>>> ed
ShapeEditor(points=[(0, 10), (100, 0)], scale=10)
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from kschedlab.plugins.helper import FunctionShapePoint, build_broken_linear_function
from kschedlab.viz.calc import CURRENT_SCALE, LEGACY_SCALE, SHAPE_PRESETS, parse_shape, shape_errors, shape_yaml
from kschedlab.viz.common import esc
from kschedlab.viz.figures import shape_function
from kschedlab.widgets._display import pre, set_figure, set_quietly

__all__ = ["ShapeEditor"]

_CUSTOM = "custom"


def _fmt(points) -> str:
    return ", ".join(f"{u}:{s}" for u, s in points)


class ShapeEditor(widgets.VBox):
    """A preset menu, the shape as ``utilization:score`` pairs, a utilization
    slider to read one value off the curve, the score scale (0-100 as the
    plugin returns today, or the legacy 0-10), the curve and the YAML to paste
    into NodeResourcesFitArgs.  ``points`` is the last valid shape; ``error``
    the validation message of the text, if any.
    """

    def __init__(self, points=((0, 0), (100, 10)), *, utilization: int = 50, score_scale: int = CURRENT_SCALE):
        self.points = [tuple(p) for p in points]
        self.error = ""
        style = {"description_width": "110px"}
        wide = widgets.Layout(width="520px")
        self.preset = widgets.Dropdown(options=[_CUSTOM, *SHAPE_PRESETS], value=_CUSTOM, description="preset",
                                       style=style, layout=wide)
        self.text = widgets.Text(value=_fmt(self.points), description="shape u:s", continuous_update=False,
                                 style=style, layout=wide)
        self.utilization = widgets.IntSlider(value=utilization, min=0, max=100, description="utilization %",
                                             continuous_update=False, style=style, layout=wide)
        self.scale = widgets.ToggleButtons(options=[("0-100 (today)", CURRENT_SCALE), ("0-10 (legacy)", LEGACY_SCALE)],
                                           value=score_scale, description="score scale", style=style)
        self.status = widgets.HTML()
        self.figure = widgets.Output()
        self.yaml = widgets.HTML()
        super().__init__(children=[self.preset, self.text, self.utilization, self.scale, self.status, self.figure,
                                   self.yaml])
        self.add_class("kschedlab-ShapeEditor")  # a handle for the browser test
        self.preset.observe(self._on_preset, names="value")
        for control in (self.text, self.utilization, self.scale):
            control.observe(self.update, names="value")
        self.update()

    def _on_preset(self, change):
        if change["new"] != _CUSTOM:
            self.text.value = _fmt(SHAPE_PRESETS[change["new"]])

    def set(self, *, text: str | None = None, utilization: int | None = None,
            score_scale: int | None = None) -> "ShapeEditor":
        """Set controls and redraw once (for scripts and tests)."""
        controls = [(self.text, text), (self.utilization, utilization), (self.scale, score_scale)]
        for control, value in controls:
            if value is not None:
                set_quietly(control, value, self.update)
        self.update()
        return self

    def score_at(self, utilization: int | None = None) -> int:
        """The score the current shape gives at ``utilization`` (default: the slider), on the chosen scale."""
        u = self.utilization.value if utilization is None else utilization
        fn = build_broken_linear_function([FunctionShapePoint(p, s * self.scale.value) for p, s in self.points])
        return int(fn(np.int64(u)))

    def update(self, *_):
        """Validate the text; when valid, adopt it and redraw the curve and the YAML."""
        try:
            points = parse_shape(self.text.value)
            errors = shape_errors(points)
            if errors:
                raise ValueError("invalid shape: " + "; ".join(errors))
        except ValueError as err:
            self.error = str(err)
            self.status.value = f"<span style='color:#D55E00'>{esc(err)}</span> (showing the last valid shape)"
            return
        self.error = ""
        self.points = points
        u = self.utilization.value
        self.status.value = (f"utilization {u}% → score <b>{self.score_at()}</b> "
                             f"(of {10 * self.scale.value})")
        set_figure(self.figure, shape_function(points, {f"{u}%": u}, score_scale=self.scale.value))
        self.yaml.value = pre(shape_yaml(points))

    def __repr__(self) -> str:
        return f"ShapeEditor(points={self.points}, scale={self.scale.value})"
