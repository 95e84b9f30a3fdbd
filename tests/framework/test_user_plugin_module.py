"""A researcher's out-of-tree plugin module, as one writes it in a notebook or beside the input:
a Filter that returns ``Status(Code.Unschedulable, [reason])`` with its reasons in a list (the
command crashed with ``TypeError: unhashable type: 'list'``), and the module in the current
directory, which the installed ``kschedlab`` command does not import from (the error now says so)."""

from __future__ import annotations

import sys
import textwrap

import pytest

from kschedlab.cli import main

MODULE = '''
from kschedlab.framework.interface import Plugin
from kschedlab.framework.status import Code, Status


class AvoidGPUNodes(Plugin):
    name = "AvoidGPUNodes"

    def filter(self, state, pod_info, node_info):
        if not pod_info.requests.get("nvidia.com/gpu", 0) and node_info.allocatable.get("nvidia.com/gpu", 0):
            return Status(Code.Unschedulable, ["node has GPUs reserved for GPU pods"])
        return Status()


REGISTRY = {"AvoidGPUNodes": AvoidGPUNodes}
'''
CONFIG = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    filter:
      enabled: [{name: AvoidGPUNodes}]
"""
INPUT = """
apiVersion: v1
kind: Node
metadata: {name: g}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110", nvidia.com/gpu: "1"}}
---
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers: [{name: app, image: nginx, resources: {requests: {cpu: "1"}}}]
"""


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    (tmp_path / "gpu_rules.py").write_text(textwrap.dedent(MODULE))
    (tmp_path / "sched.yaml").write_text(CONFIG)
    (tmp_path / "input.yaml").write_text(INPUT)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "gpu_rules", raising=False)
    # as under the installed command: neither "" nor the directory is on the import path
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", ".", str(tmp_path))])
    return tmp_path


def test_a_filter_giving_its_reasons_as_a_list_schedules(workdir, monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(workdir))
    assert main(["schedule", "input.yaml", "--config", "sched.yaml", "--plugins", "gpu_rules:REGISTRY",
                 "-o", "json"]) == 0
    (pod,) = __import__("json").loads(capsys.readouterr().out)["pods"]
    assert pod["message"].startswith("0/1 nodes are available: 1 node has GPUs reserved for GPU pods.")


def test_a_module_in_the_current_directory_is_named_in_the_error(workdir, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["schedule", "input.yaml", "--config", "sched.yaml", "--plugins", "gpu_rules:REGISTRY"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1].endswith(
        "argument --plugins: cannot import module 'gpu_rules': No module named 'gpu_rules' (./gpu_rules.py is "
        "in the current directory, which the kschedlab command does not import from: run it with PYTHONPATH=.)")
