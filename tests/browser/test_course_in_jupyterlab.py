"""The course as a student takes it in JupyterLab: every notebook opened in headless Chromium,
Run All, no error output, one widget control moved and the widget's text compared with what the
library computes for that value, and no exercise's answer in what the run left in the notebook.

One JupyterLab server (token-less, loopback, a free port) serves a temporary copy of
``notebooks/`` beside a link to ``datasets/``; the notebooks run in its kernels, so the copy the
page saves holds the outputs a student sees. The library's side is
:mod:`tests.browser.widget_oracle`, run in a process of its own while the page runs. Screenshots
of every notebook after Run All go to ``test-artifacts/browser/lab/`` (or
``$KSCHEDLAB_ARTIFACTS/browser/lab``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

from tests.course.test_exercise_answers import answers_given_away

from .conftest import NOTEBOOKS, ROOT, _free_port, artifacts_dir, stop

NOTEBOOK_NAMES = sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))
#: JupyterLab settings for the test: every cell kept in the page (no virtual scrolling, so every
#: output can be read and screenshot) and nothing fetched from the network
SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false",
                                                                         "checkForUpdates": False},
    "@jupyterlab/extensionmanager-extension/plugin.jupyterlab-settings": {"enabled": False},
}
#: the height of one screenshot (a notebook is shot in parts, each readable at full size)
SHOT_HEIGHT = 1_600
SCROLLER = "document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-WindowedPanel-outer')"


def start_lab(root: Path, log: Path, timeout: float = 180.0):
    """JupyterLab on ``root`` (token-less, loopback, a free port, settings of :data:`SETTINGS`);
    returns (process, base URL) once it answers."""
    settings = root.parent / "lab-settings"
    for name, values in SETTINGS.items():
        path = settings / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    port = _free_port()
    lab = Path(sys.executable).with_name("jupyter-lab")
    cmd = [str(lab) if lab.exists() else "jupyter-lab", "--no-browser", f"--ServerApp.port={port}",
           "--ServerApp.ip=127.0.0.1", "--IdentityProvider.token=", "--ServerApp.password=",
           "--ServerApp.port_retries=0", "--ServerApp.allow_root=True", "--ServerApp.disable_check_xsrf=True", "--LabApp.extension_manager=readonly",
           f"--ServerApp.root_dir={root}"]
    env = {**os.environ, "JUPYTERLAB_SETTINGS_DIR": str(settings),
           "JUPYTERLAB_WORKSPACES_DIR": str(root.parent / "lab-workspaces"),
           "JUPYTER_RUNTIME_DIR": str(root.parent / "lab-runtime"), "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"jupyter-lab exited with {proc.returncode}: {log.read_text()[-2000:]}")
        try:
            urllib.request.urlopen(url + "/api/status", timeout=2)
            return proc, url
        except OSError:
            time.sleep(0.5)
    stop(proc)
    raise RuntimeError(f"jupyter-lab did not answer on {url} within {timeout:.0f} s")


@pytest.fixture(scope="module")
def lab(browser, tmp_path_factory):
    """(base URL, the folder it serves): a copy of the notebooks, ``../datasets`` linked."""
    base = tmp_path_factory.mktemp("lab")
    root = base / "notebooks"
    root.mkdir()
    for name in NOTEBOOK_NAMES:
        shutil.copy(NOTEBOOKS / name, root / name)
    (base / "datasets").symlink_to(ROOT / "datasets", target_is_directory=True)
    proc, url = start_lab(root, artifacts_dir() / "jupyterlab.log")
    yield url, root
    stop(proc)


#: code cells, and those that show an execution count (not "[ ]:" and not "[*]:")
PROMPTS_JS = """() => {
  const cells = [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell')];
  const done = cells.filter(c => /\\[\\d+\\]/.test(c.querySelector('.jp-InputPrompt').innerText));
  return [cells.length, done.length];
}"""


#: "idle" once the notebook's kernel has started and waits for work
KERNEL_JS = """() => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  const kernel = panel && panel.querySelector('.jp-Toolbar-kernelName');
  const status = panel && panel.querySelector('.jp-Notebook-ExecutionIndicator');
  if (!kernel || !status || /No Kernel/.test(kernel.innerText)) return 'none';
  return status.getAttribute('data-status');
}"""


def run_all(page, url: str, name: str, timeout: float = 900.0) -> None:
    """Open ``name``, wait for its kernel, Run All from the menu, wait until every code cell ran,
    and save."""
    page.goto(f"{url}/lab/tree/{name}?reset", timeout=300_000, wait_until="load")  # no other tab restored
    page.wait_for_selector(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell", timeout=300_000)
    # the toolbar says "No Kernel" (and idle) until the notebook's kernel has started; JupyterLab may
    # also ask which kernel to start: take the one it proposes, the notebook's (python3)
    deadline = time.monotonic() + 300
    while page.evaluate(KERNEL_JS) != "idle":
        if page.locator(".jp-Dialog", has_text="Select Kernel").count():
            page.locator(".jp-Dialog .jp-mod-accept").click()
        assert time.monotonic() < deadline, f"{name}: its kernel did not start in 300 s"
        time.sleep(0.5)
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile("^Run$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile("^Run All Cells$")).click()
    deadline = time.monotonic() + timeout
    while True:
        total, done = page.evaluate(PROMPTS_JS)
        if total and done == total:
            break
        assert time.monotonic() < deadline, f"{name}: {done} of {total} code cells ran in {timeout:.0f} s"
        time.sleep(1)
    page.wait_for_function(f"() => ({KERNEL_JS})() === 'idle'", timeout=120_000)
    dialogs = page.locator(".jp-Dialog")
    assert dialogs.count() == 0, f"{name}: JupyterLab shows a dialog: {dialogs.first.inner_text()}"
    page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook").first.click(position={"x": 5, "y": 5})
    page.keyboard.press("Control+s")


def shut_down_kernels(url: str) -> None:
    """End every session of the server, and so its kernel (a student closing the notebook)."""
    with urllib.request.urlopen(f"{url}/api/sessions", timeout=30) as answer:
        sessions = json.load(answer)
    for session in sessions:
        request = urllib.request.Request(f"{url}/api/sessions/{session['id']}", method="DELETE")
        urllib.request.urlopen(request, timeout=60).close()


def saved(path: Path, timeout: float = 60.0) -> nbformat.NotebookNode:
    """``path`` once the page saved it with every code cell run (read again while the server is
    still writing it: a read may meet an empty or half-written file)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            nb = nbformat.read(path, as_version=4)
        except nbformat.reader.NotJSONError:
            nb = None
        if nb is not None and all(c.execution_count for c in nb.cells if c.cell_type == "code"):
            return nb
        assert time.monotonic() < deadline, f"{path.name} was not saved after Run All"
        time.sleep(0.5)


