"""The package's shape: one direction of data, no import cycles, no borrowed private names.

YAML -> ``api`` -> ``cluster`` -> queue -> scheduler -> trace -> ``viz`` / ``widgets``: a module
may import only from its own layer or the layers below it (ARCHITECTURE.md draws the picture).
Imports inside functions count as much as those at the top of a file.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1] / "kschedlab"

#: lowest first; a package may import from its own layer and every layer before it
LAYERS = [
    {"features", "api", "scenarios"},
    {"apiserver"},
    {"controllers"},
    {"framework"},
    {"cluster"},
    {"eviction", "dra", "kubelet", "storage"},
    {"plugins"},
    {"queue"},
    {"scheduler"},
    {"sim", "scheduler_perf", "perf_floors"},
    {"conformance"},
    {"research"},
    {"viz"},
    {"widgets", "exercises"},
    {"cli", "__init__"},
]
LEVEL = {name: i for i, layer in enumerate(LAYERS) for name in layer}


def _modules() -> dict[str, Path]:
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]):
    """(imported module, imported names) for every import of a kschedlab module in ``path``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("kschedlab"):
                    yield alias.name, ()
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([node.module] if node.module else []))
            if not base.startswith("kschedlab"):
                continue
            names = []
            for alias in node.names:
                if f"{base}.{alias.name}" in modules:
                    yield f"{base}.{alias.name}", ()
                else:
                    names.append(alias.name)
            if names:
                yield base, tuple(names)


def _graph() -> nx.DiGraph:
    modules = _modules()
    graph = nx.DiGraph()
    for name, path in modules.items():
        graph.add_node(name)
        for target, names in _imports(name, path, modules):
            while target not in modules:
                target = target.rpartition(".")[0]
            if target != name:
                graph.add_edge(name, target, names=names)
    return graph


def _top(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_no_import_cycles():
    cycles = [sorted(c) for c in nx.strongly_connected_components(_graph()) if len(c) > 1]
    assert cycles == []


def test_every_package_has_a_layer():
    assert {_top(m) for m in _graph()} <= set(LEVEL)


def test_imports_go_down_the_layers():
    upward = [f"{a} imports {b}" for a, b in _graph().edges
              if LEVEL[_top(b)] > LEVEL[_top(a)]]
    assert upward == []


def test_no_private_names_across_modules():
    """A name another module needs is public: no module takes a ``_name`` from another one, not
    even from a sibling in its own package."""
    def package(module: str) -> str:
        return module.rpartition(".")[0]

    borrowed = [f"{a} imports {', '.join(n for n in names if n.startswith('_'))} from {b}"
                for a, b, names in _graph().edges(data="names")
                if any(n.startswith("_") for n in names or ())]
    borrowed += [f"{a} imports the private module {b}" for a, b in _graph().edges
                 if b.rpartition(".")[2].startswith("_") and package(b) not in (package(a), a)]
    assert borrowed == []
