"""Ports of the plugin-merging tables of ``pkg/scheduler/apis/config/v1``.

sources:
  kubernetes/kubernetes@18f5b5c8e0c6b45e3be9b9fbce11ce15967dafdc
      pkg/scheduler/apis/config/v1/default_plugins_test.go :: TestMergePlugins
      (the same table, unchanged, in a later stored copy that passes a logger to mergePlugins)
  kubernetes/kubernetes@008b3652959ca58af8be3fb5b6ecfe9ae7638282
      pkg/scheduler/apis/config/v1/defaults_test.go :: TestSchedulerDefaults (plugin / profile rows)

Not ported: TestApplyFeatureGates (its stored copies describe older default lists, with the removed
EBSLimits / GCEPDLimits / AzureDiskLimits plugins); the v1.37 list is pinned below from the
"two profiles" row of TestSchedulerDefaults instead.
"""

from __future__ import annotations

import pytest

from kschedlab.cluster import Cluster
from kschedlab.framework.profile import DEFAULT_MULTIPOINT, POINTS_IN_CONFIG_ORDER, default_plugins, merge_plugin_set
from kschedlab.scheduler import Scheduler

MERGE_SRC = ("kubernetes/kubernetes@18f5b5c8e0c6b45e3be9b9fbce11ce15967dafdc "
             "pkg/scheduler/apis/config/v1/default_plugins_test.go :: TestMergePlugins")
DEFAULTS_SRC = ("kubernetes/kubernetes@008b3652959ca58af8be3fb5b6ecfe9ae7638282 "
                "pkg/scheduler/apis/config/v1/defaults_test.go :: TestSchedulerDefaults")

SETS = ["multiPoint", *POINTS_IN_CONFIG_ORDER]


def merge_plugins(default: dict, custom: dict | None) -> dict:
    """``mergePlugins``: merge every plugin set of ``custom`` into ``default``."""
    if custom is None:
        return default
    out = {}
    for key in SETS:
        d, c = default.get(key) or {}, custom.get(key) or {}
        enabled, disabled = merge_plugin_set(
            ([dict(p) for p in d.get("enabled", [])], [p["name"] for p in d.get("disabled", [])]),
            ([dict(p) for p in c.get("enabled", [])], [p["name"] for p in c.get("disabled", [])]))
        merged = {}
        if enabled:
            merged["enabled"] = enabled
        if disabled:
            merged["disabled"] = [{"name": n} for n in disabled]
        if merged:
            out[key] = merged
    return out


def p(name, weight=None):
    return {"name": name, **({"weight": weight} if weight is not None else {})}


def pset(enabled=(), disabled=()):
    out = {}
    if enabled:
        out["enabled"] = [x if isinstance(x, dict) else p(x) for x in enabled]
    if disabled:
        out["disabled"] = [p(x) for x in disabled]
    return out


MERGE_CASES = [
    pytest.param({"filter": pset(["CustomPlugin"])}, {"filter": pset(["DefaultPlugin1", "DefaultPlugin2"])},
                 {"filter": pset(["DefaultPlugin1", "DefaultPlugin2", "CustomPlugin"])}, id="AppendCustomPlugin"),
    pytest.param({"filter": pset(["CustomPlugin", "DefaultPlugin2"], ["DefaultPlugin2"])},
                 {"filter": pset(["DefaultPlugin1", "DefaultPlugin2"])},
                 {"filter": pset(["DefaultPlugin1", "CustomPlugin", "DefaultPlugin2"], ["DefaultPlugin2"])},
                 id="InsertAfterDefaultPlugins2"),
    pytest.param({"filter": pset(["CustomPlugin", "DefaultPlugin1", "DefaultPlugin2"], ["*"])},
                 {"filter": pset(["DefaultPlugin1", "DefaultPlugin2"])},
                 {"filter": pset(["CustomPlugin", "DefaultPlugin1", "DefaultPlugin2"], ["*"])},
                 id="InsertBeforeAllPlugins"),
    pytest.param({"filter": pset(["DefaultPlugin2", "DefaultPlugin1"], ["*"])},
                 {"filter": pset(["DefaultPlugin1", "DefaultPlugin2"])},
                 {"filter": pset(["DefaultPlugin2", "DefaultPlugin1"], ["*"])}, id="ReorderDefaultPlugins"),
    pytest.param(None, {"filter": pset(["DefaultPlugin1", "DefaultPlugin2"])},
                 {"filter": pset(["DefaultPlugin1", "DefaultPlugin2"])}, id="ApplyNilCustomPlugin"),
    pytest.param({"filter": pset([p("Plugin1", 2), p("Plugin3", 3)])},
                 {"filter": pset(["Plugin1", "Plugin2", "Plugin3"])},
                 {"filter": pset([p("Plugin1", 2), "Plugin2", p("Plugin3", 3)])},
                 id="CustomPluginOverrideDefaultPlugin"),
    pytest.param({"filter": pset([p("Plugin2", 2), p("Plugin1", 1)])},
                 {"filter": pset(["Plugin1", "Plugin2", "Plugin3"])},
                 {"filter": pset([p("Plugin1", 1), p("Plugin2", 2), "Plugin3"])}, id="OrderPreserveAfterOverride"),
    pytest.param({"filter": pset(["Plugin1", p("Plugin2", 2), "Plugin3", p("Plugin2", 4)])},
                 {"filter": pset(["Plugin1", "Plugin2", "Plugin3"])},
                 {"filter": pset(["Plugin1", p("Plugin2", 4), "Plugin3", p("Plugin2", 2)])},
                 id="RepeatedCustomPlugin"),
    pytest.param({"multiPoint": pset(["CustomPlugin"])}, {"multiPoint": pset(["DefaultPlugin1", "DefaultPlugin2"])},
                 {"multiPoint": pset(["DefaultPlugin1", "DefaultPlugin2", "CustomPlugin"])},
                 id="Append custom MultiPoint plugin"),
    pytest.param({"multiPoint": pset(["CustomPlugin", "CustomPlugin2"], ["DefaultPlugin2"]),
                  "score": pset(disabled=["CustomPlugin2"])},
                 {"multiPoint": pset(["DefaultPlugin1", "DefaultPlugin2"])},
                 {"multiPoint": pset(["DefaultPlugin1", "CustomPlugin", "CustomPlugin2"], ["DefaultPlugin2"]),
                  "score": pset(disabled=["CustomPlugin2"])}, id="Append disabled Multipoint plugins"),
    pytest.param({"multiPoint": pset([p("DefaultPlugin", 5)])}, {"multiPoint": pset(["DefaultPlugin"])},
                 {"multiPoint": pset([p("DefaultPlugin", 5)])},
                 id="override default MultiPoint plugins with custom value"),
    pytest.param({"multiPoint": pset(["CustomPlugin"])},
                 {"multiPoint": pset(["DefaultPlugin"], ["DefaultPlugin2"])},
                 {"multiPoint": pset(["DefaultPlugin", "CustomPlugin"], ["DefaultPlugin2"])},
                 id="disabled MultiPoint plugin in default set"),
    pytest.param({"multiPoint": pset(["CustomPlugin"])},
                 {"multiPoint": pset(["DefaultPlugin"]), "score": pset(disabled=["DefaultPlugin2"])},
                 {"multiPoint": pset(["DefaultPlugin", "CustomPlugin"]), "score": pset(disabled=["DefaultPlugin2"])},
                 id="disabled MultiPoint plugin in default set for specific extension point"),
    pytest.param({"multiPoint": pset(disabled=["DefaultPlugin"])}, {"multiPoint": pset(["DefaultPlugin"])},
                 {"multiPoint": pset(disabled=["DefaultPlugin"])}, id="multipoint with only disabled gets merged"),
]