def error_outputs(nb) -> list[str]:
    """The error and stderr outputs of ``nb``, as 'cell N: text'."""
    found = []
    for i, cell in enumerate(nb.cells):
        for o in cell.get("outputs", []):
            if o.output_type == "error":
                found.append(f"cell {i}: {o.ename}: {o.evalue}")
            elif o.output_type == "stream" and o.name == "stderr":
                found.append(f"cell {i}: stderr: {o.text[:300]}")
    return found


WIDGET_TEXTS_JS = """(cell) => {
  const el = document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell')[cell];
  return [...el.querySelectorAll('.jp-OutputArea .widget-html')].map(e => {
    const copy = e.cloneNode(true);
    copy.querySelectorAll('style, script').forEach(s => s.remove());
    return copy.textContent.replace(/\\s+/g, '');
  });
}"""


#: the element a control's view is drawn in, by kind (tests/browser/widget_oracle.py)
CONTROL_CSS = {"slider": ".widget-slider", "dropdown": ".widget-dropdown", "checkbox": ".widget-checkbox",
               "toggle": ".widget-toggle-buttons", "button": "button.widget-button"}


def move(page, scope, control: dict) -> None:
    """Do to the page's control what the oracle did to the library's widget. The control is found
    by its description (a tab's controls need not come in the page in the order of the widget
    tree), else by its place among the controls of its kind."""
    kind, value, description = control["kind"], control["value"], control["description"]
    views = scope.locator(CONTROL_CSS[kind])
    view = views.filter(has_text=description).first if description else views.nth(control["index"])
    if kind == "slider":
        view.locator(".widget-readout").click()
        page.keyboard.press("Control+A")
        page.keyboard.type(str(value))
        page.keyboard.press("Enter")
    elif kind == "dropdown":
        view.locator("select").select_option(label=value)
    elif kind == "checkbox":
        view.locator("input").click()
    elif kind == "button":
        view.click()
    else:
        view.locator("button", has_text=re.compile(f"^{re.escape(value)}$")).click()


def screenshots(page, out: Path, stem: str) -> list[Path]:
    """The whole notebook, in screenshots of :data:`SHOT_HEIGHT` pixels (``stem-01.png``, ...)."""
    page.set_viewport_size({"width": 1400, "height": SHOT_HEIGHT})
    height = page.evaluate(f"() => {SCROLLER}.scrollHeight")
    shots = []
    for part, top in enumerate(range(0, height, SHOT_HEIGHT - 200), start=1):
        page.evaluate(f"(y) => {{ {SCROLLER}.scrollTop = y; }}", top)
        page.wait_for_timeout(200)
        path = out / f"{stem}-{part:02d}.png"
        page.screenshot(path=str(path))
        shots.append(path)
    page.evaluate(f"() => {{ {SCROLLER}.scrollTop = 0; }}")
    return shots


@pytest.mark.parametrize("name", NOTEBOOK_NAMES)
def test_notebook_runs_in_jupyterlab(browser, lab, name):
    url, root = lab
    oracle = subprocess.Popen([sys.executable, "-m", "tests.browser.widget_oracle", str(root / name)],
                              cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    try:
        run_all(page, url, name)
        nb = saved(root / name)
        out = artifacts_dir() / "lab"
        out.mkdir(exist_ok=True)
        screenshots(page, out, Path(name).stem)
        assert error_outputs(nb) == []
        assert answers_given_away(root / name) == []

        stdout, stderr = oracle.communicate(timeout=900)
        assert oracle.returncode == 0, stderr[-3000:]
        expected = json.loads(stdout)
        assert expected["cell"] is not None, f"{name} shows no widget"
        assert expected["control"] is not None, f"{name}: no control of its widgets changes their text"
        assert page.evaluate(WIDGET_TEXTS_JS, expected["cell"]) == expected["before"]
        scope = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell").nth(expected["cell"])
        scope.scroll_into_view_if_needed()
        move(page, scope, expected["control"])
        page.wait_for_function(f"([cell, want]) => {{ const got = ({WIDGET_TEXTS_JS})(cell); "
                               "return got.length === want.length && got.every((t, i) => t === want[i]); }",
                               arg=[expected["cell"], expected["after"]], timeout=120_000)
        scope.screenshot(path=str(out / f"{Path(name).stem}-widget.png"))
    finally:
        if oracle.poll() is None:
            oracle.kill()
        context.close()
        shut_down_kernels(url)
