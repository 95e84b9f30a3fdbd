"""Conformance stages of DefaultPreemption (``shared/CASES.md``): ``postfilter``,
``preemption-dryrun``, ``preemption-select``, ``preemption-eligible`` and ``preemption-preempt``.
"""

from __future__ import annotations

from typing import Callable

from kschedlab.conformance.compare import Mismatch, check, check_status
from kschedlab.conformance.plugins import fixtures
from kschedlab.features import FeatureGates
from kschedlab.framework.interface import CycleState

# -- preemption stages ----------------------------------------------------------------------
# Upstream's preemption tests build a framework of a few Filter / PreFilter plugins,
# some of them test doubles of ``pkg/scheduler/testing/framework``; these are the doubles.
ERR_REASON_FAKE = "Nodes failed the fake plugin"


class _FalseFilter:
    name = "FalseFilter"

    def __init__(self, args=None, handle=None):
        pass

    @classmethod
    def build(cls, raw=None, handle=None):
        return cls()

    def filter(self, state, pod_info, node_info):
        from kschedlab.framework.status import Status

        return Status.unschedulable(ERR_REASON_FAKE)


class _TrueFilter(_FalseFilter):
    name = "TrueFilter"

    def filter(self, state, pod_info, node_info):
        from kschedlab.framework.status import Status

        return Status()


class _MatchFilter(_FalseFilter):
    name = "MatchFilter"

    def filter(self, state, pod_info, node_info):
        from kschedlab.framework.status import Status

        return Status() if pod_info.name == node_info.name else Status.unschedulable(ERR_REASON_FAKE)


class _FakeFilter:
    """``tf.FakeFilterPlugin``: counts its calls; nodes named in ``failedNodeReturnCodeMap``
    get that code with "injecting failure for pod <name>"."""

    name = "FakeFilter"

    def __init__(self, codes: dict | None = None):
        self.codes = dict(codes or {})
        self.num_filter_called = 0

    @classmethod
    def build(cls, raw=None, handle=None):
        return cls((raw or {}).get("failedNodeReturnCodeMap"))

    def filter(self, state, pod_info, node_info):
        from kschedlab.framework.status import Code, Status

        self.num_filter_called += 1
        code = self.codes.get(node_info.name)
        if code is None:
            return Status()
        return Status(Code[code], (f"injecting failure for pod {pod_info.name}",))


class _ErrorOnLabelPlugin:
    """The ``TestPlugin`` of default_preemption_test.go ("test-plugin"): a PreFilter plugin
    whose AddPod / RemovePod fail on nodes labelled ``error: "true"``."""

    name = "test-plugin"

    @classmethod
    def build(cls, raw=None, handle=None):
        return cls()

    def pre_filter(self, state, pod_info, snapshot):
        from kschedlab.framework.status import Status

        return None, Status()

    def add_pod(self, state, pod_info, pod_info_to_add, node_info):
        from kschedlab.framework.status import Status

        if node_info.node.metadata.labels.get("error") == "true":
            return Status.error(f"failed to add pod: {pod_info.name}")
        return Status()

    def remove_pod(self, state, pod_info, pod_info_to_remove, node_info):
        from kschedlab.framework.status import Status

        if node_info.node.metadata.labels.get("error") == "true":
            return Status.error(f"failed to remove pod: {pod_info.name}")
        return Status()

    def filter(self, state, pod_info, node_info):
        from kschedlab.framework.status import Status

        return Status()


TEST_DOUBLES = {cls.name: cls for cls in (_FalseFilter, _TrueFilter, _MatchFilter, _FakeFilter, _ErrorOnLabelPlugin)}


def preemption_fixtures(case: dict):
    """Cluster (with ``pdbs``), the incoming pod, a framework of ``filterPlugins`` plus
    DefaultPreemption, and a cycle state after PreFilter."""
    from kschedlab.api.policy import PodDisruptionBudget
    from kschedlab.framework.profile import implements
    from kschedlab.framework.runtime import Framework
    from kschedlab.plugins import in_tree_registry

    cluster, pod_info = fixtures(case)
    for pdb in case.get("pdbs") or []:
        cluster.add(PodDisruptionBudget.model_validate(pdb))
    registry = {**in_tree_registry(), **TEST_DOUBLES}
    plugin = case.get("plugin") or "DefaultPreemption"
    if plugin not in registry:
        raise Mismatch(f"unknown plugin {plugin!r}")
    pre_filter, filters, config = [], [], [{"name": plugin, "args": case.get("args") or {}}]
    for entry in case.get("filterPlugins") or []:
        entry = {"name": entry} if isinstance(entry, str) else dict(entry)
        name = entry["name"]
        if name not in registry:
            raise Mismatch(f"unknown plugin {name!r}")
        cls = registry[name]
        if implements(cls, "preFilter"):
            pre_filter.append({"name": name})
        if implements(cls, "filter"):
            filters.append({"name": name})
        if entry.get("args"):
            config.append({"name": name, "args": entry["args"]})
    profile = {
        "plugins": {
            "multiPoint": {"disabled": [{"name": "*"}]},
            "queueSort": {"enabled": [{"name": "PrioritySort"}]},
            "bind": {"enabled": [{"name": "DefaultBinder"}]},
            "preFilter": {"enabled": pre_filter},
            "filter": {"enabled": filters},
            "postFilter": {"enabled": [{"name": plugin}]},
        },
        "pluginConfig": config,
    }
    gates = FeatureGates(case.get("featureGates") or {}, emulate_older=True)
    fw = Framework(profile, gates=gates, registry=registry, cluster=cluster)
    state = CycleState()
    if pod_info is not None:
        fw.run_pre_filter(state, pod_info, cluster.snapshot)
    return cluster, pod_info, fw, fw.plugins[plugin], state


