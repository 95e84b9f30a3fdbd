"""Plugin contracts: one method per extension point, as kube-scheduler defines them.

A plugin is a class with a ``name`` and any of the methods below; which
methods it has decides the extension points it may be enabled at.  In-tree
plugins answer for many nodes at once (``filter_nodes``, ``score_nodes``);
a plugin written in a notebook may implement the per-node forms instead
(``filter``, ``score``) and the framework loops for it.

Extension point methods (all optional):

========================  ==========================================================
``pre_enqueue``           ``(pod_info) -> Status``
``less``                  ``(a: QueuedPodInfo, b: QueuedPodInfo) -> bool``  (QueueSort)
``pre_filter``            ``(state, pod_info, snapshot) -> (PreFilterResult | None, Status)``
``filter``                ``(state, pod_info, node_info) -> Status``
``filter_nodes``          ``(state, pod_info, snapshot, rows) -> Verdicts``
``post_filter``           ``(state, pod_info, diagnosis) -> (PostFilterResult | None, Status)``
``pre_score``             ``(state, pod_info, snapshot, rows) -> Status``
``score``                 ``(state, pod_info, node_info) -> (int, Status)``
``score_nodes``           ``(state, pod_info, snapshot, rows) -> np.ndarray[int64]``
``normalize_score``       ``(state, pod_info, scores: np.ndarray) -> Status`` (in place)
``reserve`` / ``unreserve``  ``(state, pod_info, node_name) -> Status`` / ``None``
``permit``                ``(state, pod_info, node_name) -> (Status, timeout_seconds)``
``pre_bind`` / ``bind``   ``(state, pod_info, node_name) -> Status``
``pre_bind_pre_flight``   ``(state, pod_info, node_name) -> Status`` (PreBindPreFlight)
``post_bind``             ``(state, pod_info, node_name) -> None``
``sign_pod``              ``(pod_info) -> (list[SignFragment] | None, Status | None)``
========================  ==========================================================

``pre_bind_pre_flight`` is PreBindPreFlight (``fwk.PreBindPlugin.PreBindPreFlight``, run with
gate ``NominatedNodeNameForExpectation``): before the binding cycle, a PreBind plugin says whether
its PreBind will act for this pod on this node (Success) or not (Skip; its PreBind is then not
called); anything else fails the binding cycle. It is not configured: it runs for the plugins
enabled at PreBind. It is optional here: a PreBind plugin without it counts as answering Success.
Upstream's answer also carries ``PreBindPreFlightResult.AllowParallel`` (PreBind plugins run in
parallel); kschedlab runs PreBind in order, so the method returns the Status alone.

``sign_pod`` is the Signature extension point (``fwk.SignPlugin``, for opportunistic
batching).  It is not configured: a profile signs pods only when every plugin it
runs at PreFilter, Filter, PreScore or Score has it.  A non-success status says the
plugin cannot sign this pod (the pod is then not batched).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Iterable

import numpy as np

from kschedlab.framework.status import Code, Status

MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0
MAX_TOTAL_SCORE = (1 << 63) - 1

#: extension point name (as in KubeSchedulerConfiguration) -> methods implementing it
EXTENSION_POINTS: dict[str, tuple[str, ...]] = {
    "preEnqueue": ("pre_enqueue",),
    "queueSort": ("less",),
    "preFilter": ("pre_filter",),
    "filter": ("filter_nodes", "filter"),
    "postFilter": ("post_filter",),
    "preScore": ("pre_score",),
    "score": ("score_nodes", "score"),
    "reserve": ("reserve",),
    "permit": ("permit",),
    "preBind": ("pre_bind",),
    "bind": ("bind",),
    "postBind": ("post_bind",),
    # the PodGroup scheduling cycle (GenericWorkload / TopologyAwareWorkloadScheduling)
    "placementGenerate": ("generate_placements",),
    "placementScore": ("score_placement",),
    "placementFeasible": ("placement_feasible",),
    "podGroupPostFilter": ("pod_group_post_filter",),
}


class CycleState(dict):
    """Per-cycle scratch data plugins share between extension points (``fwk.CycleState``)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.skip_filter: set[str] = set()
        self.skip_score: set[str] = set()
        #: the PreBind plugins whose PreBindPreFlight answered Skip (``SetSkipPreBindPlugins``)
        self.skip_pre_bind: set[str] = set()


@dataclass(frozen=True)
class SignFragment:
    """One part of a pod's scheduling signature (``fwk.SignFragment``): a signer name
    (see :mod:`kschedlab.framework.signers`) and a JSON-serialisable value.  Pods whose
    fragments are all equal get the same Filter and Score results on any node."""

    key: str
    value: Any


