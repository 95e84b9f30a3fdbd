"""Putting figures and tables into ipywidgets without printing to the cell.

The explorers write their figure into an ``ipywidgets.Output`` by setting its
``outputs`` directly instead of ``with out: fig.show()``: nothing is
published on the cell's output stream, so a notebook shows the same cell
output whether it runs in JupyterLab, ``nbconvert --execute`` or
``pytest --nbval``.

>>> import plotly.graph_objects as go
>>> sorted(figure_bundle(go.Figure(layout={"title": "t"})))
['application/vnd.plotly.v1+json', 'text/plain']
"""

from __future__ import annotations

import json

import plotly.io as pio

from kschedlab.viz.common import esc


def figure_bundle(fig) -> dict:
    """The MIME bundle JupyterLab / VS Code render a plotly figure from (no HTML, no scripts)."""
    title = fig.layout.title.text or "figure"
    return {"application/vnd.plotly.v1+json": json.loads(pio.to_json(fig, validate=False)),
            "text/plain": f"<plotly figure: {title}>"}


def set_figure(output, fig) -> None:
    """Replace what ``output`` (an ``ipywidgets.Output``) shows with ``fig``."""
    output.outputs = ({"output_type": "display_data", "data": figure_bundle(fig), "metadata": {}},)


def table_html(df, caption: str = "") -> str:
    """A DataFrame as an escaped HTML table with an escaped caption, in the look of the notebooks'
    own tables (:func:`kschedlab.viz.table_style.table_html`)."""
    from kschedlab.viz.table_style import table_html as styled_html

    head = f"<p><b>{esc(caption)}</b></p>" if caption else ""
    # a table wider than the output area scrolls inside it instead of running past its edge
    return head + f"<div style='overflow-x:auto;max-width:100%'>{styled_html(df, uuid='widget')}</div>"


def pre(text: str) -> str:
    """Text in a ``<pre>`` block, escaped."""
    return f"<pre style='margin:0'>{esc(text)}</pre>"


def set_quietly(control, value, callback, *, options=None) -> None:
    """Set ``control.value`` without calling ``callback``, the control's observer (a widget's
    ``set()`` changes several controls this way, then redraws once). ``options``: new choices of
    a selection control, set first (quietly too).

    >>> import ipywidgets as widgets
    >>> seen = []
    >>> slider = widgets.IntSlider(value=1)
    >>> slider.observe(seen.append, names="value")
    >>> set_quietly(slider, 5, seen.append)
    >>> slider.value, seen
    (5, [])
    >>> slider.value = 6
    >>> len(seen)
    1
    >>> menu = widgets.Dropdown(options=["a", "b"])
    >>> menu.observe(seen.append, names="value")
    >>> set_quietly(menu, "d", seen.append, options=["c", "d"])
    >>> menu.options, menu.value, len(seen)
    (('c', 'd'), 'd', 1)
    """
    control.unobserve(callback, names="value")
    try:
        if options is not None:
            control.options = options
        control.value = value
    finally:
        control.observe(callback, names="value")