@pytest.mark.parametrize("custom, default, want", MERGE_CASES)
def test_merge_plugins(custom, default, want):
    # source: MERGE_SRC
    assert merge_plugins(default, custom) == want


# upstream getDefaultPlugins() at the target release, as the "two profiles" row writes it out
V1_37_MULTIPOINT = [
    p("SchedulingGates"), p("PrioritySort"), p("NodeUnschedulable"), p("NodeName"), p("TaintToleration", 3),
    p("NodeAffinity", 2), p("NodePorts"), p("NodeResourcesFit", 1), p("VolumeRestrictions"), p("NodeVolumeLimits"),
    p("VolumeBinding"), p("VolumeZone"), p("PodTopologySpread", 2), p("InterPodAffinity", 2),
    p("DynamicResources", 2), p("DefaultPreemption"), p("NodeResourcesBalancedAllocation", 1),
    p("ImageLocality", 1), p("DefaultBinder"), p("NodeDeclaredFeatures"),
]


def test_default_multipoint_plugins():
    # source: DEFAULTS_SRC "two profiles" (the custom-scheduler profile after defaulting)
    every_default = {name: object for name, _ in DEFAULT_MULTIPOINT}
    assert default_plugins(every_default) == V1_37_MULTIPOINT


def test_two_profiles_merge_bind_with_defaults():
    # source: DEFAULTS_SRC "two profiles": Bind {Enabled: [BarPlugin], Disabled: [DefaultBinder]} is kept
    # next to the default MultiPoint set
    every_default = {name: object for name, _ in DEFAULT_MULTIPOINT}
    custom = {"bind": pset(["BarPlugin"], ["DefaultBinder"])}
    merged = merge_plugins({"multiPoint": {"enabled": default_plugins(every_default)}}, custom)
    assert merged == {"multiPoint": {"enabled": V1_37_MULTIPOINT}, "bind": pset(["BarPlugin"], ["DefaultBinder"])}


@pytest.mark.parametrize("config, want_global, want_profiles", [
    pytest.param({}, 0, {"default-scheduler": None}, id="empty config"),
    pytest.param({"profiles": [{}]}, 0, {"default-scheduler": None}, id="no scheduler name"),
    pytest.param({"percentageOfNodesToScore": 50}, 50, {"default-scheduler": None},
                 id="set non default global percentageOfNodesToScore"),
    pytest.param({"profiles": [{"percentageOfNodesToScore": 50}]}, 0, {"default-scheduler": 50},
                 id="set non default profile percentageOfNodesToScore"),
    pytest.param({"percentageOfNodesToScore": 10, "profiles": [{"percentageOfNodesToScore": 50}]}, 10,
                 {"default-scheduler": 50}, id="set non default global and profile percentageOfNodesToScore"),
])
def test_scheduler_defaults(config, want_global, want_profiles):
    # source: DEFAULTS_SRC (PercentageOfNodesToScore defaults to DefaultPercentageOfNodesToScore = 0 (adaptive),
    # SchedulerName to "default-scheduler")
    sched = Scheduler(Cluster(), config)
    assert sched.percentage_of_nodes_to_score == want_global
    assert {n: fw.profile.percentage_of_nodes_to_score for n, fw in sched.profiles.items()} == want_profiles
