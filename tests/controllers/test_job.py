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
        {"job": "default/pi", "completions": "6/6", "active": 0, "failed": 0, "state": "Complete",
         "completionTime": 190.0}]


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
    assert "Job default/pi: 4/4 completions, 0 active, 0 failed, Complete at 130 s" in capsys.readouterr().out
    assert main(["simulate", str(path), "-o", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["jobs"] == [
        {"job": "default/pi", "completions": "4/4", "active": 0, "failed": 0, "state": "Complete",
         "completionTime": 130.0}]


def test_a_job_of_the_manifests_runs_its_pods_for_ever(tmp_path):
    # no run time is given to the pods of a loaded Job: they never finish, the Job never completes
    path = tmp_path / "job.yaml"
    path.write_text(NODE + "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: pi}\nspec:\n"
                    + textwrap.indent("completions: 4\nparallelism: 2\n" + TEMPLATE, "  "))
    sim, result = run(path)
    assert len(result.pods) == 2 and result.pods["finished"].isna().all()
    assert jobs_summary(sim.cluster)[0] | {"completionTime": None} == {
        "job": "default/pi", "completions": "0/4", "active": 2, "failed": 0, "state": "Running",
        "completionTime": None}


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


def preempted_job(tmp_path, job_spec: str = ""):
    """One 2-CPU node; at 0 s a Job of one 1500m pod running 100 s, at 10 s a pod of higher priority
    running 60 s, which preempts it (grace period 30 s: the victim is gone at 40 s)."""
    path = tmp_path / "preempted.yaml"
    path.write_text(NODE.replace('cpu: "4"', 'cpu: "2"') + textwrap.dedent("""\
        ---
        apiVersion: scheduling.k8s.io/v1
        kind: PriorityClass
        metadata: {name: high}
        value: 1000
        ---
        apiVersion: kschedlab.io/v1alpha1
        kind: Simulation
        metadata: {name: preempted}
        spec:
          until: 1000
          events:
          - at: 0
            duration: 100
            create:
              apiVersion: batch/v1
              kind: Job
              metadata: {name: pi}
              spec:
                template:
                  spec:
                    restartPolicy: Never
                    containers: [{name: pi, image: perl, resources: {requests: {cpu: 1500m}}}]
        """) + textwrap.indent(textwrap.dedent(job_spec), " " * 8) + textwrap.indent(textwrap.dedent("""\
          - at: 10
            duration: 60
            create:
              apiVersion: v1
              kind: Pod
              metadata: {name: urgent}
              spec:
                priorityClassName: high
                containers: [{name: c, image: x, resources: {requests: {cpu: 1500m}}}]
        """), "  "))
    sim, result = run(path)
    rows = result.pods.set_index("pod")
    jobs = rows[rows.index.str.startswith("default/pi-")].sort_values("created")
    return sim, sim.cluster.get("Job", "default/pi"), rows, jobs


def test_a_preempted_job_pod_is_replaced_at_once_and_counted_failed_when_gone(tmp_path):
    # podReplacementPolicy TerminatingOrFailed (the default without a podFailurePolicy): the replacement
    # is created when the victim is deleted, binds when the preemptor finishes, and completes the Job
    sim, job, rows, jobs = preempted_job(tmp_path)
    assert list(jobs["created"]) == [0, 10] and list(jobs["preempted"].fillna(-1)) == [10, -1]
    assert list(jobs["bound"]) == [0, 100] and list(jobs["finished"].fillna(-1)) == [-1, 200]
    assert rows.loc["default/urgent", ["bound", "finished"]].tolist() == [40, 100]
    assert (job.status.succeeded, job.status.failed) == (1, 1)
    assert job.status.completion_time.timestamp() == 200


def test_a_pod_failure_policy_that_ignores_disruptions_does_not_count_the_victim(tmp_path):
    # with a podFailurePolicy the replacement policy defaults to Failed: the victim is replaced once gone
    sim, job, rows, jobs = preempted_job(tmp_path, """\
        podFailurePolicy:
          rules:
          - action: Ignore
            onPodConditions: [{type: DisruptionTarget}]
        """)
    assert list(jobs["created"]) == [0, 40]
    assert (job.status.succeeded, job.status.failed or 0) == (1, 0)


def test_a_counted_failure_holds_the_replacement_back_for_the_pod_failure_backoff(tmp_path):
    sim, job, rows, jobs = preempted_job(tmp_path, """\
        podReplacementPolicy: Failed
        """)
    assert list(jobs["created"]) == [0, 50]  # gone at 40 s, then 10 s of backoff
    assert (job.status.succeeded, job.status.failed) == (1, 1)


def test_past_its_backoff_limit_the_job_fails_and_deletes_its_pods(tmp_path):
    sim, job, rows, jobs = preempted_job(tmp_path, """\
        backoffLimit: 0
        """)
    message = "Job has reached the specified backoff limit"
    assert [(c.type, c.reason, c.message) for c in job.status.conditions] == [
        ("FailureTarget", "BackoffLimitExceeded", message), ("Failed", "BackoffLimitExceeded", message)]
    assert list(jobs["created"]) == [0, 10] and jobs["bound"].isna().tolist() == [False, True]
    assert not any(k.startswith("default/pi-") for k in sim.cluster.pods)  # the replacement was deleted
    assert "Job default/pi: Warning BackoffLimitExceeded (job-controller): " + message in map(str, sim.cluster.events)
    assert jobs_summary(sim.cluster)[0]["state"] == "Failed"


def test_a_fail_job_rule_fails_the_job_with_the_rule_in_its_message(tmp_path):
    sim, job, rows, jobs = preempted_job(tmp_path, """\
        podFailurePolicy:
          rules:
          - action: FailJob
            onPodConditions: [{type: DisruptionTarget}]
        """)
    (failed,) = [c for c in job.status.conditions if c.type == "Failed"]
    assert failed.reason == "PodFailurePolicy"
    assert failed.message == f"Pod {jobs.index[0]} has condition DisruptionTarget matching FailJob rule at index 0"
    assert list(jobs["created"]) == [0]  # replaced only once failed (policy Failed), and it failed the Job


@pytest.mark.parametrize("operator, values, fails", [("In", [137], True), ("In", [1, 2], False),
                                                     ("NotIn", [1], True), ("NotIn", [137], False)])
def test_an_exit_code_rule_matches_a_container_that_was_oom_killed(operator, values, fails):
    from kschedlab.api.core import ContainerStatus
    from kschedlab.api.loader import load_text
    from kschedlab.cluster import Cluster
    from kschedlab.controllers.job import JobController
    from kschedlab.controllers.manifests import create

    cluster = Cluster(create(load_text(textwrap.dedent(f"""\
        apiVersion: batch/v1
        kind: Job
        metadata: {{name: pi, namespace: default}}
        spec:
          podFailurePolicy:
            rules:
            - action: FailJob
              onExitCodes: {{containerName: pi, operator: {operator}, values: {values}}}
          template: {{spec: {{restartPolicy: Never, containers: [{{name: pi, image: perl}}]}}}}
        """))))
    (pod,) = cluster.pods.values()
    cluster.remove_pod(pod.key)
    pod.status.phase = "Failed"
    pod.status.container_statuses = [ContainerStatus.model_validate(
        {"name": "pi", "state": {"terminated": {"exitCode": 137, "reason": "OOMKilled"}}})]
    sync = JobController(cluster).pod_failed(pod, now=30.0)
    job = cluster.get("Job", "default/pi")
    if fails:
        assert [c.type for c in job.status.conditions] == ["FailureTarget", "Failed"]
        assert job.status.conditions[1].message == (
            f"Container pi for pod {pod.key} failed with exit code 137 matching FailJob rule at index 0")
        assert sync.created == []
    else:  # counted, and replaced after the 10 s backoff
        assert job.status.failed == 1 and job.status.conditions == []
        assert (sync.created, sync.retry_at) == ([], 40.0)


def test_the_preempted_jobs_scenario_runs_as_its_header_derives():
    from pathlib import Path

    sim, result = run(Path(__file__).resolve().parents[2] / "datasets" / "preemption" / "12-preempted-jobs.yaml")
    rows = result.pods.set_index("pod")
    for job, replaced_at, failed in (("plain", 10, 1), ("tolerant", 40, 0)):
        pods = rows[rows.index.str.startswith(f"default/{job}-")].sort_values("created")
        assert list(pods["created"]) == [0, replaced_at] and list(pods["bound"]) == [0, 100]
        assert pods["preempted"].iloc[0] == 10 and pods["finished"].iloc[1] == 200
        status = sim.cluster.get("Job", f"default/{job}").status
        assert (status.succeeded, status.failed or 0, status.completion_time.timestamp()) == (1, failed, 200)
    assert rows.loc[["default/urgent-1", "default/urgent-2"], "bound"].tolist() == [40, 40]


def test_a_replacement_joins_the_pod_group_the_job_controller_manages():
    from datetime import datetime, timezone

    from kschedlab.api.loader import load_text
    from kschedlab.cluster import Cluster
    from kschedlab.controllers.job import JobController
    from kschedlab.controllers.manifests import create

    cluster = Cluster(create(load_text(textwrap.dedent("""\
        apiVersion: scheduling.k8s.io/v1beta1
        kind: Workload
        metadata: {name: train-policy, namespace: default}
        spec:
          controllerRef: {apiGroup: batch, kind: Job, name: train}
          podGroupTemplates: [{name: worker, schedulingPolicy: {gang: {minCount: 2}}}]
        ---
        apiVersion: batch/v1
        kind: Job
        metadata: {name: train, namespace: default}
        spec:
          parallelism: 2
          completions: 2
          completionMode: Indexed
          template: {spec: {restartPolicy: Never, containers: [{name: w, image: trainer}]}}
        """)), feature_gates={"GenericWorkload": True}))
    (group,) = cluster.of_kind("PodGroup")
    first = cluster.pods[sorted(cluster.pods)[0]]
    assert first.spec.scheduling_group.pod_group_name == group.name
    cluster.mark_terminating(first.key, datetime.fromtimestamp(40, timezone.utc), 30)
    (new,) = JobController(cluster, gates={"GenericWorkload": True}).pod_terminating(first, now=10.0).created
    assert new.spec.scheduling_group.pod_group_name == group.name
    assert new.metadata.annotations["batch.kubernetes.io/job-completion-index"] == \
        first.metadata.annotations["batch.kubernetes.io/job-completion-index"]
    assert len(cluster.of_kind("PodGroup")) == 1


def test_a_job_past_its_active_deadline_fails_and_its_pods_are_deleted(tmp_path):
    # two waves of two 60 s pods, one at a time on the node (2 CPU each): the deadline (100 s after the
    # start at 10 s) comes in the second wave; the running pod is deleted gracefully, the pending one at once
    spec = "completions: 4\nparallelism: 2\nactiveDeadlineSeconds: 100\n" + TEMPLATE.replace('cpu: "1"', 'cpu: "3"')
    sim, result = run(scenario(tmp_path, spec))
    job = sim.cluster.get("Job", "default/pi")
    message = "Job was active longer than specified deadline"
    assert [(c.type, c.reason, c.message) for c in job.status.conditions] == [
        ("FailureTarget", "DeadlineExceeded", message), ("Failed", "DeadlineExceeded", message)]
    assert job.status.start_time.timestamp() == 10 and job.status.succeeded == 1
    pods = result.pods.sort_values(["created", "bound"])
    assert list(pods["created"]) == [10, 10, 70] and list(pods["bound"].fillna(-1)) == [10, 70, -1]
    assert not any(k.startswith("default/pi-") for k in sim.cluster.pods)
    assert jobs_summary(sim.cluster)[0]["state"] == "Failed"


def test_a_failure_asks_for_no_later_sync_when_the_job_wants_no_more_pods():
    from kschedlab.api.loader import load_text
    from kschedlab.cluster import Cluster
    from kschedlab.controllers.job import JobController
    from kschedlab.controllers.manifests import create

    def after_a_failure(completions: str):
        cluster = Cluster(create(load_text(textwrap.dedent(f"""\
            apiVersion: batch/v1
            kind: Job
            metadata: {{name: pi, namespace: default}}
            spec:
              {completions}
              parallelism: 3
              template: {{spec: {{restartPolicy: Never, containers: [{{name: pi, image: perl}}]}}}}
            """))))
        first, second, _ = sorted(cluster.pods.values(), key=lambda p: p.key)
        controller = JobController(cluster)
        for pod, phase in ((first, "Succeeded"), (second, "Failed")):
            cluster.remove_pod(pod.key)
            pod.status.phase = phase
            sync = (controller.pod_succeeded if phase == "Succeeded" else controller.pod_failed)(pod, now=30.0)
        return sync.created, sync.retry_at

    # six completions: the failed pod is replaced once the 10 s backoff has passed
    assert after_a_failure("completions: 6") == ([], 40.0)
    # a work queue after a success starts no pod, so the failure asks for no sync
    assert after_a_failure("") == ([], None)
