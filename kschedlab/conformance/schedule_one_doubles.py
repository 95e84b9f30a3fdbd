"""The test plugins of upstream's ``pkg/scheduler/schedule_one_test.go`` and
``pkg/scheduler/testing/framework`` that the ``schedule-pod`` stage registers by name.

A ``registerPlugins`` entry is ``{name, double?, args?, weight?, extensionPoints?}``: ``double``
picks the test plugin (default: the entry's name), so one double may be registered under
several names as upstream registers ``FakePreFilter1`` and ``FakePreFilter2``. A name that is no
double is an in-tree plugin (built with ``args``), enabled at ``extensionPoints`` (upstream's
``RegisterPluginAsExtensions``; default: every point it implements).

==============================  =================================================================
``FalseFilter``                 Filter: Unschedulable ``ERR_REASON_FAKE`` on every node
``TrueFilter``                  Filter: Success
``MatchFilter``                 Filter: Success where the node is named as the pod, else as FalseFilter
``FakeFilter``                  Filter: ``args.failedNodeReturnCodeMap {node: code}`` with
                                "injecting failure for pod <pod>"; counts its calls (``num_filter_called``)
``NoPodsFilter``                Filter: Success on a node without pods, else as FalseFilter
``FakePreFilter``               PreFilter: ``args.result`` (``{nodeNames}``; null = all nodes) and
                                ``args.status`` (``{code, reasons}``; null = Success)
``FakePreFilterAndFilter``      PreFilter ``args.preFilterStatus``, Filter as FakeFilter
``EqualPrioritizerPlugin``      Score: 1 on every node
``Node2Prioritizer``            Score: 100 on node2, 10 elsewhere
``NumericMap``                  Score: the node's name read as an integer
``ReverseNumericMap``           NumericMap with NormalizeScore ``max + min - score``
``FalseMap``                    Score: Error "priority map encounters an error"
``TrueMap``                     Score: 1, NormalizeScore Success
``FakePreScoreAndScore``        PreScore ``args.preScoreStatus``, Score ``args.score`` with
                                ``args.scoreStatus``
``FakeReserve``                 Reserve: ``args.status``; Unreserve does nothing
``FakePermit``                  Permit: ``args.status`` with ``args.timeoutSeconds`` (default 60)
``FakePreBind``                 PreBindPreFlight: ``args.preFlightStatus``; PreBind: ``args.status``
``FakeBind``                    Bind: ``args.status`` (registered as DefaultBinder: a binding the API
                                server refuses)
==============================  =================================================================

>>> cls = double_class("FakePreFilter2", "FakePreFilter", {"result": {"nodeNames": ["node2"]}})
>>> result, status = cls.build().pre_filter(None, None, None)
>>> sorted(result.node_names), status.code.name
(['node2'], 'Success')
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kschedlab.conformance.preemption import ERR_REASON_FAKE
from kschedlab.framework.interface import PreFilterResult
from kschedlab.framework.status import Code, Status

__all__ = ["DOUBLES", "double_class", "status_of"]

#: upstream's errPrioritize
ERR_PRIORITIZE = "priority map encounters an error"


def status_of(spec: dict | None) -> Status:
    """A ``{code, reasons}`` dict as a Status (None: Success).

    >>> status_of({"code": "Skip"}).code.name, status_of(None).is_success()
    ('Skip', True)
    """
    if spec is None:
        return Status()
    return Status(Code[spec.get("code", "Success")], tuple(spec.get("reasons") or ()))


class _Double:
    name = ""
    args: dict[str, Any] = {}

    @classmethod
    def build(cls, raw=None, handle=None):
        return cls()


class _FalseFilter(_Double):
    def filter(self, state, pod_info, node_info):
        return Status.unschedulable(ERR_REASON_FAKE)


class _TrueFilter(_Double):
    def filter(self, state, pod_info, node_info):
        return Status()


class _MatchFilter(_Double):
    def filter(self, state, pod_info, node_info):
        return Status() if pod_info.name == node_info.name else Status.unschedulable(ERR_REASON_FAKE)


class _NoPodsFilter(_Double):
    def filter(self, state, pod_info, node_info):
        return Status() if not node_info.pods else Status.unschedulable(ERR_REASON_FAKE)


class _FakeFilter(_Double):
    def __init__(self) -> None:
        self.num_filter_called = 0

    def filter(self, state, pod_info, node_info):
        self.num_filter_called += 1
        code = (self.args.get("failedNodeReturnCodeMap") or {}).get(node_info.name)
        if code is None:
            return Status()
        return Status(Code[code], (f"injecting failure for pod {pod_info.name}",))


class _FakePreFilter(_Double):
    def pre_filter(self, state, pod_info, snapshot):
        result = self.args.get("result")
        res = None if result is None else PreFilterResult(frozenset(result.get("nodeNames") or ()))
        return res, status_of(self.args.get("status"))


class _FakePreFilterAndFilter(_FakeFilter):
    def pre_filter(self, state, pod_info, snapshot):
        return None, status_of(self.args.get("preFilterStatus"))


def _numeric(node_info) -> tuple[int, Status]:
    try:
        return int(node_info.name), Status()
    except ValueError:
        return 0, Status.error(f"Error converting nodename to int: {node_info.name}")


class _EqualPrioritizer(_Double):
    def score(self, state, pod_info, node_info):
        return 1, Status()


class _Node2Prioritizer(_Double):
    def score(self, state, pod_info, node_info):
        return (100 if node_info.name == "node2" else 10), Status()


class _NumericMap(_Double):
    def score(self, state, pod_info, node_info):
        return _numeric(node_info)


class _ReverseNumericMap(_NumericMap):
    def normalize_score(self, state, pod_info, scores: np.ndarray) -> Status:
        if len(scores):
            scores[:] = int(scores.max()) + int(scores.min()) - scores
        return Status()


class _FalseMap(_Double):
    def score(self, state, pod_info, node_info):
        return 0, Status.error(ERR_PRIORITIZE)


class _TrueMap(_Double):
    def score(self, state, pod_info, node_info):
        return 1, Status()

    def normalize_score(self, state, pod_info, scores: np.ndarray) -> Status:
        return Status()


class _FakePreScoreAndScore(_Double):
    def pre_score(self, state, pod_info, snapshot, rows):
        return status_of(self.args.get("preScoreStatus"))

    def score(self, state, pod_info, node_info):
        return int(self.args.get("score", 0)), status_of(self.args.get("scoreStatus"))


class _FakeReserve(_Double):
    def reserve(self, state, pod_info, node_name):
        return status_of(self.args.get("status"))

    def unreserve(self, state, pod_info, node_name):
        return None


class _FakePermit(_Double):
    def permit(self, state, pod_info, node_name):
        return status_of(self.args.get("status")), float(self.args.get("timeoutSeconds", 60))


class _FakePreBind(_Double):
    def pre_bind_pre_flight(self, state, pod_info, node_name):
        return status_of(self.args.get("preFlightStatus"))

    def pre_bind(self, state, pod_info, node_name):
        return status_of(self.args.get("status"))


class _FakeBind(_Double):
    def bind(self, state, pod_info, node_name):
        return status_of(self.args.get("status"))


#: double name -> its class
DOUBLES: dict[str, type[_Double]] = {
    "FalseFilter": _FalseFilter, "TrueFilter": _TrueFilter, "MatchFilter": _MatchFilter,
    "NoPodsFilter": _NoPodsFilter, "FakeFilter": _FakeFilter, "FakePreFilter": _FakePreFilter,
    "FakePreFilterAndFilter": _FakePreFilterAndFilter, "EqualPrioritizerPlugin": _EqualPrioritizer,
    "NumericMap": _NumericMap, "ReverseNumericMap": _ReverseNumericMap, "FalseMap": _FalseMap,
    "TrueMap": _TrueMap, "FakePreScoreAndScore": _FakePreScoreAndScore, "Node2Prioritizer": _Node2Prioritizer,
    "FakeReserve": _FakeReserve, "FakePermit": _FakePermit, "FakePreBind": _FakePreBind, "FakeBind": _FakeBind,
}


def double_class(name: str, double: str, args: dict | None = None) -> type:
    """The test plugin ``double`` registered as ``name`` with ``args``."""
    base = DOUBLES[double]
    return type(f"{base.__name__}_{name}", (base,), {"name": name, "args": dict(args or {})})
