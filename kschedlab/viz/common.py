"""Small helpers shared by the figures, the report and the widgets.

>>> esc("<script>alert('x')</script>")
'&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;'
>>> plugin_color("NodeResourcesFit")
'#0072B2'
>>> human(1536 * 2**20, "memory"), human(1500, "cpu"), human(3, "nvidia.com/gpu")
('1.5Gi', '1.5', '3')
"""

from __future__ import annotations

import html

import numpy as np

from kschedlab.api.quantity import short_bytes
from kschedlab.api.resources import CPU, EPHEMERAL_STORAGE, MEMORY

#: Every figure uses this template explicitly, so output never depends on
#: ``plotly.io.templates.default``.
TEMPLATE = "plotly_white"

#: A fixed colour per in-tree Score plugin, so a plugin looks the same in every figure.
PLUGIN_COLORS = {
    "NodeResourcesFit": "#0072B2",
    "NodeResourcesBalancedAllocation": "#E69F00",
    "TaintToleration": "#009E73",
    "NodeAffinity": "#D55E00",
    "ImageLocality": "#CC79A7",
    "PodTopologySpread": "#882255",
    "InterPodAffinity": "#332288",
    "VolumeBinding": "#999999",
    "DynamicResources": "#999933",
}
_EXTRA_COLORS = ("#56B4E9", "#77AADD", "#EE8866", "#44BB99", "#FFAABB", "#99DDFF", "#BBCC33")

PASSED_COLOR = "#56B4E9"
REJECTED_COLOR = "#D55E00"
NOT_RUN_COLOR = "#e0e0e0"
CHOSEN_COLOR = "#F0E442"


def esc(value) -> str:
    """``html.escape`` of ``str(value)`` (quotes too): for every user string that reaches HTML or a figure."""
    return html.escape(str(value), quote=True)


def plugin_color(name: str, index: int = 0) -> str:
    """The fixed colour of plugin ``name`` (a palette colour by ``index`` for other plugins)."""
    return PLUGIN_COLORS.get(name) or _EXTRA_COLORS[index % len(_EXTRA_COLORS)]


def live_rows(snapshot) -> list[int]:
    """Rows of the nodes currently in ``snapshot``, in the order they were added."""
    return sorted(snapshot.index.values())



def unit_of(resource: str) -> tuple[float, str]:
    """(divisor, axis label) to show ``resource`` in: cores, GiB or plain counts."""
    if resource == CPU:
        return 1000.0, "cores"
    if resource in (MEMORY, EPHEMERAL_STORAGE) or resource.startswith("hugepages-"):
        return float(2**30), "GiB"
    return 1.0, "count"


def human(value: int, resource: str) -> str:
    """A scheduler-unit integer (millicores, bytes, counts) as a short readable quantity."""
    value = int(value)
    if resource == CPU:
        return f"{value / 1000:g}"
    if resource in (MEMORY, EPHEMERAL_STORAGE) or resource.startswith("hugepages-"):
        return short_bytes(value)
    return str(value)


def as_int_list(values) -> list[int]:
    """Plain Python ints (figures then serialise as readable JSON lists, not base64 arrays)."""
    return [int(v) for v in np.asarray(values).tolist()]


def people_table(frame) -> str:
    """A DataFrame as plain text for people: no index, and ``-`` where a value is missing
    (never ``NaN`` or ``None``).

    >>> import pandas as pd
    >>> print(people_table(pd.DataFrame({"pod": ["a", "b"], "node": ["n1", None], "at": [1.5, float("nan")]})))
    pod node  at
      a   n1 1.5
      b    -   -
    """
    shown = frame.astype(object).where(frame.notna(), "-")
    return shown.to_string(index=False)
