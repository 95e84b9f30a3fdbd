"""Fake plugins and small builders shared by the ports of upstream framework tests.

The fakes mirror ``pkg/scheduler/testing/framework/fake_plugins.go`` and the
test-local plugins of ``schedule_one_test.go`` / ``runtime/framework_test.go``
(same names, same reason strings); the code is ours.
"""

from __future__ import annotations

from typing import Any

from kschedlab.api.core import Node, Pod
from kschedlab.cluster import Cluster
from kschedlab.framework.interface import Plugin, PreFilterResult
from kschedlab.framework.profile import resolve_profile
from kschedlab.framework.runtime import Framework
from kschedlab.framework.status import Code, Status
from kschedlab.scheduler import Scheduler

#: tf.ErrReasonFake
ERR_REASON_FAKE = "Nodes failed the fake plugin"
#: runtime/framework_test.go injectReason / injectFilterReason
INJECT_REASON = "injected status"
INJECT_FILTER_REASON = "injected filter status"


def plugin(name: str, **methods: Any) -> type[Plugin]:
    """A plugin class named ``name`` with the given extension-point methods."""
    return type(f"Fake_{name}", (Plugin,), {"name": name, **methods})


# -- pkg/scheduler/testing/framework/fake_plugins.go ---------------------------------
def false_filter(name: str = "FalseFilter"):
    return plugin(name, filter=lambda self, state, pod, node: Status.unschedulable(ERR_REASON_FAKE))


def true_filter(name: str = "TrueFilter"):
    return plugin(name, filter=lambda self, state, pod, node: Status())


def match_filter(name: str = "MatchFilter"):
    def filter_(self, state, pod, node):
        return Status() if pod.name == node.name else Status.unschedulable(ERR_REASON_FAKE)
    return plugin(name, filter=filter_)


def fake_filter(codes: dict[str, Code] | None = None, name: str = "FakeFilter"):
    """``FakeFilterPlugin``: fails the nodes in ``codes``; counts its calls in ``cls.calls``."""
    codes = dict(codes or {})

    def filter_(self, state, pod, node):
        type(self).calls += 1
        code = codes.get(node.name)
        if code is None:
            return Status()
        return Status(code, (f"injecting failure for pod {pod.name}",))
    return plugin(name, filter=filter_, calls=0)


def fake_pre_filter(name: str, result: PreFilterResult | None = None, status: Status | None = None):
    return plugin(name, pre_filter=lambda self, state, pod, snapshot: (result, status))


def fake_pre_score_and_score(name: str, score: int, pre_score_status: Status, score_status: Status):
    return plugin(name,
                  pre_score=lambda self, state, pod, snapshot, rows: pre_score_status,
                  score=lambda self, state, pod, node: (score, score_status))


def equal_prioritizer(name: str = "EqualPrioritizerPlugin"):
    return plugin(name, score=lambda self, state, pod, node: (1, None))


def fake_reserve(status: Status, name: str = "FakeReserve", log: list | None = None):
    def reserve(self, state, pod, node):
        if log is not None:
            log.append(("Reserve", name))
        return status

    def unreserve(self, state, pod, node):
        if log is not None:
            log.append(("Unreserve", name))
    return plugin(name, reserve=reserve, unreserve=unreserve)


def fake_permit(status: Status, timeout: float, name: str = "FakePermit"):
    return plugin(name, permit=lambda self, state, pod, node: (status, timeout))


def fake_pre_bind(status: Status, name: str = "FakePreBind"):
    return plugin(name, pre_bind=lambda self, state, pod, node: status)


# -- schedule_one_test.go local plugins ------------------------------------------------
def no_pods_filter(name: str = "NoPodsFilter"):
    def filter_(self, state, pod, node):
        return Status() if not node.pods else Status.unschedulable(ERR_REASON_FAKE)
    return plugin(name, filter=filter_)


def numeric_map(name: str = "NumericMap"):
    return plugin(name, score=lambda self, state, pod, node: (int(node.name), None))


def reverse_numeric_map(name: str = "ReverseNumericMap"):
    def normalize(self, state, pod, scores):
        hi, lo = float(scores.max()), float(scores.min())
        scores[:] = [int(hi + lo - float(s)) for s in scores]
        return None
    return plugin(name, score=lambda self, state, pod, node: (int(node.name), None), normalize_score=normalize)