def _node_to_status(spec: dict | None, cluster):
    from kschedlab.framework.preemption import NodeToStatus
    from kschedlab.framework.status import Code, Status

    def status(v) -> Status:
        if isinstance(v, dict):
            return Status(Code[v.get("code", "Success")], tuple(v.get("reasons") or ()))
        return Status(Code[v])

    if spec is None:  # TestPreempt: every node Unschedulable
        return NodeToStatus({n: Status(Code.Unschedulable) for n in cluster.nodes})
    absent = spec.get("absent")
    return NodeToStatus({n: status(v) for n, v in (spec.get("byNode") or {}).items()},
                        status(absent) if absent is not None else None)


def _dry_run(case, cluster, pod_info, plugin, state):
    rows = [cluster.snapshot.index[n["metadata"]["name"]] for n in case.get("nodes") or []]
    dry = case.get("dryRun") or {}
    offset = int(dry.get("offset", 0))
    num = dry.get("numCandidates")
    num = plugin.calculate_num_candidates(len(rows)) if num is None else int(num)
    candidates, _, _ = plugin.evaluator.dry_run_preemption(state, pod_info, rows, plugin.evaluator.pdbs(), offset, num)
    return candidates


def _check_filter_calls(case, fw, diffs):
    want = (case["expected"].get("other") or {}).get("numFilterCalled")
    if want is not None:
        fake = fw.plugins.get("FakeFilter")
        check(diffs, "numFilterCalled", fake.num_filter_called if fake else 0, want)


def _stage_preemption_dryrun(case, diffs):
    cluster, pod_info, fw, plugin, state = preemption_fixtures(case)
    candidates = _dry_run(case, cluster, pod_info, plugin, state)
    other = case["expected"].get("other") or {}
    got = {c.name: sorted(p.name for p in c.victims.pods) for c in candidates}
    want = {k: sorted(v) for k, v in (other.get("victims") or {}).items()}
    check(diffs, "victims", got, want)
    if "numPDBViolations" in other:
        check(diffs, "numPDBViolations", {c.name: c.victims.num_pdb_violations for c in candidates},
               other["numPDBViolations"])
    _check_filter_calls(case, fw, diffs)


def _stage_preemption_select(case, diffs):
    cluster, pod_info, fw, plugin, state = preemption_fixtures(case)
    candidates = _dry_run(case, cluster, pod_info, plugin, state)
    best = plugin.evaluator.select_candidate(candidates)
    want = case["expected"]["other"]["selectedNodeOneOf"]
    if best is None or best.name not in want:
        diffs.append(f"selected node: got {best.name if best else None!r}, want one of {want}")


def _stage_preemption_eligible(case, diffs):
    from kschedlab.framework.status import Code, Status

    cluster, pod_info, fw, plugin, state = preemption_fixtures(case)
    spec = case.get("nominatedNodeStatus")
    status = None if spec is None else Status(Code[spec.get("code", "Success")], tuple(spec.get("reasons") or ()))
    ok, _ = plugin.pod_eligible_to_preempt_others(pod_info, status)
    check(diffs, "eligibleToPreemptOthers", ok, case["expected"]["other"]["eligibleToPreemptOthers"])


def _post_filter_checks(diffs, other, result, status):
    if "postFilterResult" in other:
        check(diffs, "postFilterResult", None if result is None else result.to_dict(), other["postFilterResult"])
    if "status" in other:
        check_status(diffs, "status", status, other["status"])


def _stage_postfilter(case, diffs):
    cluster, pod_info, fw, plugin, state = preemption_fixtures(case)
    m = _node_to_status(case.get("filteredNodesStatuses") or {}, cluster)
    result, status = plugin.post_filter(state, pod_info, m)
    _post_filter_checks(diffs, case["expected"].get("other") or {}, result, status)


def _stage_preemption_preempt(case, diffs):
    cluster, pod_info, fw, plugin, state = preemption_fixtures(case)
    deleted: list = []
    fw.handle.extra["delete_pod"] = lambda key, info: deleted.append(info)  # the fake client's delete reactor
    m = _node_to_status(case.get("filteredNodesStatuses"), cluster)
    result, status = plugin.evaluator.preempt(state, pod_info, m)
    other = case["expected"].get("other") or {}
    _post_filter_checks(diffs, other, result, status)
    if "victims" in other:
        want = other["victims"]
        got_names = sorted(p.name for p in deleted)
        if isinstance(want, dict):
            node = result.nominated_node_name if result else None
            check(diffs, "victims", {node: got_names} if deleted else {}, {k: sorted(v) for k, v in want.items()})
        else:
            check(diffs, "victims", got_names, sorted(want))
    if "victimCondition" in other:
        want = other["victimCondition"]
        for info in deleted:
            cond = next((c for c in info.pod.status.conditions if c.type == want.get("type")), None)
            got = None if cond is None else {k: getattr(cond, k) for k in ("type", "status", "reason", "message")}
            check(diffs, f"victimCondition[{info.name}]", got,
                   {k: want.get(k) for k in ("type", "status", "reason", "message")})


STAGES: dict[str, Callable] = {
    "postfilter": _stage_postfilter,
    "preemption-dryrun": _stage_preemption_dryrun,
    "preemption-select": _stage_preemption_select,
    "preemption-eligible": _stage_preemption_eligible,
    "preemption-preempt": _stage_preemption_preempt,
}
