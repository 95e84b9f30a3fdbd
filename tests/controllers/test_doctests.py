"""Run the docstring examples of every kschedlab.controllers module."""

import doctest
import importlib
import pkgutil

import pytest

import kschedlab.controllers as controllers

MODULES = sorted(
    ["kschedlab.controllers"] + [f"kschedlab.controllers.{m.name}" for m in pkgutil.iter_modules(controllers.__path__)]
)


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} doctest(s) failed in {name}"
