"""ClaimEditor: edit a one-request ResourceClaim (device class, count, CEL selector), allocate it
on a node with :func:`kschedlab.viz.dra.try_claim` and see the devices it gets, why the others
were refused and the allocator's search tree.

>>> from pathlib import Path
>>> from kschedlab.viz.dra import dra_cluster
>>> data = Path(__file__).resolve().parents[2] / "datasets"
>>> cluster, _ = dra_cluster(data / "dra" / "08-prioritized-list.yaml",
...                          data / "dra-scheduling" / "prioritized-list-cluster.yaml")
>>> ed = ClaimEditor(cluster, "node-white", "resource.example.com")
>>> ed.last.devices
['small-white-0']
>>> ed.set(count=3).last.message
'cannot allocate: 3 device(s) asked, the search found no solution'
>>> ed.set(count=1, selector='device.attributes["resource-driver.example.com"].color == "black"').last.trace.rejections()
{'selector false': 2}
>>> ed
ClaimEditor(node='node-white', class='resource.example.com', count=1, selector='device.attributes["resource-driver.example.com"].color == "black"')

BindingWaitExplorer: when the driver of the seed's fabric-attached GPU reports the device ready,
and the scheduler's ``bindingTimeout``; shows when PreBind's wait ends (polls every 5 s).

>>> bw = BindingWaitExplorer(ready_at=32, timeout=60)
>>> bw.last
('bound', 35.0)
>>> bw.set(ready_at=70).last
('failed', 60.0)
"""

from __future__ import annotations

import ipywidgets as widgets

from kschedlab.viz.common import esc
from kschedlab.viz.dra import ClaimTry, search_tree_figure, try_claim
from kschedlab.viz.dra_sim import binding_outcome
from kschedlab.widgets._display import set_figure

__all__ = ["ClaimEditor", "BindingWaitExplorer"]


class ClaimEditor(widgets.VBox):
    """A node dropdown, a count slider and a selector text box for a claim of ``device_class``;
    every change re-runs the allocator on the cluster (which is not changed) and shows the
    outcome, the rejection reasons and the search tree. ``last`` is the latest :class:`ClaimTry`."""

    def __init__(self, cluster, node: str, device_class: str, *, count: int = 1, selector: str = "",
                 max_count: int = 4):
        self.cluster = cluster
        self.device_class = device_class
        style = {"description_width": "90px"}
        self.node = widgets.Dropdown(options=sorted(cluster.nodes), value=node, description="node", style=style)
        self.count = widgets.IntSlider(value=count, min=1, max=max_count, description="count",
                                       continuous_update=False, style=style, layout=widgets.Layout(width="420px"))
        self.selector = widgets.Textarea(value=selector, description="CEL selector", style=style,
                                         layout=widgets.Layout(width="720px", height="60px"),
                                         continuous_update=False)
        self.summary = widgets.HTML()
        self.figure = widgets.Output()
        self.last: ClaimTry | None = None
        for w in (self.node, self.count, self.selector):
            w.observe(lambda _change: self._update(), names="value")
        super().__init__([self.node, self.count, self.selector, self.summary, self.figure])
        self._update()

    def set(self, *, node: str | None = None, count: int | None = None, selector: str | None = None) -> "ClaimEditor":
        """Change the controls from code (as a user would) and return the editor."""
        with self.hold_trait_notifications():
            if node is not None:
                self.node.value = node
            if count is not None:
                self.count.value = count
            if selector is not None:
                self.selector.value = selector
        self._update()
        return self

    def _update(self) -> None:
        self.last = attempt = try_claim(self.cluster, self.node.value, self.device_class, self.count.value,
                                        self.selector.value)
        reasons = ", ".join(f"{k}: {v}" for k, v in attempt.trace.rejections().items())
        if not reasons:
            reasons = ("none" if attempt.devices else
                       "none: no device was turned down, there are fewer candidate devices than the count asks for")
        self.summary.value = (f"<pre>{esc(attempt.message)}\nrejections: {esc(reasons)}</pre>")
        if attempt.trace.rows:
            set_figure(self.figure, search_tree_figure(attempt.trace, title=f"search on {self.node.value}"))
        else:
            self.figure.outputs = ()

    def __repr__(self) -> str:
        return (f"ClaimEditor(node={self.node.value!r}, class={self.device_class!r}, count={self.count.value}, "
                f"selector={self.selector.value!r})")


class BindingWaitExplorer(widgets.VBox):
    """Two sliders, the driver's ready time and ``bindingTimeout`` (seconds), over the seed's
    binding-conditions scenario; each change re-runs the simulation and shows whether the pod was
    bound or PreBind gave up, and when. ``last`` is ``(outcome, time)``."""

    def __init__(self, *, ready_at: int = 32, timeout: int = 60):
        style = {"description_width": "150px"}
        wide = widgets.Layout(width="560px")  # a track long enough to aim at one second
        self.ready_at = widgets.IntSlider(value=ready_at, min=1, max=120, description="driver ready at (s)",
                                          continuous_update=False, style=style, layout=wide)
        self.timeout = widgets.IntSlider(value=timeout, min=5, max=120, step=5, description="bindingTimeout (s)",
                                         continuous_update=False, style=style, layout=widgets.Layout(width="560px"))
        self.summary = widgets.HTML()
        self.last: tuple[str, float] | None = None
        for w in (self.ready_at, self.timeout):
            w.observe(lambda _change: self._update(), names="value")
        super().__init__([self.ready_at, self.timeout, self.summary])
        self._update()

    def set(self, *, ready_at: int | None = None, timeout: int | None = None) -> "BindingWaitExplorer":
        """Move the sliders from code and return the explorer."""
        with self.hold_trait_notifications():
            if ready_at is not None:
                self.ready_at.value = ready_at
            if timeout is not None:
                self.timeout.value = timeout
        self._update()
        return self

    def _update(self) -> None:
        self.last = outcome, at = binding_outcome(ready_at=self.ready_at.value, timeout=f"{self.timeout.value}s")
        text = (f"bound to node-3 at {at:g} s" if outcome == "bound" else
                f"PreBind gave up at {at:g} s: device binding timeout")
        self.summary.value = f"<pre>{esc(text)}</pre>"

    def __repr__(self) -> str:
        return f"BindingWaitExplorer(ready_at={self.ready_at.value}, timeout={self.timeout.value}, last={self.last})"
