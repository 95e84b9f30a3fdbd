"""Reprieving victims of a pod group preemption (upstream ``reprieveVictim`` in
``selectVictimsOnDomain``, ``pkg/scheduler/framework/preemption/podgrouppreemption.go``).

The group was placed once, on the snapshot without any victim.  Each of its pods got a
node and the cycle state its PreFilter left (an *assignment*).  A victim unit is kept
(reprieved) when, with its pods back on their nodes, every assignment still passes
Filter on its node, in the order the cycle placed them, each one assumed and reserved
before the next is filtered -- the group algorithm itself is not run again.  The pods
come back through the PreFilter ``AddPod`` extensions of each assignment's cycle state
(and leave through ``RemovePod`` when the unit is not kept).

Upstream filters node-local plugins only on the nodes the unit touches and the other
plugins on every assignment (``FilterPluginModeNodeLocalOnly`` / ``NonNodeLocalOnly``),
which is the full check by the argument in its comments.  Here the full check runs
unless every Filter plugin left in the assignments' cycle states is node-local
(:data:`NODE_LOCAL_FILTERS`), no PreFilter extension is active and the full check passed
on the snapshot as it was before the unit came back.  Then only the assignments on the
nodes the unit's pods are on are filtered again (in order, each assumed and reserved
before the next), and a unit that shares no node with an assignment is kept without
filtering: each assignment elsewhere looks at a node, and a cycle state, exactly as
when the check last passed.
"""

from __future__ import annotations

from kschedlab.framework.status import Status

#: Filter plugins whose verdict on a node depends only on the pod, its PreFilter state and
#: that node with its pods (upstream's ``NodeLocalFilterPlugin``); they have no PreFilter
#: extensions
NODE_LOCAL_FILTERS = frozenset({"NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "NodePorts",
                                "NodeResourcesFit", "NodeDeclaredFeatures"})


class ReprieveError(Exception):
    """A PreFilter extension failed while a victim's pods were added or removed."""


