"""The README's "In 20 lines" example runs as printed and goes through load_manifests."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def _snippet() -> str:
    text = README.read_text()
    section = text[text.index("## In 20 lines"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_readme_example_runs(capsys):
    code = _snippet()
    assert "load_manifests" in code and "admit(" not in code
    exec(compile(code, str(README), "exec"), {})
    out = capsys.readouterr().out
    assert out.splitlines()[0] == ("0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are "
                                   "available: 1 Preemption is not helpful for scheduling.")


def test_readme_example_keeps_workloads():
    # the one call expands workloads: a Deployment in the README's style gets its pods
    from kschedlab.api import load_manifests

    objs = load_manifests(text="""
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: app, image: nginx}]}
""")
    assert [o.kind for o in objs] == ["Deployment", "ReplicaSet", "Pod", "Pod"]
