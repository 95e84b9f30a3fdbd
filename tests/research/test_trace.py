"""Job traces: the schema's checks (file, row, column), the generator, arrivals, streamed replay."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from kschedlab.api.errors import ManifestError
from kschedlab.research.trace import (
    GPU_RESOURCE,
    PAI_2020,
    SAMPLE,
    TRACE_COLUMNS,
    TraceShape,
    arrivals,
    generate_trace,
    make_nodes,
    read_trace,
    trace_pods,
    write_trace,
)
from kschedlab.sim import Simulation


def write(tmp_path, text, name="jobs.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


HEADER = "job,arrival,duration,cpu,memory,gpu,gang,priority\n"


@pytest.mark.parametrize("body, where", [
    ("a,0,60,1000,512,1,1,0\nb,5,60,1.5k,512,0,1,0\n", "row 1: cpu: invalid value '1.5k': expected a number"),
    ("a,0,60,1000,512,1,1,0\nb,5,60,1000,512,0,0,0\n", "row 1: gang: Invalid value: 0: must be at least 1"),
    ("a,0,-1,1000,512,1,1,0\n", "row 0: duration: Invalid value: -1: must be greater than 0"),
    ("a,0,60,1000,512,1.5,1,0\n", "row 0: gpu: Invalid value: 1.5: must be an integer"),
    ("a,-3,60,1000,512,1,1,0\n", "row 0: arrival: Invalid value: -3: must be at least 0"),
    ("a,0,60,1000,512,1,1,0\na,1,60,1000,512,1,1,0\n", "row 1: job: Duplicate value: 'a'"),
])
def test_a_bad_row_is_named_with_its_file_row_and_column(tmp_path, body, where):
    path = write(tmp_path, HEADER + body)
    with pytest.raises(ManifestError) as err:
        read_trace(path)
    assert str(err.value) == f"{path}: {where}"


def test_unknown_and_missing_columns(tmp_path):
    path = write(tmp_path, "arrival,cpu,memory,gpu,gang,priority,gpus\n0,1,1,1,1,0,1\n")
    with pytest.raises(ManifestError, match=r'jobs.csv: gpus: unknown field "gpus"'):
        read_trace(path)
    path = write(tmp_path, "arrival,cpu,memory,gang,priority\n0,1,1,1,0\n")
    with pytest.raises(ManifestError, match=r"jobs.csv: gpu: Required value"):
        read_trace(path)
    with pytest.raises(ManifestError, match=r"a trace is a .csv or .parquet file"):
        read_trace(write(tmp_path, "x", "jobs.txt"))


def test_an_openb_pod_list_given_as_a_trace_says_where_it_goes():
    openb = Path(__file__).parents[2] / ".." / "shared" / "traces" / "openb" / "openb_pod_list_default.csv"
    with pytest.raises(ManifestError) as err:
        read_trace(openb)
    assert str(err.value) == (f'{openb}: name: unknown field "name" (the columns are job, arrival, duration, cpu, '
                              "memory, gpu, gang, priority); this is an openb pod list: replay it with "
                              "`kschedlab packing` or a Sweep's spec.packing")


def test_parquet_and_csv_round_trip(tmp_path):
    trace = generate_trace(50, seed=4)
    for name in ("t.parquet", "t.csv"):
        back = read_trace(write_trace(trace, tmp_path / name))
        assert list(back.columns) == TRACE_COLUMNS
        pd.testing.assert_frame_equal(back, trace, check_exact=False, atol=1e-3)


def test_missing_duration_and_job_columns_and_unsorted_arrivals(tmp_path):
    path = write(tmp_path, "arrival,cpu,memory,gpu,gang,priority\n9,100,64,0,1,0\n2,100,64,0,1,0\n")
    trace = read_trace(path)
    assert list(trace["job"]) == ["job-1", "job-0"]  # sorted by arrival, each keeping its row's name
    assert trace["duration"].isna().all()


def test_the_shipped_sample_is_the_documented_draw():
    sample = read_trace(SAMPLE)
    drawn = generate_trace(200, seed=0, arrival_rate=0.05)
    pd.testing.assert_frame_equal(sample, drawn, check_exact=False, atol=1e-3)


def test_generator_is_seeded_and_follows_its_parameters():
    a, b = generate_trace(300, seed=7), generate_trace(300, seed=7)
    assert a.equals(b) and not a.equals(generate_trace(300, seed=8))
    only_cpu = generate_trace(200, seed=1, shape=TraceShape(gpu_counts=(0,), gpu_weights=(1.0,),
                                                            gang_sizes=(4,), gang_weights=(1.0,)))
    assert (only_cpu["gpu"] == 0).all() and (only_cpu["gang"] == 4).all()
    fast = generate_trace(2000, seed=1, arrival_rate=10.0)
    assert fast["arrival"].iloc[-1] / len(fast) == pytest.approx(0.1, rel=0.1)
    # GPU jobs ask for at least cpu_per_gpu millicores a GPU
    big = generate_trace(500, seed=2)
    assert (big["cpu"] >= (big["gpu"] * PAI_2020.cpu_per_gpu).clip(upper=PAI_2020.cpu_range[1])).all()
    assert trace_pods(generate_trace(pods=777, seed=5)) == 777


def test_arrivals_make_pod_groups_for_gangs_and_gpu_requests():
    trace = pd.DataFrame({"job": ["train", "serve"], "arrival": [1.0, 2.0], "duration": [30.0, float("nan")],
                          "cpu": [4000, 500], "memory": [2048, 256], "gpu": [2, 0], "gang": [3, 1],
                          "priority": [100, 0]})
    items = list(arrivals(trace))
    assert [(t, type(o).__name__, o.metadata.name) for t, o, _ in items] == [
        (1.0, "PodGroup", "train"), (1.0, "Pod", "train-0"), (1.0, "Pod", "train-1"), (1.0, "Pod", "train-2"),
        (2.0, "Pod", "serve-0")]
    group = items[0][1]
    assert group.spec.scheduling_policy.gang.min_count == 3 and group.spec.priority == 100
    pod = items[1][1]
    resources = pod.spec.containers[0].resources
    assert str(resources.requests[GPU_RESOURCE]) == "2" and str(resources.limits[GPU_RESOURCE]) == "2"
    assert str(resources.requests["cpu"]) == "4" and pod.spec.priority == 100
    assert pod.spec.scheduling_group.pod_group_name == "train" and items[1][2] == 30.0
    assert items[4][2] is None and items[4][1].spec.scheduling_group is None


def test_a_streamed_trace_is_read_as_the_clock_gets_there():
    trace = generate_trace(40, seed=3, arrival_rate=0.1)
    read = []

    def counting():
        for item in arrivals(trace):
            read.append(item[0])
            yield item

    sim = Simulation(make_nodes(4), gates={"GenericWorkload": True}, keep_traces=0)
    sim.stream(counting(), batch=8)
    assert read == []  # nothing read before the run
    sim.run(until=float(trace["arrival"].iloc[10]))
    assert 0 < len(read) < trace_pods(trace) + int((trace["gang"] > 1).sum())
    result = sim.run()
    assert len(result.pods) == trace_pods(trace)
    created = result.pods.set_index("pod")["created"]
    for row in trace.itertuples():
        assert created[f"trace/{row.job}-0"] == pytest.approx(row.arrival)
