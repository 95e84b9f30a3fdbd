"""Scheduler profiles side by side: the same pods under each profile of one
KubeSchedulerConfiguration, and profiles built from a choice of Score plugins and weights.

>>> from kschedlab import Cluster
>>> from kschedlab.scenarios import path
>>> config = {"profiles": [{"schedulerName": "default-scheduler"},
...     {"schedulerName": "bin-packing", "pluginConfig": [{"name": "NodeResourcesFit",
...       "args": {"scoringStrategy": {"type": "MostAllocated"}}}]}]}
>>> table = compare_profiles(lambda: Cluster.from_manifests(path("default")), config)
>>> list(table.columns), table.loc["default/web-0"].tolist()
(['default-scheduler', 'bin-packing'], ['node-a1', 'node-a2'])
>>> score_profile({"NodeResourcesFit": 2, "TaintToleration": 0})["profiles"][0]["plugins"]["score"]["enabled"]
[{'name': 'NodeResourcesFit', 'weight': 2}]
"""

from __future__ import annotations

import copy
from typing import Any, Callable, Mapping

import pandas as pd

from kschedlab.cluster import Cluster
from kschedlab.scheduler import Scheduler

__all__ = ["compare_profiles", "profile_names", "score_profile", "schedule_with_profile"]

DEFAULT_SCHEDULER = "default-scheduler"


def _fresh(cluster_factory: Callable[[], Cluster] | Cluster) -> Cluster:
    return copy.deepcopy(cluster_factory) if isinstance(cluster_factory, Cluster) else cluster_factory()


def _as_dict(config: Any) -> dict:
    if config is None:
        return {}
    if isinstance(config, Mapping):
        return dict(config)
    return config.model_dump(mode="json", by_alias=True, exclude_none=True)


def profile_names(config: Any) -> list[str]:
    """The ``schedulerName`` of each profile of ``config`` (a dict or KubeSchedulerConfiguration), in order.

    >>> profile_names({"profiles": [{}, {"schedulerName": "b"}]})
    ['default-scheduler', 'b']
    """
    profiles = _as_dict(config).get("profiles") or [{}]
    return [p.get("schedulerName") or DEFAULT_SCHEDULER for p in profiles]


def compare_profiles(cluster_factory: Callable[[], Cluster] | Cluster, config: Any, *,
                     registry: Mapping[str, type] | None = None, seed: int = 0) -> pd.DataFrame:
    """Where the pending pods go under each profile of ``config``: for every profile, a fresh
    cluster in which every pending pod names that profile in ``spec.schedulerName`` is scheduled
    once (queue order, binding as it goes). One row per pod, one column per profile (the node, or
    "" when it stays pending)."""
    columns: dict[str, dict[str, str]] = {}
    for name in profile_names(config):
        cluster = _fresh(cluster_factory)
        for pod in cluster.pods.values():
            if not pod.spec.node_name:
                pod.spec.scheduler_name = name
        results = Scheduler(cluster, config, registry=registry, seed=seed).run(once=True)
        columns[name] = {r.pod: r.node or "" for r in results}
    table = pd.DataFrame(columns)
    table.index.name = "pod"
    return table


def score_profile(weights: Mapping[str, int], *, scheduler_name: str = DEFAULT_SCHEDULER,
                  plugin_config: list | None = None) -> dict:
    """A KubeSchedulerConfiguration (as a dict) with one profile whose Score plugins are exactly
    those of ``weights`` with a weight above 0 (the default Score plugins are disabled with
    ``"*"``; the other extension points keep their defaults)."""
    enabled = [{"name": name, "weight": int(w)} for name, w in weights.items() if int(w) > 0]
    profile: dict[str, Any] = {"schedulerName": scheduler_name,
                               "plugins": {"score": {"disabled": [{"name": "*"}], "enabled": enabled}}}
    if plugin_config:
        profile["pluginConfig"] = list(plugin_config)
    return {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            "profiles": [profile]}


def schedule_with_profile(cluster_factory: Callable[[], Cluster] | Cluster, pod_key: str, config: Any, *,
                          registry: Mapping[str, type] | None = None, seed: int = 0):
    """Schedule ``pod_key`` once on a fresh cluster with ``config``; the ScheduleResult."""
    return Scheduler(_fresh(cluster_factory), config, registry=registry, seed=seed).schedule_one(pod_key)
