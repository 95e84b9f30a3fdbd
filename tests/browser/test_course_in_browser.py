"""The course as a student sees it: every notebook served by Voilà and rendered in headless
Chromium, no error output anywhere, and widgets that change the numbers the library computes.

Voilà executes each notebook top to bottom in a fresh kernel (as a student's "Run all" does) and
the page keeps a live kernel, so moving a slider re-runs the library in that kernel; the expected
numbers are computed here with the same library calls. A full-page screenshot of every notebook
is kept in ``test-artifacts/browser/``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from .conftest import NOTEBOOKS, artifacts_dir, start_voila, stop

NOTEBOOK_NAMES = sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))
DATASETS = NOTEBOOKS.parent / "datasets"

#: what the page shows for an output a cell wrote to stderr, and for a widget that failed to render
ERRORS_JS = """() => {
  const found = [];
  for (const el of document.querySelectorAll('[data-mime-type="application/vnd.jupyter.stderr"]'))
    found.push('stderr: ' + el.innerText.slice(0, 300));
  for (const el of document.querySelectorAll('.jp-OutputArea-output'))
    if (/Error displaying widget|Traceback \\(most recent call last\\)/.test(el.innerText))
      found.push('output: ' + el.innerText.slice(0, 300));
  return found;
}"""


CELLS = "document.querySelector('#rendered_cells')"
MAX_HEIGHT = 16_000
SCROLL_JS = f"""async () => {{
  const el = {CELLS};
  if (!el) return;
  for (let y = 0; y <= el.scrollHeight; y += 600) {{ el.scrollTop = y; await new Promise(r => setTimeout(r, 30)); }}
  el.scrollTop = 0;
}}"""

#: widget labels, buttons and tab titles whose text does not fit (shown with an ellipsis)
TRUNCATED_JS = """() => {
  const found = [];
  const sel = '.widget-label, .widget-button, .widget-toggle-button, .jupyter-widgets .lm-TabBar-tabLabel, ' +
              '.widget-dropdown select, .widget-readout';
  for (const el of document.querySelectorAll(sel))
    if (el.offsetParent !== null && el.scrollWidth > el.clientWidth + 1)
      found.push((el.innerText || el.value || '').trim() + ' [' + el.className + ']');
  return found;
}"""


#: what a widget view shows when its model could not be created in the page
MODEL_NOT_FOUND_JS = """() => [...document.querySelectorAll('.jp-OutputArea-output')]
  .some(el => el.innerText.includes('Error displaying widget: model not found'))"""


def render(page, url: str, name: str, folder: Path = NOTEBOOKS):
    """Open ``name`` in Voilà and wait until every cell ran and the widgets are drawn.

    Twice on CI (a loaded 2-core machine; never here, not even with the CPUs busy) one widget of
    a page was drawn as "Error displaying widget: model not found": the page could not build that
    model from the kernel's state. Voilà's tracker has such intermittent model loading failures
    (voila-dashboards/voila#1483), and a reload draws the widget, as it would for a student. So
    such a page is opened once more, in a fresh kernel, and its console is kept beside the
    screenshots; a widget that is missing every time shows the error again and fails the test."""
    console: list[str] = []
    page.on("console", lambda msg: console.append(f"{msg.type}: {msg.text}"))
    page.on("pageerror", lambda err: console.append(f"pageerror: {err}"))
    _open(page, url, name, folder)
    if page.evaluate(MODEL_NOT_FOUND_JS):
        log = artifacts_dir() / f"{Path(name).stem}-model-not-found-console.txt"
        log.write_text("\n".join(console))
        _open(page, url, name, folder)
    return page


def _open(page, url: str, name: str, folder: Path) -> None:
    page.goto(f"{url}/voila/render/{name}", timeout=600_000, wait_until="load")
    page.wait_for_selector("#loading", state="detached", timeout=600_000)
    # Voilà draws an output only once it scrolls into view: make the window as tall as the
    # notebook (which also gives a whole-notebook screenshot), and scroll through what is taller.
    height = page.evaluate(f"() => ({CELLS} || document.body).scrollHeight")
    page.set_viewport_size({"width": 1280, "height": max(900, min(height + 40, MAX_HEIGHT))})
    page.evaluate(SCROLL_JS)
    page.wait_for_load_state("networkidle", timeout=120_000)
    if _widget_count(folder / name):
        page.wait_for_selector(".jupyter-widgets", timeout=60_000)  # the notebook's widgets are drawn


def keep_screenshot(page, artifacts: Path, stem: str) -> None:
    """Keep a whole-page screenshot of the rendered notebook as ``stem.png``.

    The screenshot is a record for people, not a check. Chromium drawing a 16,000 px page in
    software has twice stopped producing the frame on the loaded 2-core CI machine (notebook 15
    at 30 s, notebook 08 at 180 s; never here), so a shot that takes over a minute is given up:
    the first screen is kept instead, with a note saying so, and the test goes on to its checks
    on the page, which fail if the page itself stopped answering."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.screenshot(path=str(artifacts / f"{stem}.png"), timeout=60_000)
    except PlaywrightTimeout as err:
        (artifacts / f"{stem}-screenshot-timeout.txt").write_text(str(err))
        page.set_viewport_size({"width": 1280, "height": 900})
        page.screenshot(path=str(artifacts / f"{stem}.png"))


def _widget_count(path: Path) -> int:
    """How many widget views the stored notebook displays (their model ids are stripped, the
    ``text/plain`` repr stays): the page must draw at least that many widgets."""
    cells = json.loads(path.read_text())["cells"]
    return sum(1 for c in cells if c["cell_type"] == "code" and any(
        "widgets" in line or "Explorer(" in line for line in c["source"]))


@pytest.mark.parametrize("name", NOTEBOOK_NAMES)
def test_notebook_renders_without_errors(page, voila_url, artifacts, name):
    render(page, voila_url, name)
    keep_screenshot(page, artifacts, Path(name).stem)
    assert page.evaluate(ERRORS_JS) == []
    assert page.locator(".jp-OutputArea-output").count() > 0
    assert page.evaluate(TRUNCATED_JS) == [], "widget text cut off"


def test_an_error_in_a_cell_is_seen(browser, artifacts, tmp_path):
    """The error check above is not blind: a cell that raises is counted."""
    import nbformat

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print('fine')"),
                                         nbformat.v4.new_code_cell("raise ValueError('broken on purpose')")])
    path = tmp_path / "broken.ipynb"
    nbformat.write(nb, path)
    proc, url = start_voila(path, artifacts / "voila-broken.log")
    try:
        page = browser.new_page()
        page.goto(url + "/", timeout=300_000, wait_until="load")
        page.wait_for_selector("#loading", state="detached", timeout=300_000)
        errors = page.evaluate(ERRORS_JS)
        page.close()
    finally:
        stop(proc)
    assert errors and all("broken on purpose" in e for e in errors)


