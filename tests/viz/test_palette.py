"""Every colour a figure, table or widget uses is colour-blind safe (issue #14)."""

import itertools
import re
from pathlib import Path

import pytest

from kschedlab.viz import common, palette, timeline

ROOT = Path(palette.__file__).resolve().parents[1]
SOURCES = sorted([*(ROOT / "viz").glob("*.py"), *(ROOT / "widgets").glob("*.py")])
ALLOWED = {c.lower() for c in (*palette.CATEGORICAL, *palette.LIGHT, *palette.BLUES, *palette.ORANGES,
                               *palette.REDS)}
HEX = re.compile(r"#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b")


@pytest.mark.parametrize("path", [p for p in SOURCES if p.name != "palette.py"], ids=lambda p: p.name)
def test_only_palette_colours_are_written(path):
    strays = {c for c in HEX.findall(path.read_text())
              if c.lower() not in ALLOWED and not palette.is_neutral(c)}
    assert not strays, f"{path.name} uses colours outside kschedlab.viz.palette: {sorted(strays)}"


def test_categorical_colours_stay_apart_for_colour_blind_readers():
    main = [c for c in palette.CATEGORICAL if c != palette.GREY]
    worst = min(itertools.combinations(main, 2), key=lambda ab: palette.cvd_distance(*ab))
    assert palette.cvd_distance(*worst) >= 12, worst


def test_plugin_colours_stay_apart():
    colours = list(common.PLUGIN_COLORS.values())
    assert len(set(colours)) == len(colours)
    assert min(palette.cvd_distance(a, b) for a, b in itertools.combinations(colours, 2)) >= 7


@pytest.mark.parametrize("a, b", [
    (common.PASSED_COLOR, common.REJECTED_COLOR),
    (timeline.QUEUE_COLORS["running"], timeline.QUEUE_COLORS["unschedulable"]),
    (timeline.QUEUE_COLORS["active"], timeline.QUEUE_COLORS["unschedulable"]),
])
def test_opposite_states_never_look_alike(a, b):
    assert palette.cvd_distance(a, b) >= 40


def test_the_check_sees_a_red_green_pair():
    assert palette.cvd_distance("#74c476", "#de2d26") < 40