@dataclass(frozen=True)
class PreFilterResult:
    """``node_names`` None means all nodes; otherwise only these may be filtered."""

    node_names: frozenset[str] | None = None

    def all_nodes(self) -> bool:
        return self.node_names is None

    def merge(self, other: "PreFilterResult | None") -> "PreFilterResult":
        if other is None or other.all_nodes():
            return self
        if self.all_nodes():
            return other
        return PreFilterResult(self.node_names & other.node_names)


#: node count -> the shared all-zero arrays of :meth:`Verdicts.passing`
_PASSING: dict[int, tuple[np.ndarray, np.ndarray]] = {}


@dataclass
class Verdicts:
    """Filter answers for many nodes: a code per node plus an index into a reason table.

    >>> v = Verdicts.from_mask(np.array([False, True]), Code.Unschedulable, ("Too many pods",))
    >>> [v.status(i) for i in range(2)]
    [Status(code=<Code.Success: 0>, reasons=(), plugin=None), Status(code=<Code.Unschedulable: 2>, reasons=('Too many pods',), plugin=None)]
    """

    codes: np.ndarray  # int8, one per node
    reason_idx: np.ndarray  # int32 into reasons, -1 = no reason
    reasons: list[tuple[str, ...]] = field(default_factory=list)

    @staticmethod
    def passing(n: int) -> "Verdicts":
        """Every node passes (the arrays are shared and read-only)."""
        found = _PASSING.get(n)
        if found is None:
            codes, idx = np.zeros(n, np.int8), np.full(n, -1, np.int32)
            codes.flags.writeable = idx.flags.writeable = False
            if len(_PASSING) > 64:
                _PASSING.clear()
            found = _PASSING[n] = (codes, idx)
        return Verdicts(found[0], found[1], [])

    @property
    def all_pass(self) -> bool:
        """No node failed."""
        return not self.codes.any()

    @staticmethod
    def from_mask(failed: np.ndarray, code: Code, reasons: tuple[str, ...]) -> "Verdicts":
        n = len(failed)
        if not failed.any():
            return Verdicts.passing(n)
        codes = np.where(failed, np.int8(code), np.int8(0)).astype(np.int8)
        idx = np.where(failed, 0, -1).astype(np.int32)
        return Verdicts(codes, idx, [tuple(reasons)])

    @staticmethod
    def from_statuses(statuses: Iterable[Status]) -> "Verdicts":
        """The verdicts of one status per row (a status's reasons are indexed even when it passes).

        >>> v = Verdicts.from_statuses([Status(), Status.unresolvable("full"), Status.unschedulable("full")])
        >>> v.codes.tolist(), v.reason_idx.tolist(), v.reasons
        ([0, 3, 2], [-1, 0, 0], [('full',)])
        """
        statuses = list(statuses)
        # (the codes through bytes: one C loop over small ints, where numpy would convert each enum)
        codes = np.frombuffer(bytes([st.code for st in statuses]), np.int8).copy()
        idx = np.full(len(statuses), -1, np.int32)
        table: dict[tuple[str, ...], int] = {}
        reasons = [st.reasons for st in statuses]
        if any(reasons):
            for i, r in enumerate(reasons):
                if r:
                    idx[i] = table.setdefault(r, len(table))
        return Verdicts(codes, idx, list(table))

    def status(self, i: int, plugin: str | None = None) -> Status:
        code = Code(int(self.codes[i]))
        if code == Code.Success:
            return Status()
        r = int(self.reason_idx[i])
        return Status(code, self.reasons[r] if r >= 0 else (), plugin)


@dataclass
class FieldError:
    """One args validation error, as upstream's ``field.Error`` (type and path)."""

    type: str
    field: str
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.field}: {self.type}: {self.detail}" if self.detail else f"{self.field}: {self.type}"


class ArgsError(ValueError):
    """Invalid plugin args; ``errors`` lists each field error."""

    def __init__(self, plugin: str, errors: list[FieldError]):
        self.plugin = plugin
        self.errors = errors
        super().__init__(f"invalid args for plugin {plugin}: " + "; ".join(map(str, errors)))


class Plugin:
    """Base class for plugins: holds the name, parsed args and the framework handle.

    Subclasses set ``name`` and, when they take args, override
    :meth:`parse_args` to validate a dict and return the args object.
    """

    name: ClassVar[str] = ""

    def __init__(self, args: Any = None, handle: Any = None):
        self.args = args
        self.handle = handle

    @classmethod
    def parse_args(cls, raw: dict | None, handle: Any = None) -> Any:
        if raw:
            raise ArgsError(cls.name, [FieldError("FieldValueInvalid", "args", "this plugin takes no args")])
        return None

    @classmethod
    def build(cls, raw: dict | None = None, handle: Any = None) -> "Plugin":
        return cls(cls.parse_args(raw, handle), handle)


REGISTRY: dict[str, Callable[..., Plugin]] = {}


def register(cls):
    """Class decorator adding a plugin to the in-tree registry by its ``name``."""
    REGISTRY[cls.name] = cls
    return cls