def set_slider(page, scope: str, index: int, value: int) -> None:
    """Type ``value`` into the readout of the ``index``-th slider inside ``scope`` (as a student
    does: click the number, type, Enter)."""
    readout = page.locator(f"{scope} .widget-slider .widget-readout").nth(index)
    readout.click()
    page.keyboard.press("Control+A")
    page.keyboard.type(str(value))
    page.keyboard.press("Enter")


def test_overhead_slider_changes_what_the_scheduler_looks_for(page, voila_url, artifacts):
    from kschedlab.api.loader import load
    from kschedlab.api.quantity import Quantity
    from kschedlab.widgets import OverheadExplorer

    explorer = OverheadExplorer(load(DATASETS / "seed" / "03-pod-overhead.yaml"), "default/test-pod")
    before, after = explorer.last, explorer.set(cpu=0).last
    assert before.requests["cpu"] != after.requests["cpu"]

    render(page, voila_url, "03-pod-overhead.ipynb")
    scope = ".kschedlab-OverheadExplorer"
    summary = page.locator(f"{scope} .widget-html").first
    looks_for = "the scheduler looks for {} CPU"
    assert looks_for.format(Quantity.from_milli(before.requests["cpu"])) in summary.inner_text()
    set_slider(page, scope, 0, 0)
    expected = looks_for.format(Quantity.from_milli(after.requests["cpu"]))
    page.wait_for_function("([sel, text]) => document.querySelector(sel).innerText.includes(text)",
                           arg=[f"{scope} .widget-html", expected], timeout=60_000)
    text = summary.inner_text()
    assert f"scheduled on {after.node}" in text
    assert all(f"{node}: fits" in text for node, ok in after.node_fit.items() if ok)
    _scroll_to(summary)
    keep_screenshot(page, artifacts, "03-pod-overhead-widget")


def test_memory_usage_slider_moves_the_pod_in_the_eviction_ranking(page, voila_url, artifacts):
    from kschedlab.api.core import Pod
    from kschedlab.api.loader import load
    from kschedlab.api.nodestats import NodeStatsSummary
    from kschedlab.widgets import EvictionRankingExplorer

    objects = load(DATASETS / "kubelet" / "13-memory-pressure-ranking.yaml")
    pods = [o for o in objects if isinstance(o, Pod)]
    stats = next(o for o in objects if isinstance(o, NodeStatsSummary)).summary()["pods"]
    explorer = EvictionRankingExplorer(pods, stats, "api-burstable-under", max_mib=2048)

    render(page, voila_url, "13b-eviction-ranking-and-oom.ipynb")
    scope = ".kschedlab-EvictionRankingExplorer"
    summary = page.locator(f"{scope} .widget-html").first
    # the notebook may have moved the slider after displaying it: start from what the page shows
    shown = re.search(r"using (\d+)Mi ranks (\d+) of", summary.inner_text())
    assert shown, summary.inner_text()
    usage = int(shown.group(1))
    assert int(shown.group(2)) == explorer.set(usage).position
    target = next(mib for mib in (1100, 2048, 0) if explorer.set(mib).position != explorer.set(usage).position)
    after = explorer.set(target).position
    set_slider(page, scope, 0, target)
    page.wait_for_function("([sel, text]) => document.querySelector(sel).innerText.includes(text)",
                           arg=[f"{scope} .widget-html", f"using {target}Mi ranks {after} of"], timeout=60_000)
    first = list(explorer.table["pod"])[0]
    assert f"evicted first: {first}" in summary.inner_text()
    _scroll_to(summary)
    keep_screenshot(page, artifacts, "13b-eviction-ranking-and-oom-widget")


