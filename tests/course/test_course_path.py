"""The path through the course is true: the README's table of notebooks names, for each notebook, the
notebooks its opening "What it assumes" line links to; each of those comes earlier in the table; and
each notebook's closing links go to its neighbours in the table."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def _table() -> dict[str, tuple[str, list[str]]]:
    """README row by row: number -> (notebook name, the numbers in its "assumes" column)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d+b?) \| \[([^\]]+)\]\(notebooks/[^)]+\) \| ([^|]+) \|", text, re.M)
    return {num: (name, re.findall(r"\d+b?", assumes)) for num, name, assumes in rows}


def _assumed(path: Path) -> list[str]:
    """The notebook numbers linked in ``path``'s "What it assumes" line."""
    nb = nbformat.read(path, as_version=4)
    head = "\n".join(c.source for c in nb.cells[:3] if c.cell_type == "markdown")
    line = re.search(r"\*\*What it assumes:\*\*([^\n]*)", head)
    assert line, f"{path.name} has no 'What it assumes' line"
    return re.findall(r"\[(\d+b?)\]\(\d+b?-[^)]+\.ipynb\)", line.group(1))


def test_the_table_lists_every_notebook_in_order():
    assert [name for name, _ in _table().values()] == [p.stem for p in NOTEBOOKS]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_assumes_matches_the_notebook_and_comes_earlier(path):
    table = _table()
    order = list(table)
    number = path.stem.split("-")[0]
    assert table[number][1] == _assumed(path)
    assert all(order.index(before) < order.index(number) for before in table[number][1])


@pytest.mark.parametrize("index", range(len(NOTEBOOKS)), ids=[p.stem for p in NOTEBOOKS])
def test_closing_links_go_to_the_neighbours(index):
    last = nbformat.read(NOTEBOOKS[index], as_version=4).cells[-1].source
    previous = re.search(r"Previous: ([^·]*)·", last).group(1)
    following = re.search(r"Next: (.*)$", last.strip()).group(1)
    if index:
        assert f"({NOTEBOOKS[index - 1].name})" in previous
    else:
        assert ".ipynb" not in previous
    if index + 1 < len(NOTEBOOKS):
        assert f"({NOTEBOOKS[index + 1].name})" in following
    else:
        assert ".ipynb" not in following


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_coding_task_is_marked_in_the_table(path):
    """"coding tasks are marked below": a notebook whose book holds one says so in its row."""
    from kschedlab.exercises import BOOK

    kinds = set(re.findall(r"(?m)^  kind: (\w+)$", (BOOK / f"{path.stem}.yaml").read_text(encoding="utf-8")))
    coding = bool(kinds & {"plugin", "hint", "placement", "policy", "pre_enqueue", "function", "selector", "sweep"})
    row = next(line for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
               if line.startswith(f"| {path.stem.split('-')[0]} | [{path.stem}]"))
    assert ("coding task" in row) == coding
