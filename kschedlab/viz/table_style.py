"""Styled tables for the course: one look for every DataFrame a notebook shows.

:func:`styled` turns a DataFrame into a pandas ``Styler``: a light header, zebra rows, numbers
right-aligned in tabular figures, floats without trailing zeros, true / false written as yes / no, a
missing value as ``–``, text escaped, and the row a table marks as the answer (a true ``chosen`` column: the node the scheduler picked) in bold on a light blue band.
:func:`use_styled_tables` makes every DataFrame a notebook displays go through :func:`styled`,
so a notebook asks for it once, in its first cell.

Each table gets an id counted from the call to :func:`use_styled_tables` (``ks-1``, ``ks-2``...):
its CSS applies to it alone, and a notebook run top to bottom writes the same HTML every time
(nbval compares it).

>>> import pandas as pd
>>> table = pd.DataFrame({"node": ["a", "b"], "score": [37.5, 50.0], "chosen": [False, True]}).set_index("node")
>>> html = styled(table, uuid="doc").to_html()
>>> "37.5" in html and "50" in html and "50.000000" not in html
True
>>> from kschedlab.viz.palette import BLUES
>>> f"background-color: {BLUES[1]}" in html  # the band under the chosen row
True
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from kschedlab.viz.palette import BLUES

__all__ = ["styled", "use_styled_tables", "format_number", "format_cell", "yes_no", "table_html"]

#: columns whose true value marks the row a table is about
MARK_COLUMNS = ("chosen",)

_HEADER = [("background-color", "#f2f2f2"), ("font-weight", "600"), ("text-align", "left"),
           ("padding", "4px 8px"), ("border-bottom", "1px solid #999999")]
_CELL = [("padding", "3px 8px"), ("border-bottom", "1px solid #e6e6e6")]
_TABLE_STYLES = [
    {"selector": "", "props": [("border-collapse", "collapse"), ("font-size", "12.5px")]},
    {"selector": "thead th", "props": _HEADER},
    {"selector": "tbody th", "props": [("text-align", "left"), ("font-weight", "600"), ("white-space", "nowrap"),
                                       *_CELL]},
    {"selector": "td", "props": [("text-align", "left"), *_CELL]},
    {"selector": "tbody tr:nth-child(even)", "props": [("background-color", "#fafafa")]},
    {"selector": "caption", "props": [("caption-side", "top"), ("text-align", "left"), ("font-weight", "600"),
                                      ("padding-bottom", "4px")]},
]
_NUMBER = [("text-align", "right"), ("font-variant-numeric", "tabular-nums")]
#: how a missing value (NaN, None, pd.NA) is shown
MISSING = "–"
_MARKED = f"background-color: {BLUES[1]}; font-weight: bold"


def format_number(value) -> str:
    """A float as a reader writes it: at most four decimals, no trailing zeros; anything else as ``str``.

    >>> [format_number(v) for v in (37.5, 50.0, 2 / 3, 1e-7, 12, "1Gi", float("nan"))]
    ['37.5', '50', '0.6667', '1e-07', '12', '1Gi', 'nan']
    """
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return str(value)
        if value != 0 and abs(value) < 1e-4:
            return f"{value:.3g}"
        text = f"{value:.4f}".rstrip("0").rstrip(".")
        return "0" if text == "-0" else text
    return str(value)


def yes_no(value) -> str:
    """A true / false value as the course writes it, in every table (HTML, text, widgets).

    >>> import numpy as np
    >>> yes_no(True), yes_no(np.bool_(False))
    ('yes', 'no')
    """
    return "yes" if value else "no"


def format_cell(value) -> str:
    """A table cell as the course writes it: true / false as yes / no, numbers by :func:`format_number`.

    >>> import numpy as np
    >>> [format_cell(v) for v in (True, np.bool_(False), 2.50, "web-0")]
    ['yes', 'no', '2.5', 'web-0']
    """
    if isinstance(value, (bool, np.bool_)):
        return yes_no(value)
    return format_number(value)


def _words(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with its booleans written as yes / no, for pandas' own HTML (repeated labels)."""
    return table.map(lambda v: format_cell(v) if isinstance(v, (bool, np.bool_)) else v)


