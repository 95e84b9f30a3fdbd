"""The openb trace (Alibaba ``cluster-trace-gpu-v2023``) and a synthetic sample of its schema.

Nodes: ``sn, cpu_milli, memory_mib, gpu, model``; pods: ``name, cpu_milli, memory_mib, num_gpu,
gpu_milli, gpu_spec, qos, pod_phase, creation_time, deletion_time, scheduled_time``. The trace is
read from a path (the project does not ship it); :func:`generate_sample` writes a small seeded
sample of the same schema, shipped under ``datasets/openb-sample/``.

>>> nodes, pods = sample_frames(seed=0, nodes=4, pods=12)
>>> list(nodes.columns) == NODE_COLUMNS, list(pods.columns) == POD_COLUMNS, len(pods)
(True, True, 12)
>>> pod_res(pods.iloc[0]).gpu_number >= 0
True
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from kschedlab.research.fgd.model import DEFAULT_MILLI_CPU, MILLI, PodRes

__all__ = ["NODE_COLUMNS", "POD_COLUMNS", "FAMILIES", "read_nodes", "read_pods", "pod_res", "family",
           "sample_frames", "generate_sample", "SAMPLE_DIR", "DEFAULT_NODES", "DEFAULT_PODS", "OPENB_GPUS"]

NODE_COLUMNS = ["sn", "cpu_milli", "memory_mib", "gpu", "model"]
POD_COLUMNS = ["name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_spec", "qos", "pod_phase",
               "creation_time", "deletion_time", "scheduled_time"]
#: the trace families the paper varies, by file-name prefix
FAMILIES = ("default", "gpushare", "multigpu", "gpuspec", "cpu")
#: the file names of the paper's default experiment
DEFAULT_NODES = "openb_node_list_gpu_node.csv"
DEFAULT_PODS = "openb_pod_list_default.csv"
#: the GPUs of the openb GPU nodes (the paper's cluster)
OPENB_GPUS = 6212
#: the shipped synthetic sample, relative to the repository root
SAMPLE_DIR = Path("datasets") / "openb-sample"


def _read(path: str | Path, columns: list[str], ints: list[str]) -> pd.DataFrame:
    path = Path(path)
    frame = pd.read_csv(path, dtype={"gpu_spec": str, "model": str, "sn": str, "name": str},
                        keep_default_na=False)
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{path}: missing column(s) {', '.join(missing)}")
    for col in ints:
        values = pd.to_numeric(frame[col], errors="coerce")
        bad = values.isna() | (values < 0)
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            raise ValueError(f"{path}: row {row + 2}, column {col}: {frame[col].iloc[row]!r} is not a "
                             f"non-negative integer")
        frame[col] = values.astype(np.int64)
    return frame


def read_nodes(path: str | Path) -> pd.DataFrame:
    """A node list (``openb_node_list_*.csv``), checked."""
    return _read(path, NODE_COLUMNS, ["cpu_milli", "memory_mib", "gpu"])


def read_pods(path: str | Path) -> pd.DataFrame:
    """A pod list (``openb_pod_list_*.csv``), checked: a sharing pod asks for less than one GPU
    of exactly one GPU, whole-GPU pods for 1000 thousandths of each. ``gpu_spec`` may be absent
    (the ``multigpu*`` files have none): no pod is bound to a model."""
    frame = _read(path, POD_COLUMNS[:5], ["cpu_milli", "memory_mib", "num_gpu", "gpu_milli"])
    if "gpu_spec" not in frame.columns:
        frame["gpu_spec"] = ""
    bad = ((frame.num_gpu > 1) & (frame.gpu_milli != MILLI)) | (frame.gpu_milli > MILLI) | \
          ((frame.num_gpu >= 1) & (frame.gpu_milli == 0))
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise ValueError(f"{path}: row {row + 2}: num_gpu {frame.num_gpu.iloc[row]} with gpu_milli "
                         f"{frame.gpu_milli.iloc[row]}: a pod shares one GPU or takes whole ones")
    return frame


def pod_res(row) -> PodRes:
    """The simulator's view of one pod row (``GetPodResource``: a zero CPU request counts 100m)."""
    num = int(row.num_gpu)
    return PodRes(int(row.cpu_milli) or DEFAULT_MILLI_CPU, int(row.gpu_milli) if num else 0, num,
                  str(row.gpu_spec or ""))


