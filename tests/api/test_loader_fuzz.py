"""A fuzz test of loading (issue 23): the shipped datasets, mutated at one place each, go
through ``load_manifests`` (load, expand, admit). Every outcome is the objects, or a
``ManifestError`` whose every line names the file and the object; nothing else is raised,
nothing hangs, and no example allocates more than a stated bound.

Seeded and derandomized (the same examples on every run), at most 150 examples: well under a
minute on CI."""

from __future__ import annotations

import math
import tracemalloc
import warnings
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kschedlab.api.errors import ManifestError
from kschedlab.api.safe_yaml import safe_load_all
from kschedlab.controllers.manifests import load_manifests
from tests.api.doc_paths import at

DATASETS = Path(__file__).resolve().parents[2] / "datasets"
#: the manifest folders (sweeps, traces and benchmark shapes are not manifests)
FOLDERS = ("seed", "preemption", "taints", "topology-spread", "inter-pod-affinity", "eviction", "podgroup", "dra",
           "node-declared-features", "sim")
FILES = sorted(p for folder in FOLDERS for p in (DATASETS / folder).rglob("*.yaml") if p.stat().st_size < 8000)
MEMORY_BOUND = 64 * 2**20
"""The most one example may allocate (traced by tracemalloc), in bytes."""

HOSTILE_VALUES = st.sampled_from([
    None, True, 0, -1, 2**31, 2**63, 10**30, -(2**31) - 1, 1.5, math.inf, -math.inf, math.nan, "", " ", "-",
    "<script>alert(1)</script>", "<b>x</b>", "a" * 300, "A B", "1e400", "1e999999999", "9" * 5000, "a\nb",
    "bad value!", "UPPER/lower", "/x", "x" * 64, "Exists", "NoSchedule", "100Mi", "-1Gi", "0.000000001n",
    [], [None], ["<i>"], {}, {"": ""}, {"a b": "-x"}, {"unknownField": 1}, [[[[[]]]]],
])


def _documents(path: Path) -> list:
    return [d for d in safe_load_all(path.read_text(), str(path)) if d is not None]


def _slots(node, path=()):
    """Every place in a document: (path to the container, key or index)."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield path, k
            yield from _slots(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield path, i
            yield from _slots(v, (*path, i))



@st.composite
def mutated(draw):
    path = draw(st.sampled_from(FILES))
    docs = _documents(path)
    doc_index = draw(st.integers(0, len(docs) - 1))
    slots = list(_slots(docs[doc_index]))
    where, key = draw(st.sampled_from(slots)) if slots else ((), None)
    container = at(docs[doc_index], where)
    action = draw(st.sampled_from(["replace", "replace", "replace", "delete", "add"]))
    if key is None or action == "add":
        if isinstance(container, dict):
            container[draw(st.sampled_from(["extraField", "", "metadata", "spec", "kind"]))] = draw(HOSTILE_VALUES)
        elif isinstance(container, list):
            container.append(draw(HOSTILE_VALUES))
    elif action == "delete":
        del container[key]
    else:
        container[key] = draw(HOSTILE_VALUES)
    return path.relative_to(DATASETS).as_posix(), yaml.safe_dump_all(docs, sort_keys=False)


@settings(max_examples=150, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutated())
def test_mutated_datasets_load_or_are_refused_naming_file_and_object(case):
    source, text = case
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            load_manifests(text=text, source=source)
    except ManifestError as err:
        for line in err.errors:
            assert line.file == source, str(line)
            assert line.obj or line.line, f"names no object: {line}"
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert peak < MEMORY_BOUND, f"{source}: {peak / 2**20:.0f} MiB"