def test_shape_text_and_utilization_slider_change_the_score(page, voila_url, artifacts):
    from kschedlab.widgets import ShapeEditor

    editor = ShapeEditor([(0, 0), (100, 10)], utilization=37)
    first = editor.score_at()
    reversed_shape = editor.set(text="0:10, 100:0").score_at()
    at_80 = editor.set(utilization=80).score_at()
    assert len({first, reversed_shape, at_80}) == 3

    render(page, voila_url, "11-bin-packing.ipynb")
    scope = ".kschedlab-ShapeEditor"
    status = f"{scope} .widget-html"
    wait = "([sel, text]) => document.querySelector(sel).innerText.includes(text)"
    assert f"utilization 37% → score {first} " in page.locator(status).first.inner_text()
    box = page.locator(f"{scope} .widget-text input").first
    box.fill("0:10, 100:0")
    box.press("Enter")
    page.wait_for_function(wait, arg=[status, f"utilization 37% → score {reversed_shape} "], timeout=60_000)
    set_slider(page, scope, 0, 80)
    page.wait_for_function(wait, arg=[status, f"utilization 80% → score {at_80} "], timeout=60_000)
    _scroll_to(page.locator(status).first)
    keep_screenshot(page, artifacts, "11-bin-packing-widget")


def test_sweep_explorer_metric_changes_the_comparison(page, voila_url, artifacts):
    import numpy as np
    import pandas as pd

    from kschedlab.research import Variant, Workload, execute
    from kschedlab.research.sweep import plan
    from kschedlab.viz.table_style import format_number
    from kschedlab.widgets import SweepExplorer

    # the notebook's plugin, from its own cell, and its pai-generated runs (section 2), run here in-process
    cells = json.loads((NOTEBOOKS / "18-research-workflow.ipynb").read_text())["cells"]
    plugin_cell = next("".join(c["source"]) for c in cells if "class GPUBinPacking" in "".join(c["source"]))
    namespace = {"np": np}
    exec(plugin_cell, namespace)  # noqa: S102 - the course's own cell
    variants = [Variant("baseline"),
                Variant("gpu-binpack", plugins={"GPUBinPacking": namespace["GPUBinPacking"]},
                        enable=({"name": "GPUBinPacking", "weight": 5},))]
    workload = Workload("pai-generated", generate={"jobs": 40, "arrival_rate": 0.05}, nodes={"count": 4},
                        until=900, interval=60)
    results = pd.DataFrame([execute(r) for r in plan({"default": None}, variants, [workload], [0, 1, 2])])
    explorer = SweepExplorer(results)
    arm = "default / gpu-binpack"

    def expected(metric: str, unit: str) -> list[str]:
        out = explorer.set(metric=metric).last
        scale = 100 if unit == "%" else 1
        better, same, worse = out.wins[arm]
        amount = format_number(round(out.means[arm] * scale, 2)) + ("%" if unit == "%" else f" {unit}")
        return [f"{arm}: mean {amount}", f"better in {better} of 3 seeds, the same in {same}, worse in {worse}"]

    before, after = expected("pending_p90", "s"), expected("gpu_fragmentation_mean", "%")
    assert before[0] != after[0]

    render(page, voila_url, "18-research-workflow.ipynb")
    scope = ".kschedlab-SweepExplorer"
    summary = page.locator(f"{scope} .widget-html").first
    text = summary.inner_text()
    assert "90th percentile pending time on pai-generated" in text
    assert all(line in text for line in before), (text, before)
    page.locator(f"{scope} .widget-dropdown select").nth(1).select_option(
        label="mean GPU fragmentation (% of free GPUs)")
    page.wait_for_function("([sel, text]) => document.querySelector(sel).innerText.includes(text)",
                           arg=[f"{scope} .widget-html", after[0]], timeout=60_000)
    text = summary.inner_text()
    assert "mean GPU fragmentation on pai-generated" in text and after[1] in text, (text, after)
    _scroll_to(summary)
    keep_screenshot(page, artifacts, "18-research-workflow-widget")


def _scroll_to(locator) -> None:
    """Bring a widget into view for the screenshot. Not Playwright's ``scroll_into_view_if_needed``:
    it waits for the element to stop moving, and a figure still drawing below can keep a widget's
    box moving past the timeout (seen once in CI after every check of the test had passed)."""
    locator.evaluate("element => element.scrollIntoView({block: 'center'})")
