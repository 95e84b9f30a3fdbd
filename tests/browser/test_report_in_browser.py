"""The HTML report in Chromium (issue 23): markup put into every string a user controls
(:func:`vizcases.markup_everywhere_cluster`) appears as text once plotly has drawn the figures;
no element, attribute or script from it exists in the page, and none of it ran."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "viz"))

from vizcases import MARKUP, markup_everywhere_cluster  # noqa: E402

from kschedlab import Scheduler  # noqa: E402
from kschedlab.viz import write_report  # noqa: E402


def test_markup_in_the_report_stays_text(browser, tmp_path, artifacts):
    cluster = markup_everywhere_cluster()
    run = Scheduler(cluster, seed=0).run()
    report = write_report(tmp_path / "markup.html", cluster, run, title=f"title{MARKUP}")
    context = browser.new_context(viewport={"width": 1280, "height": 900}, java_script_enabled=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(report.as_uri())
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot .main-svg').length > 0")
    page.screenshot(path=str(artifacts / "report-markup.png"), full_page=True)
    found = page.evaluate("""() => ({
        evil: window.__kschedlabEvil === undefined ? null : window.__kschedlabEvil,
        elements: document.querySelectorAll('kschedlab-evil, img, [onerror], [data-evil]').length,
        links: [...document.querySelectorAll('a')].filter(a => (a.getAttribute('href') || '').startsWith('javascript')
                                                          || (a.getAttribute('xlink:href') || '').startsWith('javascript')).length,
        bold: [...document.querySelectorAll('svg b, svg [style*="bold"]')].filter(e => e.textContent === 'b').length,
        shown: document.body.innerText.includes('<kschedlab-evil data-evil="1">'),
        figures: document.querySelectorAll('.js-plotly-plot').length,
    })""")
    context.close()
    assert found["evil"] is None and found["elements"] == 0 and found["links"] == 0 and found["bold"] == 0
    assert found["shown"], "the markup is shown as text"
    assert found["figures"] >= 2 and not errors


def test_the_demo_report_draws_every_figure_offline(browser, tmp_path, artifacts):
    """The demo's report (under 1.5 MB: plotly.js compressed) draws all its figures, and asks
    nothing of the network."""
    from kschedlab import Cluster
    from kschedlab.scenarios import path

    cluster = Cluster.from_manifests(path("default"))
    report = write_report(tmp_path / "demo.html", cluster, Scheduler(cluster, seed=0).run(), title="demo")
    assert report.stat().st_size < 1_500_000
    context = browser.new_context(viewport={"width": 1280, "height": 900}, java_script_enabled=True)
    page = context.new_page()
    outside: list[str] = []
    page.on("request", lambda req: None if req.url.startswith(("file:", "data:", "blob:")) else outside.append(req.url))
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(report.as_uri())
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot .main-svg').length"
                           " >= document.querySelectorAll('.kschedlab-figure').length")
    page.screenshot(path=str(artifacts / "report-demo.png"), full_page=True)
    drawn, wanted = page.evaluate("() => [document.querySelectorAll('.js-plotly-plot').length,"
                                  " document.querySelectorAll('.kschedlab-figure').length]")
    context.close()
    assert drawn == wanted > 5 and not errors and not outside
