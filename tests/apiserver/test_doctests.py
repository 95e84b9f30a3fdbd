"""Run the docstring examples of every kschedlab.apiserver module."""

import doctest
import importlib
import pkgutil

import pytest

import kschedlab.apiserver as apiserver

MODULES = sorted(
    ["kschedlab.apiserver"] + [f"kschedlab.apiserver.{m.name}" for m in pkgutil.iter_modules(apiserver.__path__)]
)


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} doctest(s) failed in {name}"
