"""Fixtures for the end-to-end course test: Voilà serving ``notebooks/`` and headless Chromium
driven by Playwright.

The browser is Debian's ``chromium`` package (``/usr/bin/chromium``, or ``$KSCHEDLAB_CHROMIUM``),
installed by ``.ci/run``; Playwright's own browser download is never used. Without Chromium these
tests are skipped — unless ``KSCHEDLAB_BROWSER=required`` (set by ``.ci/run``), where a missing
browser is a failure, so CI can never pass without having run them.

Screenshots go to ``test-artifacts/browser/`` (or ``$KSCHEDLAB_ARTIFACTS/browser``).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
#: flags for Chromium as root on a machine without a network or a GPU
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]


def chromium_path() -> str | None:
    """The Chromium binary to drive, or None."""
    wanted = os.environ.get("KSCHEDLAB_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    return wanted if Path(wanted).exists() else None


def artifacts_dir() -> Path:
    """Where screenshots and logs of the browser tests go (created)."""
    out = Path(os.environ.get("KSCHEDLAB_ARTIFACTS", ROOT / "test-artifacts")) / "browser"
    out.mkdir(parents=True, exist_ok=True)
    return out


@pytest.fixture(scope="session")
def artifacts() -> Path:
    return artifacts_dir()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_voila(target: Path, log: Path, timeout: float = 120.0):
    """Start Voilà on ``target`` (a folder or one notebook) on a free loopback port; returns
    (process, base URL) once it answers."""
    port = _free_port()
    voila = Path(sys.executable).with_name("voila")
    cmd = [str(voila) if voila.exists() else "voila", "--no-browser", f"--port={port}", "--Voila.ip=127.0.0.1",
           "--show_tracebacks=True", "--Voila.tornado_settings={'autoreload': False}", str(target)]
    proc = subprocess.Popen(cmd, cwd=target if target.is_dir() else target.parent,
                            stdout=log.open("w"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"voila exited with {proc.returncode}: {log.read_text()[-2000:]}")
        try:
            urllib.request.urlopen(url + "/", timeout=2)
            return proc, url
        except OSError:
            time.sleep(0.5)
    proc.kill()
    raise RuntimeError(f"voila did not answer on {url} within {timeout:.0f} s")


def stop(proc) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="session")
def browser():
    path = chromium_path()
    if path is None:
        message = "Debian's chromium is not installed (apt-get install chromium)"
        if os.environ.get("KSCHEDLAB_BROWSER") == "required":
            pytest.fail(message + " and KSCHEDLAB_BROWSER=required")
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def voila_url(browser, artifacts):
    proc, url = start_voila(NOTEBOOKS, artifacts / "voila.log")
    yield url
    stop(proc)


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    # Playwright's 30 s default is too short for a full-page screenshot of a 16,000 px notebook on a
    # loaded 2-core CI machine (it timed out once there on notebook 15): every wait gets 3 minutes.
    context.set_default_timeout(180_000)
    page = context.new_page()
    yield page
    context.close()
