"""Out-of-tree plugins named as ``MODULE:ATTRIBUTE``: what a kube-scheduler build adds with
``app.WithPlugin``, here a mapping of plugin name to plugin class in a module imported by name
(input files still only name plugins, never code).

>>> registry = import_registry("kschedlab.research.fgd.plugins:REGISTRY")
>>> sorted(registry)[:2]
['BestFitScore', 'DotProductScore']
>>> import_registry("kschedlab.research.fgd.plugins:NOPE")
Traceback (most recent call last):
...
ValueError: module 'kschedlab.research.fgd.plugins' has no attribute 'NOPE'
>>> merge_registries([registry, {"BestFitScore": registry["FGDScore"]}])
Traceback (most recent call last):
...
kschedlab.framework.profile.ProfileError: a plugin named BestFitScore already exists
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from pathlib import Path

from kschedlab.framework.interface import REGISTRY, Plugin
from kschedlab.framework.profile import ProfileError

__all__ = ["import_registry", "merge_registries"]


def import_registry(text: str) -> dict[str, type[Plugin]]:
    """The mapping ``ATTRIBUTE`` of the module ``MODULE`` (``text`` is ``MODULE:ATTRIBUTE``),
    imported by name; ValueError says what is wrong with ``text``."""
    module_name, sep, attribute = text.partition(":")
    if not sep or not module_name or not attribute:
        raise ValueError(f"{text!r}: expected MODULE:ATTRIBUTE (e.g. kschedlab.research.fgd.plugins:REGISTRY)")
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise ValueError(f"cannot import module {module_name!r}: {err}{_cwd_hint(module_name, err)}") from None
    try:
        registry = getattr(module, attribute)
    except AttributeError:
        raise ValueError(f"module {module_name!r} has no attribute {attribute!r}") from None
    if not isinstance(registry, Mapping):
        raise ValueError(f"{text}: expected a mapping of plugin name to plugin class, got {type(registry).__name__}")
    for name, cls in registry.items():
        if not (isinstance(name, str) and isinstance(cls, type) and issubclass(cls, Plugin)):
            raise ValueError(f"{text}: {name!r} is not a plugin class "
                             f"(a subclass of kschedlab.framework.interface.Plugin)")
    return dict(registry)


def _cwd_hint(module_name: str, err: ImportError) -> str:
    """What to do when the module is a file of the current directory, which the installed
    ``kschedlab`` command does not import from (``python -m`` and notebooks do)."""
    top = module_name.split(".")[0]
    if not (isinstance(err, ModuleNotFoundError) and err.name == top):
        return ""
    found = next((f for f in (f"{top}.py", f"{top}/__init__.py") if Path(f).is_file()), None)
    if found is None:
        return ""
    return (f" (./{found} is in the current directory, which the kschedlab command does not import "
            "from: run it with PYTHONPATH=.)")


def merge_registries(registries: Iterable[Mapping[str, type[Plugin]]]) -> dict[str, type[Plugin]]:
    """The registries in one, refused as kube-scheduler's ``Registry.Merge`` refuses a name
    already taken (in-tree, or by another class)."""
    merged: dict[str, type[Plugin]] = {}
    for registry in registries:
        for name, cls in registry.items():
            if name in REGISTRY or (name in merged and merged[name] is not cls):
                raise ProfileError(f"a plugin named {name} already exists")
            merged[name] = cls
    return merged
