"""``kschedlab.api`` keeps the names users import from it after the split into api, apiserver and
controllers, and kschedlab's own modules do not lean on that."""

import ast
import importlib
from pathlib import Path

import pytest

import kschedlab.api as api

LIBRARY = Path(__file__).resolve().parents[2] / "kschedlab"


@pytest.mark.parametrize("name", api.__all__)
def test_every_exported_name_resolves(name):
    assert getattr(api, name) is not None


@pytest.mark.parametrize("name, module", sorted(api._FROM_ELSEWHERE.items()))
def test_a_moved_name_is_the_object_where_it_lives(name, module):
    imported = importlib.import_module(module)
    expected = imported if module.rpartition(".")[2] == name else getattr(imported, name)
    assert getattr(api, name) is expected
    assert module.split(".")[1] in ("apiserver", "controllers")


def test_old_spellings_users_write():
    from kschedlab.api import admit, load_manifests
    from kschedlab.apiserver.admission import admit as admit_where_it_lives
    from kschedlab.controllers.manifests import load_manifests as load_where_it_lives

    assert admit is admit_where_it_lives and load_manifests is load_where_it_lives
    # ``from kschedlab.api import admission`` reads the same attribute
    assert api.admission is importlib.import_module("kschedlab.apiserver.admission")


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="has no attribute 'nothing_here'"):
        api.nothing_here  # noqa: B018


def test_the_library_imports_moved_names_from_where_they_live():
    """The lazy names are for users: a kschedlab module taking one from ``kschedlab.api`` would
    hide an upward import from tests/test_architecture.py."""
    leaning = []
    for path in LIBRARY.rglob("*.py"):
        package = ["kschedlab", *path.relative_to(LIBRARY).parent.parts]
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom):
                continue
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            if base == "kschedlab.api" and path != LIBRARY / "api" / "__init__.py":
                leaning += [f"{path.relative_to(LIBRARY)}: {a.name}" for a in node.names
                            if a.name in api._FROM_ELSEWHERE]
    assert leaning == []
