"""Packing runs on the sweep machinery: a parquet part per run, the whole table, resume."""

from __future__ import annotations

import logging
from pathlib import Path

from kschedlab.research.fgd.openb import DEFAULT_NODES, DEFAULT_PODS
from kschedlab.research.fgd.runs import PackingTrace, packing_runs, summary
from kschedlab.research.sweep import describe, missing_runs, sweep

SAMPLE = Path(__file__).parents[3] / "datasets" / "openb-sample"


def test_packing_sweep_writes_parts_and_resumes(tmp_path):
    from distributed import Client, LocalCluster

    trace = PackingTrace("sample", str(SAMPLE / DEFAULT_NODES), str(SAMPLE / DEFAULT_PODS))
    runs = packing_runs(["GpuPacking", "FGD"], [trace], [42])
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0",
                      silence_logs=logging.CRITICAL) as cluster, Client(cluster) as client:
        first = sweep(runs=runs, output=tmp_path, client=client, progress=False)
        assert len(first.attrs["computed"]) == 2 and len(list((tmp_path / "parts").glob("run-*.parquet"))) == 2
        more = packing_runs(["GpuPacking", "FGD"], [trace], [42, 43])
        assert len(missing_runs(more, tmp_path)) == 2
        second = sweep(runs=more, output=tmp_path, client=client, progress=False)
    assert sorted(second.attrs["computed"]) == sorted(r.run_id for r in more if r.seed == 43)
    assert (tmp_path / "results.parquet").exists() and len(second) == 4
    row = second[(second.policy == "FGD") & (second.seed == 42)].iloc[0]
    assert row.unallocated_100 == first[first.policy == "FGD"].iloc[0].unallocated_100
    assert list(row.arrived_pct)[:3] == [0, 1, 2] and len(row.unallocated) == len(row.arrived_pct)
    assert list(summary(second)["policy"]) == ["GpuPacking", "FGD"] and "GpuPacking" in describe(second)
