"""A script that calls ``sweep()`` at import level, with no ``if __name__ == "__main__":``
guard, run as Python runs scripts: the LocalCluster's spawned workers do not import it again
(they used to, and started a sweep of their own: Dask's "Nanny failed to start")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = '''
from kschedlab.research import Workload
from kschedlab.research.sweep import sweep

print("importing", __name__, flush=True)
table = sweep(workloads=[Workload("w", generate={"jobs": 4, "arrival_rate": 0.5}, nodes={"count": 2}, until=120)],
              seeds=[0, 1], output="out", workers=1, progress=False)
print("runs", len(table), "computed", len(table.attrs["computed"]))
'''


@pytest.mark.parametrize("how", ["path", "module"])
def test_an_unguarded_script_runs_its_sweep_once(tmp_path, how):
    (tmp_path / "unguarded.py").write_text(SCRIPT)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(tmp_path)])}
    argv = [sys.executable, "unguarded.py"] if how == "path" else [sys.executable, "-m", "unguarded"]
    done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Nanny failed to start" not in done.stderr
    # the script ran once, as __main__; no worker imported it
    assert done.stdout.splitlines() == ["importing __main__", "runs 2 computed 2"]
    assert len(list((tmp_path / "out" / "parts").glob("run-*.parquet"))) == 2
