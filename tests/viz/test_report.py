"""write_report: one self-contained file, escaped, byte-for-byte deterministic."""

from __future__ import annotations

import hashlib
import re
from html.parser import HTMLParser

import pytest
from vizcases import EVIL_NODE, EVIL_POD, MARKUP, evil_cluster, markup_everywhere_cluster

from kschedlab import Cluster, Scheduler
from kschedlab.apiserver.apply import RefusedObjectsWarning
from kschedlab.scenarios import path
from kschedlab.viz import write_report
from kschedlab.viz.common import esc
from kschedlab.viz.report import PLOTLY_BUNDLE


def without_plotly(text: str) -> str:
    """The report less its embedded plotly.js (one base64 block)."""
    return re.sub(r'<script type="application/gzip-base64" id="kschedlab-plotly">[^<]*</script>', "", text)


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
    assert text.count('id="kschedlab-plotly"') == 1
    body = without_plotly(text)
    assert "cdn.plot.ly" not in body and "<script src=" not in body and "https:" not in body
    assert len(text) < 1_500_000
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
    body = without_plotly(text)
    for raw in (EVIL_POD, EVIL_NODE, "<script>evil()</script>", "<b>zone</b>", "bound&co"):
        assert raw not in body
    assert "<title>&lt;script&gt;evil()&lt;/script&gt;</title>" in body
    assert esc(EVIL_POD) in body and esc(EVIL_NODE) in body
    # only our own script tags remain: the loader and one JSON block per figure
    assert body.count("<script") == body.count("<script type=\"application/json\" data-figure=") + 1


class _Elements(HTMLParser):
    """Every element and attribute of an HTML document, and the text of its scripts."""

    def __init__(self):
        super().__init__()
        self.tags, self.attrs, self.scripts, self._in_script = [], [], [], False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs.extend(attrs)
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.scripts.append(data)


def test_markup_in_every_user_string_stays_text(tmp_path):
    cluster = markup_everywhere_cluster()
    run = Scheduler(cluster, seed=0).run()
    text = write_report(tmp_path / "markup.html", cluster, run, title=f"title{MARKUP}").read_text()
    body = without_plotly(text)
    parsed = _Elements()
    parsed.feed(body)
    assert "kschedlab-evil" not in parsed.tags and "img" not in parsed.tags and "b" not in parsed.tags
    assert not [a for a in parsed.attrs if a[0] in ("onerror", "data-evil") or "javascript:" in (a[1] or "")]
    assert not [s for s in parsed.scripts if "__kschedlabEvil=1</script>" in s]
    # inside the figures' JSON the strings are HTML-escaped too, so plotly draws them as text
    figures = "".join(s for s in parsed.scripts if s.lstrip().startswith("{"))
    decoded = figures.encode().decode("unicode_escape")
    for raw in ("<kschedlab-evil", "<img", "<script>", '<b data-evil', '<a href="javascript'):
        assert raw not in decoded
    assert decoded.count("&lt;kschedlab-evil") > 5
    assert body.count("<script") == body.count("<script type=\"application/json\" data-figure=") + 1


def test_the_embedded_plotly_is_the_version_plotly_draws_with():
    import gzip

    from plotly.offline import get_plotlyjs

    ours = gzip.decompress(PLOTLY_BUNDLE.read_bytes())[:200].decode()
    version = re.search(r"plotly\.js v(\S+)", get_plotlyjs()[:200]).group(1)
    assert f"(cartesian - minified) v{version}" in ours


def test_objects_the_api_server_refused_are_listed_escaped(tmp_path):
    from kschedlab.api import load_manifests

    with pytest.warns(RefusedObjectsWarning, match='The Pod "bad" is invalid'):
        objs = load_manifests(text="""
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: bad, labels: {app: "<script>alert(1)</script>"}}
spec: {containers: [{name: app, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {name: web}
spec: {containers: [{name: app, image: nginx}]}
""", source="pods.yaml")
    cluster = Cluster(objs)
    text = write_report(tmp_path / "r.html", cluster, Scheduler(cluster, seed=0).run()).read_text()
    body = without_plotly(text)
    assert "<h2>Refused by the API server</h2>" in body and "<script>alert(1)" not in body
    row = re.search(r"<tr><td class=\"nowrap\">Pod default/bad</td><td class=\"nowrap\">pods.yaml</td>"
                    r"<td class=\"fail nowrap\">Invalid</td><td>(.*?)</td>", body)
    assert row and row.group(1) == esc(cluster.refused[0].message)
    assert row.group(1).startswith("Pod &quot;bad&quot; is invalid: metadata.labels: Invalid value: "
                                   "&quot;&lt;script&gt;alert(1)&lt;/script&gt;&quot;")