ERR_PRIORITIZE = "priority map encounters an error"


def false_map(name: str = "FalseMap"):
    return plugin(name, score=lambda self, state, pod, node: (0, Status.error(ERR_PRIORITIZE)))


def true_map(name: str = "TrueMap"):
    return plugin(name, score=lambda self, state, pod, node: (1, None),
                  normalize_score=lambda self, state, pod, scores: None)


# -- builders ---------------------------------------------------------------------------
def make_node(name: str, labels: dict | None = None, **status) -> Node:
    body: dict = {"metadata": {"name": name, "labels": {"kubernetes.io/hostname": name} if labels is None
                               else labels}}
    if status:
        body["status"] = status
    return Node.model_validate(body)


def make_pod(name: str, namespace: str = "default", node: str | None = None,
             nominated: str | None = None) -> Pod:
    body: dict = {"metadata": {"name": name, "namespace": namespace},
                  "spec": {"containers": [{"name": "c"}]}}
    if node:
        body["spec"]["nodeName"] = node
        body["status"] = {"phase": "Running"}
    if nominated:
        body["status"] = {"nominatedNodeName": nominated}
    return Pod.model_validate(body)


def profile(scheduler_name: str = "default-scheduler", percentage: int | None = None, **points) -> dict:
    """A profile holding only the given plugins (like ``tf.NewFramework``): no defaults.

    ``points`` maps an extension point to names or ``(name, weight)`` pairs; a
    queue sort (PrioritySort) and a binder (DefaultBinder) are added as upstream's
    test helpers do.
    """
    plugins: dict = {"multiPoint": {"disabled": [{"name": "*"}]},
                     "queueSort": {"enabled": [{"name": "PrioritySort"}]},
                     "bind": {"enabled": [{"name": "DefaultBinder"}]}}
    for point, entries in points.items():
        enabled = []
        for e in entries:
            enabled.append({"name": e[0], "weight": e[1]} if isinstance(e, tuple) else {"name": e})
        plugins[point] = {"enabled": enabled}
    out = {"schedulerName": scheduler_name, "plugins": plugins}
    if percentage is not None:
        out["percentageOfNodesToScore"] = percentage
    return out


def scheduler(nodes, pods=(), *, registry: dict, config: dict | None = None, profile_dict: dict | None = None,
              seed: int = 0) -> Scheduler:
    cluster = Cluster([*nodes, *pods])
    cfg = dict(config or {})
    if profile_dict is not None:
        cfg["profiles"] = [profile_dict]
    return Scheduler(cluster, cfg, registry=registry, seed=seed)


def bare_framework(plugins: dict, registry: dict, plugin_config: list | None = None,
                   add_queue_sort_and_bind: bool = True, **profile_fields) -> Framework:
    """``NewFramework`` on a profile as given (no default plugins), optionally with a
    no-op queue sort and bind plugin added when absent (``newFrameworkWithQueueSortAndBind``)."""
    registry = dict(registry)
    plugins = {k: dict(v) for k, v in plugins.items()}
    if add_queue_sort_and_bind:
        registry.setdefault(QUEUE_SORT_PLUGIN, QueueSortPlugin)
        registry.setdefault(BIND_PLUGIN, BindPlugin)
        if not (plugins.get("queueSort") or {}).get("enabled"):
            plugins["queueSort"] = {"enabled": [{"name": QUEUE_SORT_PLUGIN}]}
        if not (plugins.get("bind") or {}).get("enabled"):
            plugins["bind"] = {"enabled": [{"name": BIND_PLUGIN}]}
    prof = {"plugins": plugins, **profile_fields}
    if plugin_config:
        prof["pluginConfig"] = plugin_config
    return Framework(resolve_profile(prof, registry), registry=registry)


QUEUE_SORT_PLUGIN = "no-op-queue-sort-plugin"
BIND_PLUGIN = "bind-plugin"
QueueSortPlugin = plugin(QUEUE_SORT_PLUGIN, less=lambda self, a, b: False)
BindPlugin = plugin(BIND_PLUGIN, bind=lambda self, state, pod, node: Status())
