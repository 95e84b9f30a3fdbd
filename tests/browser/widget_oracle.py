"""What the library shows in a notebook's widget after one change of one control, for the
JupyterLab test (tests/browser/test_course_in_jupyterlab.py) to compare with the page.

Run as ``python -m tests.browser.widget_oracle NOTEBOOK.ipynb`` (from the repository root): it
executes the notebook's code cells in this process, in the notebook's folder. Each cell whose value
is a widget is tried once the last cell naming that widget has run (a later cell may move it, as
the page's Run All does): the first widget one of whose controls changes its HTML text is the one
reported, in one JSON object:

- ``cell``: the index of the cell showing it (markdown cells counted);
- ``before``: the text of each HTML view of the widget, in tree order;
- ``control``: the first control on screen (in tree order; not on a tab's other pages) whose
  change alters that text: ``kind`` (``slider``,
  ``dropdown``, ``checkbox``, ``toggle`` or ``button``), ``index`` (among the widget's controls of
  that kind), ``value`` (the number, or the option's label, set; None for a checkbox or a button:
  it is clicked);
- ``after``: the text of each HTML view once that control holds that value.

When no widget has such a control, ``control`` is null (and ``cell`` the first widget's, or null).
Texts are compared without whitespace (the page lays out tables with tabs and newlines).
"""

from __future__ import annotations

import ast
import json
import os
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

import ipywidgets as widgets
import nbformat


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        self._skip += tag in ("style", "script")

    def handle_endtag(self, tag):
        self._skip -= tag in ("style", "script") and self._skip > 0

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def html_text(markup: str) -> str:
    """The text of ``markup`` without any whitespace and without its style sheets (what the page's
    ``textContent`` holds once its ``<style>`` elements are dropped).

    >>> html_text("<style>td {x: 1}</style><table><tr><td>a b</td><td>&lt;c&gt;</td></tr></table>")
    'ab<c>'
    """
    parser = _Text()
    parser.feed(markup)
    parser.close()
    return "".join("".join(parser.parts).split())


def descendants(widget) -> list:
    """``widget`` and every widget inside it (boxes, tabs), depth first, in display order."""
    out = [widget]
    for child in getattr(widget, "children", ()) or ():
        out += descendants(child)
    return out


def shown(widget, visible: bool = True) -> list[tuple[object, bool]]:
    """:func:`descendants` with whether each is on screen: a tab's (or an accordion's) other
    pages, and a widget whose layout says ``display: none``, are not."""
    visible = visible and getattr(getattr(widget, "layout", None), "display", None) != "none"
    out = [(widget, visible)]
    pages = isinstance(widget, (widgets.Tab, widgets.Accordion, widgets.Stack))
    for i, child in enumerate(getattr(widget, "children", ()) or ()):
        out += shown(child, visible and (not pages or i == widget.selected_index))
    return out


def texts(widget) -> list[str]:
    return [html_text(w.value) for w in descendants(widget) if type(w) is widgets.HTML]


KINDS = {widgets.IntSlider: "slider", widgets.Dropdown: "dropdown", widgets.Checkbox: "checkbox",
         widgets.ToggleButtons: "toggle", widgets.Button: "button"}
#: the DOM family a control is counted in (its view's CSS class in the page)
FAMILY = {"slider": (widgets.IntSlider, widgets.FloatSlider, widgets.SelectionSlider, widgets.IntRangeSlider,
                     widgets.FloatRangeSlider, widgets.SelectionRangeSlider),
          "dropdown": (widgets.Dropdown,), "checkbox": (widgets.Checkbox,), "toggle": (widgets.ToggleButtons,),
          "button": (widgets.Button,)}


def _candidates(control):
    if isinstance(control, widgets.IntSlider):
        lo, hi, step = control.min, control.max, control.step or 1
        spots = [lo + (hi - lo) * k // 4 for k in (1, 2, 3)] + [lo, hi]
        return [lo + (v - lo) // step * step for v in spots if lo + (v - lo) // step * step != control.value]
    if isinstance(control, widgets.Checkbox):
        return [not control.value]
    if isinstance(control, widgets.Button):
        return [None]
    labels = list(control._options_labels)
    current = control.label
    return [label for label in labels if label != current]


def _set(control, candidate) -> None:
    if isinstance(control, widgets.Button):
        control.click()
    elif isinstance(control, (widgets.IntSlider, widgets.Checkbox)):
        control.value = candidate
    else:
        control.label = candidate


def change(widget) -> dict | None:
    """The first (control, value) that changes what ``widget``'s HTML views show."""
    before = texts(widget)
    seen: dict[str, int] = {}
    for control, visible in shown(widget):
        family = next((name for name, types in FAMILY.items() if isinstance(control, types)), None)
        if family is None:
            continue
        index = seen.get(family, 0)
        seen[family] = index + 1
        if type(control) not in KINDS or control.disabled or not visible:
            continue
        start = getattr(control, "value", None)
        for candidate in _candidates(control):
            _set(control, candidate)
            after = texts(widget)
            if after != before:
                value = None if isinstance(control, (widgets.Checkbox, widgets.Button)) else candidate
                return {"before": before, "after": after,
                        "control": {"kind": KINDS[type(control)], "index": index, "value": value,
                                    "description": control.description}}
        if not isinstance(control, widgets.Button):
            control.value = start
    return None


def run(path: Path) -> dict:
    """Execute ``path``'s code as described in the module docstring; the result as a dict."""
    from IPython.display import display

    cells = nbformat.read(path, as_version=4).cells
    namespace: dict = {"__name__": "__main__", "display": display}
    os.chdir(path.parent)
    waiting: list[tuple[int, int, object]] = []  # (cell shown in, last cell naming it, widget)
    first = None
    for i, cell in enumerate(cells):
        if cell.cell_type != "code":
            continue
        tree = ast.parse(cell.source)
        tail = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        exec(compile(tree, f"<cell {i}>", "exec"), namespace)  # noqa: S102 - the course's own cells
        value = eval(compile(ast.Expression(tail.value), f"<cell {i}>", "eval"), namespace) if tail else None
        if isinstance(value, widgets.DOMWidget):
            name = ast.unparse(tail.value)
            later = [j for j in range(i + 1, len(cells)) if cells[j].cell_type == "code"
                     and re.search(rf"\b{re.escape(name)}\b", cells[j].source)]
            waiting.append((i, max(later, default=i), value))
            first = first if first is not None else i
        for shown, last, widget in [w for w in waiting if w[1] <= i]:
            waiting.remove((shown, last, widget))
            found = change(widget)
            if found:
                return {"cell": shown, **found}
    return {"cell": first, "control": None, "before": None, "after": None}


if __name__ == "__main__":
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):
        result = run(Path(sys.argv[1]).resolve())
    print(json.dumps(result))
