"""The Job controller in a simulation: pods that succeed are counted, the next ones start while
completions remain, and the Job completes (upstream pkg/controller/job)."""

from __future__ import annotations

import json
import textwrap

import pytest

from kschedlab.api.errors import ManifestError
from kschedlab.cli import main
from kschedlab.controllers.job import format_indexes, jobs_summary
from kschedlab.sim.scenario import from_files

NODE = """\
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
"""


def scenario(tmp_path, spec: str, duration: float = 60, kind: str = "Job"):
    path = tmp_path / "jobs.yaml"
    path.write_text(NODE + textwrap.dedent(f"""\
        ---
        apiVersion: kschedlab.io/v1alpha1
        kind: Simulation
        metadata: {{name: waves}}
        spec:
          until: 1000
          events:
          - at: 10
            duration: {duration}
            create:
              apiVersion: {"batch/v1" if kind == "Job" else "apps/v1"}
              kind: {kind}
              metadata: {{name: pi}}
              spec:
        """) + textwrap.indent(textwrap.dedent(spec), " " * 8))
    return path


TEMPLATE = """\
template:
  spec:
    restartPolicy: Never
    containers: [{name: pi, image: perl, resources: {requests: {cpu: "1"}}}]
"""


def run(path):
    sim, until = from_files(path)
    result = sim.run(until=until)
    return sim, result


def test_a_job_runs_its_completions_in_waves_of_its_parallelism(tmp_path):
    sim, result = run(scenario(tmp_path, "completions: 6\nparallelism: 2\n" + TEMPLATE))
    pods = result.pods.sort_values(["created", "pod"])
    assert list(pods["created"]) == [10, 10, 70, 70, 130, 130]
    assert list(pods["finished"]) == [70, 70, 130, 130, 190, 190]
    assert all(p.startswith("default/pi-") for p in pods["pod"]) and pods["pod"].nunique() == 6
    job = sim.cluster.get("Job", "default/pi")
    assert (job.status.succeeded, job.status.active) == (6, 0)
    assert [(c.type, c.status, c.reason, c.message) for c in job.status.conditions] == [
        ("SuccessCriteriaMet", "True", "CompletionsReached", "Reached expected number of succeeded pods"),
        ("Complete", "True", "CompletionsReached", "Reached expected number of succeeded pods")]
    assert job.status.completion_time.timestamp() == 190
    assert [str(e) for e in sim.cluster.events] == [
        "Job default/pi: Normal Completed (job-controller): Job completed"]
    assert jobs_summary(sim.cluster) == [
        {"job": "default/pi", "completions": "6/6", "active": 0, "state": "Complete", "completionTime": 190.0}]


def test_an_indexed_job_starts_each_index_once(tmp_path):
    sim, result = run(scenario(tmp_path, "completions: 5\nparallelism: 2\ncompletionMode: Indexed\n" + TEMPLATE))
    pods = result.pods.sort_values(["created", "pod"])
    indexes = [int(p.split("-")[1]) for p in pods["pod"]]
    assert sorted(indexes) == [0, 1, 2, 3, 4]
    assert list(pods["created"]) == [10, 10, 70, 70, 130]
    job = sim.cluster.get("Job", "default/pi")
    assert (job.status.succeeded, job.status.completed_indexes) == (5, "0-4")
    assert jobs_summary(sim.cluster)[0]["state"] == "Complete"


def test_a_work_queue_job_starts_no_pod_after_a_success_and_completes_with_its_last_pod(tmp_path):
    sim, result = run(scenario(tmp_path, "parallelism: 3\n" + TEMPLATE))
    assert list(result.pods["created"]) == [10, 10, 10]
    job = sim.cluster.get("Job", "default/pi")
    assert job.status.succeeded == 3 and job.status.completion_time.timestamp() == 70
    assert jobs_summary(sim.cluster)[0]["completions"] == "3/1 of 3"


def test_a_job_whose_node_is_full_waits_and_the_next_wave_follows_it(tmp_path):
    # four pods of 2 CPUs at parallelism 4 on a 4-CPU node: two run, two wait for them
    spec = "completions: 6\nparallelism: 4\n" + TEMPLATE.replace('cpu: "1"', 'cpu: "2"')
    sim, result = run(scenario(tmp_path, spec))
    bound = sorted(result.pods["bound"])
    assert bound == [10, 10, 70, 70, 130, 130]
    assert sim.cluster.get("Job", "default/pi").status.succeeded == 6


def test_kschedlab_simulate_reports_the_jobs(tmp_path, capsys):
    path = scenario(tmp_path, "completions: 4\nparallelism: 2\n" + TEMPLATE)
    assert main(["simulate", str(path)]) == 0
    assert "Job default/pi: 4/4 completions, 0 active, Complete at 130 s" in capsys.readouterr().out
    assert main(["simulate", str(path), "-o", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["jobs"] == [
        {"job": "default/pi", "completions": "4/4", "active": 0, "state": "Complete", "completionTime": 130.0}]


def test_a_job_of_the_manifests_runs_its_pods_for_ever(tmp_path):
    # no run time is given to the pods of a loaded Job: they never finish, the Job never completes
    path = tmp_path / "job.yaml"
    path.write_text(NODE + "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: pi}\nspec:\n"
                    + textwrap.indent("completions: 4\nparallelism: 2\n" + TEMPLATE, "  "))
    sim, result = run(path)
    assert len(result.pods) == 2 and result.pods["finished"].isna().all()
    assert jobs_summary(sim.cluster)[0] | {"completionTime": None} == {
        "job": "default/pi", "completions": "0/4", "active": 2, "state": "Running", "completionTime": None}


def test_other_workloads_cannot_be_created_by_an_event(tmp_path):
    spec = "replicas: 1\nselector: {matchLabels: {app: pi}}\n" + TEMPLATE.replace(
        "template:\n", "template:\n  metadata: {labels: {app: pi}}\n").replace("restartPolicy: Never", "")
    with pytest.raises(ManifestError, match=r"cannot create a ReplicaSet during a simulation \(Pod, Node, Job, "):
        from_files(scenario(tmp_path, spec, kind="ReplicaSet"))


@pytest.mark.parametrize("indexes, text", [
    (set(), ""), ({3}, "3"), ({0, 1}, "0,1"), ({0, 1, 2}, "0-2"), ({0, 1, 2, 4, 6, 7, 9, 10, 11, 12}, "0-2,4,6,7,9-12")])
def test_completed_indexes_are_written_as_the_controller_writes_them(indexes, text):
    assert format_indexes(indexes) == text


def test_the_job_waves_scenario_runs_as_its_header_derives():
    from pathlib import Path

    sim, result = run(Path(__file__).resolve().parents[2] / "datasets" / "sim" / "job-waves.yaml")
    pods = result.pods.assign(index=[int(p.split("-")[1]) for p in result.pods["pod"]]).sort_values("index")
    assert list(pods["index"]) == [0, 1, 2, 3, 4, 5]
    assert list(pods["created"]) == [0, 0, 0, 0, 30, 30]
    assert list(pods["bound"]) == [0, 0, 30, 30, 60, 60]
    assert list(pods["finished"]) == [30, 30, 60, 60, 90, 90]
    job = sim.cluster.get("Job", "default/render")
    assert (job.status.succeeded, job.status.completed_indexes) == (6, "0-5")
    assert [c.type for c in job.status.conditions] == ["SuccessCriteriaMet", "Complete"]
    assert job.status.completion_time.timestamp() == 90
