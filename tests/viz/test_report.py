"""write_report: one self-contained file, escaped, byte-for-byte deterministic."""

from __future__ import annotations

import hashlib
import re

from plotly.offline import get_plotlyjs

from kschedlab import Cluster, Scheduler
from kschedlab.scenarios import path
from kschedlab.viz import write_report
from kschedlab.viz.common import esc

from vizcases import EVIL_NODE, EVIL_POD, evil_cluster


def run_demo():
    cluster = Cluster.from_manifests(path("default"))
    return cluster, Scheduler(cluster, seed=0).run()


def test_report_is_deterministic(tmp_path):
    digests = []
    for i in range(2):
        cluster, results = run_demo()
        out = write_report(tmp_path / f"r{i}.html", cluster, results, title="demo")
        digests.append(hashlib.sha256(out.read_bytes()).hexdigest())
    assert digests[0] == digests[1]
    text = (tmp_path / "r0.html").read_text()
    # no random plotly div ids (uuid4) anywhere
    assert not re.search(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}", text)
    assert 'id="kschedlab-utilization"' in text and 'id="kschedlab-pod-0-filter"' in text


def test_report_is_self_contained(tmp_path):
    cluster, results = run_demo()
    text = write_report(tmp_path / "sub" / "r.html", cluster, results).read_text()
    assert text.count(get_plotlyjs()) == 1
    body = text.replace(get_plotlyjs(), "")
    assert "cdn.plot.ly" not in body and "<script src=" not in body
    assert text.startswith("<!DOCTYPE html>")
    for r in results:
        assert esc(r.pod) in text
    # one results-table row per pod, in order
    rows = re.findall(r'<tr><td class="nowrap"><a href="#kschedlab-pod-(\d+)">', text)
    assert rows == [str(i) for i in range(len(results))]


def test_report_escapes_malicious_names(tmp_path):
    cluster = evil_cluster()
    results = Scheduler(cluster).run()
    text = write_report(tmp_path / "evil.html", cluster, results, title="<script>evil()</script>").read_text()
    body = text.replace(get_plotlyjs(), "")
    for raw in (EVIL_POD, EVIL_NODE, "<script>evil()</script>", "<b>zone</b>", "bound&co"):
        assert raw not in body
    assert "<title>&lt;script&gt;evil()&lt;/script&gt;</title>" in body
    assert esc(EVIL_POD) in body and esc(EVIL_NODE) in body
    # only our own script tags remain: the plotly.js bundle and one per figure
    assert body.count("<script") == body.count("Plotly.newPlot(") + 1
