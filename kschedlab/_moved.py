"""Old module paths of kschedlab 0.1, kept importable for one release.

The package was re-laid out by concept (see ARCHITECTURE.md); ``import kschedlab.pdb`` and
the like still work, give the module at its new home, and warn once with a
DeprecationWarning that names it.

>>> import warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     import kschedlab.pdb as old
>>> old.__name__, str(caught[0].message)
('kschedlab.eviction.disruption', 'kschedlab.pdb moved to kschedlab.eviction.disruption')
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

#: old module -> new module
MOVED = {
    "kschedlab.labels": "kschedlab.api.labels",
    "kschedlab.corev1helpers": "kschedlab.api.tolerations",
    "kschedlab.resourcehelpers": "kschedlab.api.resources",
    "kschedlab.nodeaffinity": "kschedlab.api.node_selector",
    "kschedlab.preemption": "kschedlab.framework.preemption",
    "kschedlab.pdb": "kschedlab.eviction.disruption",
    "kschedlab.drain": "kschedlab.eviction.drain",
    "kschedlab.taint_eviction": "kschedlab.eviction.taint_manager",
    "kschedlab.queueing": "kschedlab.queue",
    "kschedlab.queueing.heap": "kschedlab.queue.heap",
    "kschedlab.queueing.nominator": "kschedlab.framework.nominator",
    "kschedlab.queueing.scheduling_queue": "kschedlab.queue.scheduling_queue",
    "kschedlab.queueing.types": "kschedlab.queue.types",
    "kschedlab.podgroup": "kschedlab.scheduler.podgroup",
    "kschedlab.podgroup.algorithm": "kschedlab.scheduler.podgroup.algorithm",
    "kschedlab.podgroup.conditions": "kschedlab.scheduler.podgroup.conditions",
    "kschedlab.podgroup.cycle": "kschedlab.scheduler.podgroup.cycle",
    "kschedlab.podgroup.cycle_validation": "kschedlab.scheduler.podgroup.cycle_validation",
    "kschedlab.podgroup.state": "kschedlab.framework.podgroups",
    "kschedlab.podgroup.placement": "kschedlab.framework.placement",
}


class _MovedFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old module path and loads it as the module at its new home."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname in MOVED:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        new = MOVED[spec.name]
        warnings.warn(f"{spec.name} moved to {new}", DeprecationWarning, stacklevel=2)
        module = importlib.import_module(new)
        sys.modules[spec.name] = module
        return module

    def exec_module(self, module):
        pass


def install() -> None:
    """Make the old paths importable (done once, when kschedlab is imported)."""
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.append(_MovedFinder())