def _mark_rows(table: pd.DataFrame) -> pd.DataFrame:
    marks = pd.DataFrame("", index=table.index, columns=table.columns)
    for column in MARK_COLUMNS:
        if column in table.columns and table[column].dtype == bool:
            marks.loc[table[column].to_numpy()] = _MARKED
    return marks


def styled(table: pd.DataFrame, *, caption: str | None = None, uuid: str | None = None):
    """``table`` as a pandas ``Styler`` in the course's look (see the module docstring).

    ``uuid`` fixes the table's HTML id (pandas draws a random one otherwise); ``caption`` is shown
    above the table.
    """
    numeric = [c for c in table.columns if pd.api.types.is_numeric_dtype(table[c]) and table[c].dtype != bool]
    styler = (table.style.format(format_cell, na_rep=MISSING, escape="html")
              .format_index(escape="html", axis=0).format_index(escape="html", axis=1)
              .set_table_styles(_TABLE_STYLES))
    if uuid is not None:
        styler = styler.set_uuid(uuid)
    if numeric:
        per_column = {c: [{"selector": "td", "props": _NUMBER}, {"selector": "th", "props": _NUMBER[:1]}]
                      for c in numeric}
        styler = styler.set_table_styles(per_column, overwrite=False)
    if any(c in table.columns for c in MARK_COLUMNS):
        marks = _mark_rows(table)
        styler = styler.apply(lambda _: marks, axis=None)
        if table.index.nlevels == 1:
            styler = styler.apply_index(lambda _: marks.iloc[:, 0].to_numpy(), axis=0)
    if caption:
        styler = styler.set_caption(caption)
    return styler


def table_html(table: pd.DataFrame, *, caption: str | None = None, uuid: str | None = None) -> str:
    """``table`` as standalone HTML in the course's look, for widgets and the HTML report.

    The same :func:`styled` table a notebook shows, with the index's name in the header's corner
    (one header row, not two) and a plain row count hidden.

    >>> table = pd.DataFrame({"node": ["a", "b"], "score": [1.5, None], "chosen": [False, True]}).set_index("node")
    >>> html = table_html(table, uuid="doc")
    >>> html.count("<tr"), "yes" in html, "True" in html, "–" in html, "&lt;NA&gt;" in html
    (3, True, False, True, False)
    """
    if table.index.nlevels == 1 and table.index.name is not None and table.columns.nlevels == 1:
        table = table.rename_axis(index=None, columns=str(table.index.name))  # its name in the corner cell
    if not (table.index.is_unique and table.columns.is_unique):  # Styler cannot style repeated labels
        return _words(table).to_html(escape=True, na_rep=MISSING, border=0,
                                     index=not isinstance(table.index, pd.RangeIndex))
    styler = styled(table, caption=caption, uuid=uuid)
    if isinstance(table.index, pd.RangeIndex):
        styler = styler.hide(axis="index")
    return styler.to_html()


def _html(table: pd.DataFrame, uuid: str) -> str:
    """The HTML a notebook shows for ``table``: styled; a long table shows its first rows and says so."""
    if not (table.index.is_unique and table.columns.is_unique):
        return _words(table)._repr_html_()  # Styler cannot style repeated labels: pandas' own table
    caption = None
    if len(table) > pd.get_option("display.max_rows"):
        caption = f"first {pd.get_option('display.min_rows')} of {len(table)} rows"
        table = table.head(pd.get_option("display.min_rows"))
    return styled(table, uuid=uuid, caption=caption).to_html(max_columns=pd.get_option("display.max_columns"))


def use_styled_tables(shell=None) -> None:
    """Show every DataFrame in this IPython session as :func:`styled` HTML, with ids ``ks-1``, ``ks-2``...

    The plain-text form of a DataFrame is left as it is. Calling it again restarts the count.
    Outside IPython (no shell) it does nothing.

    >>> use_styled_tables()  # a plain Python session: nothing to do
    """
    if shell is None:
        from IPython import get_ipython

        shell = get_ipython()
    if shell is None:
        return
    numbers = itertools.count(1)
    formatter = shell.display_formatter.formatters["text/html"]
    formatter.for_type(pd.DataFrame, lambda table: _html(table, f"ks-{next(numbers)}"))
