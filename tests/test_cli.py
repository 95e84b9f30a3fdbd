"""The kschedlab command: output shapes, exit codes, error messages."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from kschedlab.cli import main

DATASETS = Path(__file__).resolve().parents[1] / "datasets"
PREEMPTION = DATASETS / "preemption" / "12-preemption-basic.yaml"

GATED = """\
apiVersion: kschedlab.io/v1alpha1
kind: Simulation
metadata: {name: numeric-tolerations}
spec:
  featureGates: {TaintTolerationComparisonOperators: true}
---
apiVersion: v1
kind: Node
metadata: {name: node1}
spec:
  taints: [{key: sla, value: "950", effect: NoSchedule}]
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  tolerations: [{key: sla, operator: Gt, value: "900", effect: NoSchedule}]
  containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]
"""


def test_demo_prints_explanations_and_writes_a_report(tmp_path, capsys):
    report = tmp_path / "r.html"
    assert main(["demo", "--report", str(report)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^default/trainer-0 +Running +gpu-b3 ", out, re.M)
    assert "0/5 nodes are available:" in out
    assert "<NA>" not in out and "NaN" not in out and "None" not in out
    text = report.read_text()
    assert text.startswith("<!DOCTYPE html>")
    assert "<title>kschedlab demo: the built-in scenario default.yaml</title>" in text
    tables = text.split('<h2 id="kschedlab-pod-0">', 1)[1]
    assert "&lt;NA&gt;" not in tables and ">True<" not in tables and ">False<" not in tables


def test_schedule_json_keeps_its_shape(tmp_path, capsys):
    f = tmp_path / "s.yaml"
    f.write_text(GATED)
    assert main(["schedule", str(f), "-o", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    (pod,) = doc["pods"]
    assert set(pod) == {"name", "node", "status", "message", "filter", "scores", "podStatus",
                        "nominatedNodeName", "attempts", "lastFailureMessage", "victims", "preemptedBy",
                        "attemptBoundReached"}
    assert (pod["name"], pod["node"], pod["status"]) == ("default/p", "node1", "Success")
    assert (pod["podStatus"], pod["attempts"], pod["victims"], pod["preemptedBy"]) == ("Running", 1, [], None)
    assert {k: doc[k] for k in ("attempts", "maxAttempts", "once", "attemptBoundReached")} == {
        "attempts": 1, "maxAttempts": 20, "once": False, "attemptBoundReached": []}
    assert pod["filter"] == {"node1": {"code": "Success", "plugin": None, "reasons": []}}


def test_feature_gates_flag_overrides_the_scenario(tmp_path, capsys):
    f = tmp_path / "s.yaml"
    f.write_text(GATED)
    # with the gate off the API server refuses the Gt toleration (ValidateTolerations): kubectl apply
    # reports the pod and goes on (exit 1); --strict refuses the whole input (exit 2)
    assert main(["schedule", str(f), "-o", "json", "--feature-gates",
                 "TaintTolerationComparisonOperators=false"]) == 1
    captured = capsys.readouterr()
    assert captured.err == ('The Pod "p" is invalid: spec.tolerations[0].operator: Unsupported value: "Gt": '
                            'supported values: "Equal", "Exists"\n')
    doc = json.loads(captured.out)
    assert doc["pods"] == [] and [r["object"] for r in doc["refused"]] == ["Pod default/p"]
    assert main(["schedule", str(f), "-o", "json", "--strict", "--feature-gates",
                 "TaintTolerationComparisonOperators=false"]) == 2
    err = capsys.readouterr().err
    assert ('Pod default/p: spec.tolerations[0].operator: Unsupported value: "Gt": supported values: '
            '"Equal", "Exists"') in err


@pytest.mark.parametrize(("text", "message"), [
    ("apiVersion: v1\nkind: Pod\nmetadata: {name: web-0}\nspec: {containers: [{name: c, resources: "
     "{requests: {cpu: 1.5.0}}}]}\n",
     'bad.yaml: Pod default/web-0: spec.containers[0].resources.requests.cpu: invalid quantity "1.5.0"'),
    ("apiVersion: v1\nkind: Pod\nmetadata: {name: web-0}\nspec: {containers: [{name: c, resource: {}}]}\n",
     'bad.yaml: Pod default/web-0: spec.containers[0].resource: unknown field "resource"'),
])
def test_bad_input_names_file_object_and_field(tmp_path, capsys, text, message):
    f = tmp_path / "bad.yaml"
    f.write_text(text)
    assert main(["schedule", str(f)]) == 2
    err = capsys.readouterr().err
    assert message in err.replace(str(tmp_path) + "/", "")


def test_unknown_feature_gate_is_refused(tmp_path, capsys):
    f = tmp_path / "s.yaml"
    f.write_text(GATED)
    assert main(["schedule", str(f), "--feature-gates", "NoSuchGate=true"]) == 2
    assert "unrecognized feature gate: NoSuchGate" in capsys.readouterr().err


def test_conformance_closes_with_the_count_line(capsys):
    assert main(["conformance", "tests/conformance/nodename"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "7 passed, 0 failed, 0 expected failures"


def test_bench_reports_json(capsys):
    assert main(["bench", "SchedulingBasic", "--nodes", "30", "--init-pods", "10", "--pods", "40",
                 "-o", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert {"pods_per_second", "peak_rss_mb", "nodes", "pods"} <= set(result)
    assert (result["nodes"], result["pods"], result["scheduled"]) == (30, 40, 40)


def test_schedule_pod_groups_with_the_podgroup_cycle(capsys):
    path = DATASETS / "podgroup" / "two-training-jobs.yaml"
    assert main(["schedule", str(path), "--feature-gates", "GenericWorkload=true", "-o", "json"]) == 0
    pods = {p["name"]: (p["node"], p["message"]) for p in json.loads(capsys.readouterr().out)["pods"]}
    assert sorted(pods[f"ml/train-a-{i}"][0] for i in range(4)) == ["node-0", "node-1", "node-2", "node-3"]
    assert pods["ml/train-b-0"] == (None, "0/4 nodes are available: 4 Insufficient cpu.")
    assert {pods[f"ml/train-b-{i}"] for i in (1, 2, 3)} == {
        (None, "minCount (4) cannot be satisfied: 0 scheduled, 3 remaining")}


def test_pod_groups_are_not_served_without_the_gate(capsys):
    path = DATASETS / "podgroup" / "two-training-jobs.yaml"
    assert main(["schedule", str(path)]) == 2
    assert ('two-training-jobs.yaml: PodGroup ml/train-a: no matches for kind "PodGroup" in version '
            '"scheduling.k8s.io/v1beta1" (served only with the feature gate(s) GenericWorkload enabled)'
            in capsys.readouterr().err)


# -- the scheduling loop: what a cluster would end with ------------------------------------------------------
GANG_BELOW_QUORUM = """\
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: job, namespace: ml}
spec: {schedulingPolicy: {gang: {minCount: 3}}}
---
apiVersion: v1
kind: Pod
metadata: {name: w0, namespace: ml}
spec:
  schedulingGroup: {podGroupName: job}
  containers: [{name: c, resources: {requests: {cpu: "1"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: w1, namespace: ml}
spec:
  schedulingGroup: {podGroupName: job}
  containers: [{name: c, resources: {requests: {cpu: "1"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: gated, namespace: ml}
spec:
  schedulingGates: [{name: example.com/wait}]
  containers: [{name: c, resources: {requests: {cpu: "1"}}}]
"""


def _pods(capsys):
    return {p["name"]: p for p in json.loads(capsys.readouterr().out)["pods"]}


def test_preemptor_binds_on_its_nominated_node_and_the_victim_names_it(capsys):
    assert main(["schedule", str(PREEMPTION), "-o", "json"]) == 0
    pods = _pods(capsys)
    nginx, victim = pods["default/nginx"], pods["default/low-2"]
    assert (nginx["node"], nginx["podStatus"], nginx["status"], nginx["attempts"]) == (
        "kube-01", "Running", "Success", 2)
    assert nginx["lastFailureMessage"] == "0/2 nodes are available: 2 Insufficient cpu."
    assert nginx["victims"] == [{"name": "default/low-2", "node": "kube-01"}]
    # ClearingNominatedNodeNameAfterBinding (on by default): binding clears the nomination
    assert nginx["nominatedNodeName"] is None
    assert (victim["podStatus"], victim["node"], victim["preemptedBy"], victim["status"], victim["attempts"]) == (
        "Terminating", "kube-01", "default/nginx", None, 0)
    assert victim["message"] == "default-scheduler: preempting to accommodate a higher priority pod"


def test_preemption_story_in_the_table(capsys):
    assert main(["schedule", str(PREEMPTION)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^default/nginx +Running +kube-01 +- +2 +preempted default/low-2 on kube-01; before: "
                     r"0/2 nodes are available: 2 Insufficient cpu\.$", out, re.M)
    assert re.search(r"^default/low-2 +Terminating +kube-01 +- +0 +preempted by default/nginx$", out, re.M)
    assert "2 pods: 1 running, 0 pending, 1 preempted; 2 scheduling attempts." in out


def test_once_keeps_a_single_pass(capsys):
    assert main(["schedule", str(PREEMPTION), "--once", "-o", "yaml"]) == 0
    import yaml

    doc = yaml.safe_load(capsys.readouterr().out)
    pods = {p["name"]: p for p in doc["pods"]}
    nginx = pods["default/nginx"]
    assert (nginx["node"], nginx["podStatus"], nginx["nominatedNodeName"], nginx["attempts"]) == (
        None, "Pending", "kube-01", 1)
    assert nginx["message"] == nginx["lastFailureMessage"] == "0/2 nodes are available: 2 Insufficient cpu."
    assert pods["default/low-2"]["preemptedBy"] == "default/nginx"
    assert (doc["once"], doc["attempts"]) == (True, 1)
    assert main(["schedule", str(PREEMPTION), "--once"]) == 0
    assert "Single pass (--once)" in capsys.readouterr().out


def test_the_attempt_bound_is_reported(capsys):
    assert main(["schedule", str(PREEMPTION), "--max-attempts", "1", "-o", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["maxAttempts"], doc["attemptBoundReached"]) == (1, ["default/nginx"])
    nginx = next(p for p in doc["pods"] if p["name"] == "default/nginx")
    assert (nginx["node"], nginx["attempts"], nginx["attemptBoundReached"]) == (None, 1, True)
    assert main(["schedule", str(PREEMPTION), "--max-attempts", "1"]) == 0
    out = capsys.readouterr().out
    assert ("Attempt bound reached (--max-attempts 1): default/nginx left after 1 attempt each; "
            "kube-scheduler would go on retrying.") in out
    with pytest.raises(SystemExit):
        main(["schedule", str(PREEMPTION), "--max-attempts", "0"])


def test_a_gang_below_quorum_and_a_gated_pod_stay_pending(tmp_path, capsys):
    f = tmp_path / "gang.yaml"
    f.write_text(GANG_BELOW_QUORUM)
    assert main(["schedule", str(f), "--feature-gates", "GenericWorkload=true", "-o", "json"]) == 0
    pods = _pods(capsys)
    for key in ("ml/w0", "ml/w1"):
        assert (pods[key]["node"], pods[key]["podStatus"], pods[key]["attempts"]) == (None, "Pending", 0)
        assert pods[key]["message"] == "waiting for minCount pods from a gang to appear in scheduling queue"
        assert pods[key]["status"] == "UnschedulableAndUnresolvable"
    gated = pods["ml/gated"]
    assert (gated["node"], gated["podStatus"], gated["attempts"]) == (None, "SchedulingGated", 0)
    assert gated["message"] == "waiting for scheduling gates: [example.com/wait]"
    assert main(["schedule", str(f), "--feature-gates", "GenericWorkload=true"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^ml/gated +SchedulingGated +- +- +0 +waiting for scheduling gates", out, re.M)
    assert "3 pods: 0 running, 2 pending, 1 scheduling-gated; 0 scheduling attempts." in out


def test_report_title_is_the_file_name_and_shows_the_victim(tmp_path, capsys):
    report = tmp_path / "r.html"
    assert main(["schedule", str(PREEMPTION), "--report", str(report)]) == 0
    text = report.read_text()
    assert "<title>12-preemption-basic.yaml</title>" in text
    assert re.search(r'<td class="nowrap">default/low-2</td><td class="fail nowrap">Terminating</td>', text)
    assert "preempted by default/nginx" in text


def test_explain_prints_whole_tables(tmp_path, capsys):
    nodes = "".join(f"""---
apiVersion: v1
kind: Node
metadata: {{name: a-rather-long-node-name-for-column-width-{i:02d}}}
spec: {{taints: [{{key: dedicated-to-a-very-long-team-name, value: v, effect: NoSchedule}}]}}
status: {{allocatable: {{cpu: "1", memory: 1Gi, pods: "110"}}}}
""" for i in range(70))
    f = tmp_path / "many.yaml"
    f.write_text(nodes + """---
apiVersion: v1
kind: Node
metadata: {name: roomy}
status: {allocatable: {cpu: "4", memory: 1Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: roomier}
status: {allocatable: {cpu: "8", memory: 1Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec: {containers: [{name: c, resources: {requests: {cpu: "2"}}}]}
""")
    assert main(["schedule", str(f), "--explain"]) == 0
    out = capsys.readouterr().out
    assert "..." not in out and "NaN" not in out and "<NA>" not in out and "None" not in out
    assert len(re.findall(r"^a-rather-long-node-name-for-column-width-\d\d +TaintToleration +node\(s\) had "
                          r"untolerated taint\(s\) +- +- +no$", out, re.M)) == 70
    assert re.search(r"^roomier +passed +- +\d+ +1 +yes$", out, re.M)
    assert not re.search(r" (True|False)$", out, re.M)  # chosen is yes / no, as the HTML report and widgets say
    assert "a-rather-long-node-name-for-column-width-69" in out


def test_version_and_help_without_markup(capsys):
    from kschedlab import __version__

    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"kschedlab {__version__}"
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "``" not in out and "schedule" in out and "simulate" in out
    # each command is listed once, with its description
    for command in ("demo", "schedule", "conformance", "bench", "simulate", "sweep"):
        assert sum(line.split()[0] == command for line in out.splitlines() if line.strip()) == 1, command


def test_bench_unknown_workload_is_one_line(capsys):
    assert main(["bench", "NoSuchShape"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unknown workload 'NoSuchShape': supported values: SchedulingBasic, ")
    assert err.count("\n") == 1 and "Traceback" not in err


def test_a_closed_pipe_is_not_a_traceback(tmp_path):
    nodes = "".join(f"""---
apiVersion: v1
kind: Node
metadata: {{name: n{i}}}
status: {{allocatable: {{cpu: "1", memory: 1Gi, pods: "110"}}}}
""" for i in range(200))
    f = tmp_path / "big.yaml"
    f.write_text(nodes + """---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec: {containers: [{name: c, resources: {requests: {cpu: "2"}}}]}
""")
    proc = subprocess.run(f"'{sys.executable}' -m kschedlab.cli schedule '{f}' -o yaml | head -1",
                          shell=True, capture_output=True, text=True, timeout=300)
    assert proc.stdout == "pods:\n"
    assert "Traceback" not in proc.stderr and "BrokenPipeError" not in proc.stderr, proc.stderr


def test_bench_table_shows_memory_in_binary_units(capsys):
    assert main(["bench", "SchedulingBasic", "--nodes", "10", "--init-pods", "5", "--pods", "10"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^ +peak memory: [0-9.]+(Ki|Mi|Gi)$", out, re.M)
    assert "peak_rss_mb" not in out and "None" not in out and "nan" not in out.lower()


def test_the_readme_shows_real_output(capsys, monkeypatch):
    """README.md's command-line examples are what the command prints."""
    root = Path(__file__).resolve().parents[1]
    monkeypatch.chdir(root)
    readme = (root / "README.md").read_text()
    blocks = re.findall(r"```text\n\$ kschedlab ([^\n]+)\n(.*?)```", readme, re.S)
    assert len(blocks) >= 2
    for command, expected in blocks:
        assert main(command.split()) == 0
        assert capsys.readouterr().out == expected, command


LONG_REASONS = """\
apiVersion: v1
kind: Node
metadata: {name: a-node-with-a-name-long-enough-to-wrap-at-its-hyphens}
status: {allocatable: {cpu: "1", memory: 1Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: c
    resources:
      requests: {cpu: "2", memory: 2Gi, example.com/a-very-long-extended-resource-name: "2"}
      limits: {example.com/a-very-long-extended-resource-name: "2"}
"""


def test_report_keeps_long_reasons_whole_and_node_names_on_one_line(tmp_path, capsys):
    f = tmp_path / "long.yaml"
    f.write_text(LONG_REASONS)
    report = tmp_path / "r.html"
    assert main(["schedule", str(f), "--report", str(report)]) == 0
    text = report.read_text()
    reasons = "Insufficient cpu; Insufficient memory; Insufficient example.com/a-very-long-extended-resource-name"
    assert f'col2" >{reasons}</td>' in text  # the explain table: whole
    # beside the filter grid the verdict is wrapped, not cut, and the margin makes room for it
    assert ("Insufficient cpu; Insufficient memory;\\u003cbr\\u003eInsufficient "
            "example.com\\u002fa-very-long-extended-resource-name") in text
    assert "td.nowrap, tbody th { white-space: nowrap; }" in text
    assert 'row0" >a-node-with-a-name-long-enough-to-wrap-at-its-hyphens</th>' in text


def test_explain_shows_every_attempt_and_the_preemption(capsys):
    assert main(["schedule", str(PREEMPTION), "--explain"]) == 0
    out = capsys.readouterr().out
    assert "\ndefault/nginx: unschedulable (attempt 1 of 2)\n" in out
    assert "\nPostFilter: nominated kube-01, preempting default/low-2\n" in out
    assert "\ndefault/nginx: kube-01 (attempt 2 of 2)\n" in out


def test_simulate_table_has_no_nan_or_none(tmp_path, capsys):
    manifest = tmp_path / "plain.yaml"
    manifest.write_text("""\
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: huge, namespace: default}
spec: {containers: [{name: c, image: nginx, resources: {requests: {cpu: "8"}}}]}
""")
    assert main(["simulate", str(manifest)]) == 0
    out = capsys.readouterr().out
    assert "default/huge" in out and "quiescent" in out
    assert not re.search(r"\b(NaN|None)\b", out)


def test_simulate_with_every_pod_prebound_says_so(capsys):
    assert main(["simulate", str(DATASETS / "kubelet" / "sim-oom-kill.yaml")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("no pod went through the scheduler (every pod was bound in the manifests)\n")
    assert "Empty DataFrame" not in out and "OOMKilled" in out


GANG_TOO_BIG = """\
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: train, namespace: ml}
spec: {schedulingPolicy: {gang: {minCount: 3}}}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: serve, namespace: ml}
spec: {schedulingPolicy: {gang: {minCount: 1}}}
""" + "".join(f"""---
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: ml}}
spec:
  schedulingGroup: {{podGroupName: {group}}}
  containers: [{{name: c, resources: {{requests: {{cpu: "1"}}}}}}]
""" for name, group in (("w0", "train"), ("w1", "train"), ("w2", "train"), ("s0", "serve")))


def test_schedule_shows_each_pod_groups_status_as_kubectl_would(tmp_path, capsys):
    f = tmp_path / "gangs.yaml"
    f.write_text(GANG_TOO_BIG)
    args = ["schedule", str(f), "--feature-gates", "GenericWorkload=true"]
    assert main([*args, "-o", "json"]) == 0
    groups = {g["metadata"]["name"]: g for g in json.loads(capsys.readouterr().out)["podGroups"]}
    assert sorted(groups) == ["serve", "train"]
    assert groups["train"]["apiVersion"] == "scheduling.k8s.io/v1beta1" and groups["train"]["kind"] == "PodGroup"
    assert groups["train"]["spec"]["schedulingPolicy"] == {"gang": {"minCount": 3}}
    (cond,) = groups["train"]["status"]["conditions"]
    assert (cond["type"], cond["status"], cond["reason"]) == ("PodGroupInitiallyScheduled", "False", "Unschedulable")
    assert cond["message"].startswith("minCount (3) cannot be satisfied")
    (cond,) = groups["serve"]["status"]["conditions"]
    assert (cond["type"], cond["status"], cond["reason"]) == ("PodGroupInitiallyScheduled", "True", "Scheduled")
    assert main([*args, "-o", "yaml"]) == 0
    import yaml

    doc = yaml.safe_load(capsys.readouterr().out)
    assert [g["status"]["conditions"][0]["status"] for g in doc["podGroups"]] == ["True", "False"]  # ml/serve, ml/train
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "podgroup ml/serve: PodGroupInitiallyScheduled=True (Scheduled)" in out
    assert "podgroup ml/train: PodGroupInitiallyScheduled=False (Unschedulable: minCount (3) cannot be satisfied" in out
    report = tmp_path / "r.html"
    assert main([*args, "--report", str(report)]) == 0
    text = report.read_text()
    assert "<h2>Pod groups</h2>" in text and "kubectl get podgroups,compositepodgroups -o yaml" in text
    assert re.search(r'<td class="nowrap">ml/train</td><td class="nowrap">PodGroupInitiallyScheduled</td>'
                     r'<td class="fail">False</td><td class="nowrap">Unschedulable</td>', text)


def test_schedule_without_pod_groups_has_no_pod_group_key(capsys):
    assert main(["schedule", str(PREEMPTION), "-o", "json"]) == 0
    assert "podGroups" not in json.loads(capsys.readouterr().out)


FGD_PLUGINS = "kschedlab.research.fgd.plugins:REGISTRY"


def test_out_of_tree_plugins_load_by_module_and_registry(capsys):
    """course/19-gpu-share.yaml enables OpenGpuShare and BestFitScore, the FGD experiment's
    out-of-tree plugins: refused without them, scheduled with ``--plugins`` (BestFit puts
    ``half`` on ``small``, as the exercise's solution says), by ``schedule`` and ``simulate``."""
    path = str(DATASETS / "course" / "19-gpu-share.yaml")
    assert main(["schedule", path]) == 2
    assert "error: filter plugin 'OpenGpuShare' does not exist" in capsys.readouterr().err
    assert main(["schedule", path, "--plugins", FGD_PLUGINS, "-o", "json"]) == 0
    pods = {p["name"]: p for p in json.loads(capsys.readouterr().out)["pods"]}
    assert (pods["default/half"]["node"], pods["default/half"]["status"]) == ("small", "Success")
    assert main(["simulate", path, "--plugins", FGD_PLUGINS, "-o", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [(p["pod"], p["node"]) for p in doc["pods"]] == [("default/half", "small")]


@pytest.mark.parametrize("flag, message", [
    ("nosuch_module_x:REGISTRY", "argument --plugins: cannot import module 'nosuch_module_x': "
                                 "No module named 'nosuch_module_x'"),
    ("kschedlab.research.fgd.plugins:NOPE", "argument --plugins: module 'kschedlab.research.fgd.plugins' has no "
                                            "attribute 'NOPE'"),
    ("kschedlab.research.fgd.plugins", "argument --plugins: 'kschedlab.research.fgd.plugins': expected "
                                       "MODULE:ATTRIBUTE"),
    ("kschedlab.research.fgd.plugins:SCORE_PLUGIN", "argument --plugins: kschedlab.research.fgd.plugins:SCORE_PLUGIN: "
                                                    "'Random' is not a plugin class"),
])
def test_a_bad_plugins_flag_is_one_usage_error(capsys, flag, message):
    path = str(DATASETS / "course" / "19-gpu-share.yaml")
    for command in ("schedule", "simulate"):
        with pytest.raises(SystemExit) as exit_:
            main([command, path, "--plugins", flag])
        assert exit_.value.code == 2
        assert message in capsys.readouterr().err


def test_an_out_of_tree_plugin_may_not_take_an_in_tree_name(capsys):
    """As kube-scheduler's ``Registry.Merge``: a name already registered is refused."""
    path = str(DATASETS / "course" / "19-gpu-share.yaml")
    assert main(["schedule", path, "--plugins", "kschedlab.framework.interface:REGISTRY"]) == 2
    assert "error: --plugins: a plugin named DefaultBinder already exists" in capsys.readouterr().err