class GroupReprieve:
    """Decides victim units one at a time against the group's assignments.

    ``assignments``: the placed pods' results (``pod_info``, ``node``, ``state``) in the
    order the cycle placed them; ``node_of``: victim pod key -> its node.  The snapshot
    must hold none of the victims when the first unit is tried.

    >>> from kschedlab.cluster import Cluster
    >>> from kschedlab.framework.runtime import Framework
    >>> cluster = Cluster([])
    >>> GroupReprieve(Framework({}, cluster=cluster), cluster.snapshot, [], {}).shortcut_allowed
    True
    """

    #: False makes every unit go through the full check (the tests compare both ways)
    use_shortcut = True

    def __init__(self, fw, snapshot, assignments: list, node_of: dict[str, str]):
        self.fw = fw
        self.snapshot = snapshot
        self.assignments = assignments
        self.node_of = node_of
        self.assigned_nodes = {a.node for a in assignments}
        #: assignments whose cycle state has an active PreFilter extension (AddPod / RemovePod)
        self.with_extensions = [a for a in assignments if self._has_active_extension(a.state)]
        self.shortcut_allowed = self.use_shortcut and not self.with_extensions and all(
            p.name in NODE_LOCAL_FILTERS for a in assignments for p in fw.filter_plugins(a.state))
        #: the full check passed on the snapshot as it is now (None: not known yet)
        self._passing: bool | None = None

    def _has_active_extension(self, state) -> bool:
        """``!ShouldSkipAllPreFilterExtensions``: some PreFilter plugin with an extension ran."""
        return any((hasattr(p, "add_pod") or hasattr(p, "remove_pod")) and p.name not in state.skip_filter
                   for p in self.fw.points["preFilter"])

    def keep(self, unit) -> bool:
        """Try to reprieve ``unit`` (its ``pods``): True leaves them on their nodes, False
        takes them off again.  Raises :class:`ReprieveError` when an extension fails."""
        for pi in unit.pods:
            self.snapshot.add_pod(pi, self.node_of[pi.key])
        if self._unchanged_for_assignments(unit):
            return True
        self._extensions(unit, "add")
        fits = self._assignments_fit(self._touched(unit))
        if fits:
            self._passing = True
            return True
        for pi in unit.pods:
            self.snapshot.remove_pod(pi.key)
        self._extensions(unit, "remove")
        return False

    def touches(self, unit) -> bool:
        """Some pod of ``unit`` is on a node an assignment is on."""
        return any(self.node_of[pi.key] in self.assigned_nodes for pi in unit.pods)

    def touching(self, units: list) -> list:
        """The units of ``units`` that :meth:`touches`, in their order (looked up from the
        victims on the assignments' nodes, not unit by unit)."""
        there = {key for key, node in self.node_of.items() if node in self.assigned_nodes}
        if not there:
            return []
        return [u for u in units if any(pi.key in there for pi in u.pods)]

    def keeps_untouching(self) -> bool:
        """Asked before any unit is tried: every unit that :meth:`touches` no assignment's node
        will be kept, wherever it comes in the order -- the shortcut applies and the full check
        passes on the snapshot without any victim.  The units that touch one are then tried
        alone, in their order, and the others stay off the snapshot."""
        if not self.shortcut_allowed:
            return False
        if self._passing is None and self._assignments_fit():
            self._passing = True
        return bool(self._passing)

    def _unchanged_for_assignments(self, unit) -> bool:
        """The full check would pass as it did before ``unit`` came back (see the module
        docstring); the first time, the check is run on the snapshot without the unit."""
        if not self.shortcut_allowed or self.touches(unit):
            return False
        if self._passing is None:
            for pi in unit.pods:
                self.snapshot.remove_pod(pi.key)
            self._passing = self._assignments_fit()
            for pi in unit.pods:
                self.snapshot.add_pod(pi, self.node_of[pi.key])
        return self._passing

    def _touched(self, unit) -> set[str] | None:
        """The assigned nodes ``unit``'s pods are on, when only the assignments there need
        filtering again (see the module docstring); None: every assignment does."""
        if not self.shortcut_allowed or not self._passing:
            return None
        return {self.node_of[pi.key] for pi in unit.pods} & self.assigned_nodes

    def _extensions(self, unit, what: str) -> None:
        """``addVictimPreFilterExtensions`` / the extension half of
        ``removeVictimPodsWithPreFilter`` for every assignment that has one."""
        run = (self.fw.run_pre_filter_extension_add_pod if what == "add"
               else self.fw.run_pre_filter_extension_remove_pod)
        for pi in unit.pods:
            row = self.snapshot.index[self.node_of[pi.key]]
            for a in self.with_extensions:
                status = run(a.state, a.pod_info, pi, self.snapshot, row)
                if not status.is_success():
                    raise ReprieveError(status.message())

    def _assignments_fit(self, nodes: set[str] | None = None) -> bool:
        """``evaluateAssignments``: each assignment (those on ``nodes`` when given) must pass
        Filter (nominated pods included) on its node; it is then assumed and reserved for the
        next ones.  The snapshot and the reservations are rolled back afterwards."""
        undo = []
        try:
            for a in self.assignments:
                if nodes is not None and a.node not in nodes:
                    continue
                row = self.snapshot.index[a.node]
                status: Status = self.fw.run_filter_with_nominated_pods_node(a.state, a.pod_info, self.snapshot, row)
                if not status.is_success():
                    return False
                self.snapshot.add_pod(a.pod_info, a.node)
                self.fw.run_reserve(a.state, a.pod_info, a.node)
                undo.append(a)
            return True
        finally:
            for a in reversed(undo):
                self.fw.run_unreserve(a.state, a.pod_info, a.node)
                self.snapshot.remove_pod(a.pod_info.key)