def family(pods_file: str | Path) -> str:
    """The trace family of a pod list file name.

    >>> family("openb_pod_list_gpushare40.csv"), family("x/openb_pod_list_default.csv")
    ('gpushare', 'default')
    """
    stem = Path(pods_file).stem.removeprefix("openb_pod_list_")
    for name in FAMILIES:
        if stem.startswith(name):
            return name
    return stem


def sample_frames(seed: int = 0, nodes: int = 64, pods: int = 300) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A synthetic cluster and pod list with the openb schema and roughly its mix: GPU models with
    1, 2, 4 or 8 GPUs per node; CPU-only pods, pods sharing one GPU, 1-8 whole-GPU pods, some
    bound to GPU models. Drawn from ``numpy.random.default_rng(seed)``."""
    rng = np.random.default_rng(seed)
    shapes = [("G2", 8, 96000, 786432), ("T4", 2, 64000, 262144), ("P100", 2, 64000, 262144),
              ("V100M16", 8, 96000, 393216), ("V100M32", 8, 96000, 393216), ("T4", 4, 96000, 393216)]
    weights = np.array([0.45, 0.3, 0.1, 0.05, 0.05, 0.05])
    picks = rng.choice(len(shapes), size=nodes, p=weights)
    node_rows = [{"sn": f"openb-node-{i:04d}", "cpu_milli": shapes[k][2], "memory_mib": shapes[k][3],
                  "gpu": shapes[k][1], "model": shapes[k][0]} for i, k in enumerate(picks.tolist())]
    shares = [100, 200, 250, 300, 460, 500, 700]
    cpus = [1000, 2000, 4000, 6000, 8000, 12000, 16000]
    pod_rows = []
    for i in range(pods):
        kind = rng.choice(4, p=[0.13, 0.38, 0.35, 0.14])
        if kind == 0:
            num, milli = 0, 0
        elif kind == 1:
            num, milli = 1, int(rng.choice(shares))
        elif kind == 2:
            num, milli = 1, MILLI
        else:
            num, milli = int(rng.choice([2, 4, 8], p=[0.5, 0.3, 0.2])), MILLI
        spec = ""
        if num and rng.random() < 0.1:
            spec = str(rng.choice(["G2", "T4", "V100M16|V100M32", "P100|T4"]))
        cpu = int(rng.choice(cpus)) * max(num, 1) // (2 if num > 1 else 1)
        pod_rows.append({"name": f"openb-pod-{i:04d}", "cpu_milli": cpu, "memory_mib": cpu * 2,
                         "num_gpu": num, "gpu_milli": milli, "gpu_spec": spec, "qos": "LS",
                         "pod_phase": "Running", "creation_time": i * 60, "deletion_time": i * 60 + 3600,
                         "scheduled_time": i * 60})
    return pd.DataFrame(node_rows, columns=NODE_COLUMNS), pd.DataFrame(pod_rows, columns=POD_COLUMNS)


def generate_sample(out_dir: str | Path, seed: int = 0) -> tuple[Path, Path]:
    """Write the shipped sample (``openb_node_list_gpu_node.csv``, ``openb_pod_list_default.csv``)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    nodes, pods = sample_frames(seed)
    nodes_path, pods_path = out / DEFAULT_NODES, out / DEFAULT_PODS
    nodes.to_csv(nodes_path, index=False)
    pods.to_csv(pods_path, index=False)
    return nodes_path, pods_path
