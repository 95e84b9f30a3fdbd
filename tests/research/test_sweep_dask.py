"""Sweeps on Dask: a plugin class defined in ``__main__`` travels to worker processes, a run whose
worker dies is run again, an interrupted sweep resumes without recomputing what finished."""

from __future__ import annotations

import logging
import os
import warnings

import pytest

from kschedlab.api.errors import ManifestError
from kschedlab.research import Variant, Workload
from kschedlab.research.sweep import PARTS, CorruptPartWarning, WorkerLostWarning, read_results, sweep

distributed = pytest.importorskip("distributed")

#: a Score plugin as a notebook cell would define it; executed with ``__name__ == "__main__"``
#: below, so the class belongs to no importable module and must travel by value
PLUGIN_SOURCE = '''
import os
import warnings
import numpy as np
from kschedlab.framework.interface import MAX_NODE_SCORE, Plugin


class GPUBinPacking(Plugin):
    """Prefer nodes whose GPUs are already in use (bin packing on nvidia.com/gpu)."""

    name = "GPUBinPacking"
    crash_marker = None  # a file: the first worker to score a pod dies, once

    def score_nodes(self, state, pod_info, snapshot, rows):
        if self.crash_marker is not None and not os.path.exists(self.crash_marker):
            open(self.crash_marker, "w").close()
            os._exit(1)
        col = snapshot.res_index.get("nvidia.com/gpu")
        if col is None:
            return np.zeros(len(rows), np.int64)
        alloc, used = snapshot.allocatable[col, rows], snapshot.requested[col, rows]
        return np.where(alloc > 0, used * MAX_NODE_SCORE // np.maximum(alloc, 1), 0).astype(np.int64)
'''


def main_scope_class(**attrs):
    scope = {"__name__": "__main__"}
    exec(compile(PLUGIN_SOURCE, "<notebook cell>", "exec"), scope)
    cls = scope["GPUBinPacking"]
    for key, value in attrs.items():
        setattr(cls, key, value)
    return cls


WORKLOAD = Workload("pai", generate={"jobs": 12, "arrival_rate": 0.1}, nodes={"count": 2}, until=600,
                    interval=60)


def variants(cls):
    return [Variant("baseline"), Variant("gpu-binpack", {"GPUBinPacking": cls}, ({"name": "GPUBinPacking",
                                                                                 "weight": 5},))]


@pytest.fixture(scope="module")
def process_client():
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                      silence_logs=logging.CRITICAL) as cluster, Client(cluster) as client:
        yield client


def test_main_scope_plugin_runs_on_worker_processes(tmp_path, process_client):
    cls = main_scope_class()
    assert cls.__module__ == "__main__"
    table = sweep(variants=variants(cls), workloads=[WORKLOAD], seeds=[0, 1], output=tmp_path,
                  client=process_client, progress=False)
    assert list(zip(table["variant"], table["seed"])) == [("baseline", 0), ("baseline", 1), ("gpu-binpack", 0),
                                                          ("gpu-binpack", 1)]
    assert len(table.attrs["computed"]) == 4 and (tmp_path / "results.parquet").exists()
    assert len(list((tmp_path / PARTS).glob("run-*.parquet"))) == 4
    # the plugin ran over there: packing the GPUs changes where pods go, and so the numbers
    by_variant = table.groupby("variant")["gpu_fragmentation_mean"].mean()
    assert by_variant["gpu-binpack"] != by_variant["baseline"]
    # the same runs in this process give the same rows
    again = sweep(variants=variants(cls), workloads=[WORKLOAD], seeds=[0, 1], output=tmp_path / "local",
                  client=process_client, progress=False)
    assert again["pending_p90"].tolist() == table["pending_p90"].tolist()


def test_a_run_whose_worker_dies_is_run_again(tmp_path, process_client):
    marker = tmp_path / "crashed"
    cls = main_scope_class(crash_marker=str(marker))
    with pytest.warns(WorkerLostWarning, match="died or left; the runs it held are run again"):
        table = sweep(variants=variants(cls)[1:], workloads=[WORKLOAD], seeds=[0], output=tmp_path / "out",
                      client=process_client, progress=False)
    assert marker.exists()  # a worker process died on the first attempt, and the sweep said so
    assert len(table) == 1 and table["scheduled"].iloc[0] > 0


class Interrupted(Exception):
    """Stands for Ctrl-C or a killed client between two runs."""


def test_interrupted_sweep_resumes_without_recomputing(tmp_path):
    from distributed import Client, LocalCluster

    cls = main_scope_class()
    args = dict(variants=variants(cls), workloads=[WORKLOAD], seeds=[0, 1, 2], output=tmp_path, progress=False)
    seen = []

    def interrupt(row):
        seen.append(row["run_id"])
        if len(seen) == 2:
            raise Interrupted

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0",
                      silence_logs=logging.CRITICAL) as cluster, Client(cluster) as client:
        with pytest.raises(Interrupted):
            sweep(**args, client=client, on_result=interrupt)
        assert sorted(read_results(tmp_path)["run_id"]) == sorted(seen)
        # a part left half-written by a killed process is not taken for a result
        (tmp_path / PARTS / "run-0000000000000000.tmp").write_bytes(b"partial")
        table = sweep(**args, client=client)
    assert len(table) == 6
    assert set(table.attrs["computed"]) == set(table["run_id"]) - set(seen)
    assert len(table.attrs["computed"]) == 4
    assert not os.path.exists(tmp_path / PARTS / "run-0000000000000000.parquet")


def test_a_corrupt_part_is_named_and_run_again(tmp_path):
    from distributed import Client, LocalCluster

    args = dict(variants=[Variant("baseline")], workloads=[WORKLOAD], seeds=[0, 1], output=tmp_path, progress=False)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0",
                      silence_logs=logging.CRITICAL) as cluster, Client(cluster) as client:
        first = sweep(**args, client=client)
        part = tmp_path / PARTS / f"run-{first['run_id'].iloc[1]}.parquet"
        part.write_bytes(part.read_bytes()[:40])  # truncated, as a full disk would leave it
        with pytest.raises(ManifestError, match=f"{part}: cannot be read as parquet"):
            read_results(tmp_path)
        with pytest.warns(CorruptPartWarning, match=f"{part}: cannot be read as parquet .*; run "
                                                    f"{first['run_id'].iloc[1]} is run again"):
            again = sweep(**args, client=client)
    assert again.attrs["computed"] == [first["run_id"].iloc[1]]
    assert again["pending_p90"].tolist() == first["pending_p90"].tolist()


def test_no_worker_seems_lost_while_the_client_refreshes_its_view():
    """The client refreshes its cached view of the scheduler every 2 s, without workers; a lost
    worker is looked for in the scheduler's own list, so no refresh makes every worker seem gone
    (CI once saw both workers of notebook 18 "died or left" mid-sweep, none had)."""
    import dask
    from distributed import Client, LocalCluster

    from kschedlab.research.sweep import _report_lost

    with dask.config.set({"distributed.client.scheduler-info-interval": "1ms"}), \
            LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0",
                         silence_logs=logging.CRITICAL) as cluster, Client(cluster) as client:
        known: dict[str, str] = {}
        _report_lost(client, known)
        assert len(known) == 2
        with warnings.catch_warnings():
            warnings.simplefilter("error", WorkerLostWarning)
            for _ in range(300):
                _report_lost(client, known)
