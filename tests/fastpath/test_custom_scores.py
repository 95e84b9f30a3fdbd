"""Score plugins of one's own on the fused fast path: the path keeps serving the in-tree plugins
and calls the custom ones as the framework does (raw scores, NormalizeScore, range check), so
every attempt reads the same as on the plugin-by-plugin path (custom PreFilter, Filter and PreScore
plugins: ``test_custom_filters``)."""

from __future__ import annotations

import numpy as np
import pytest

from kschedlab.framework.interface import MAX_NODE_SCORE, Plugin
from kschedlab.framework.runtime import FrameworkError
from kschedlab.framework.status import Code, Status
from kschedlab.scheduler import Scheduler
from tests.seeds import seeds

from .test_fast_path import FAST_KINDS, build, same_attempt


class BlinkingLightScorer(Plugin):
    """The docs' example, per node: 10 on nodes labelled light=blinking, normalized to 0-100."""

    name = "BlinkingLightScorer"

    def score(self, state, pod_info, node_info):
        return (10 if node_info.node.metadata.labels.get("light") == "blinking" else 1), Status()

    def normalize_score(self, state, pod_info, scores):
        top = int(scores.max()) if len(scores) else 0
        if top:
            scores[:] = scores * MAX_NODE_SCORE // top
        return Status()


class FewestPodsScorer(Plugin):
    """All nodes at once: fewer pods, higher score (within 0-100 without normalizing)."""

    name = "FewestPodsScorer"

    def score_nodes(self, state, pod_info, snapshot, rows):
        return np.maximum(MAX_NODE_SCORE - snapshot.pod_count.take(rows) * 10, 0)


class TooHighScorer(Plugin):
    name = "TooHighScorer"

    def score_nodes(self, state, pod_info, snapshot, rows):
        return np.full(len(rows), MAX_NODE_SCORE + 1, np.int64)


class FailingNormalizer(FewestPodsScorer):
    name = "FailingNormalizer"

    def normalize_score(self, state, pod_info, scores):
        return Status(Code.Error, ("cannot normalize",))


class PickyFilter(Plugin):
    name = "PickyFilter"

    def filter(self, state, pod_info, node_info):
        return Status()


REGISTRY = {cls.name: cls for cls in (BlinkingLightScorer, FewestPodsScorer, TooHighScorer, FailingNormalizer,
                                      PickyFilter)}


def config(*names: str, weight: int = 2) -> dict:
    return {"profiles": [{"plugins": {"multiPoint": {"enabled": [{"name": n, "weight": weight} for n in names]}}}]}


def label_lights(cluster) -> None:
    for i, name in enumerate(sorted(cluster.nodes)):
        if i % 3 == 0:
            cluster.nodes[name].metadata.labels["light"] = "blinking"


@pytest.mark.parametrize("seed", seeds(4))
@pytest.mark.parametrize("names", [("BlinkingLightScorer",), ("FewestPodsScorer",),
                                   ("BlinkingLightScorer", "FewestPodsScorer")])
def test_custom_scores_same_on_both_paths(seed, names):
    results = []
    for fast in (True, False):
        cluster, pending = build(seed, kinds=FAST_KINDS)
        label_lights(cluster)
        sched = Scheduler(cluster, config(*names), seed=seed, registry=REGISTRY, fast_path=fast)
        assert (sched.fast_paths["default-scheduler"] is not None) == fast
        results.append([sched.schedule_one(key) for key in pending])
    for a, b in zip(*results):
        same_attempt(a, b)
    scored = [r for r in results[0] if r.node is not None and r.trace.scores()]  # (one feasible node: no scoring)
    assert scored and all(set(names) <= set(r.trace.scores()[r.node]) for r in scored)


@pytest.mark.parametrize("name, message", [
    ("TooHighScorer", 'plugin "TooHighScorer" returns an invalid score 101'),
    ("FailingNormalizer", 'running Normalize on Score plugins: plugin "FailingNormalizer" failed with: '
                          'cannot normalize'),
])
def test_custom_score_errors_same_on_both_paths(name, message):
    errors = []
    for fast in (True, False):
        cluster, pending = build(1, kinds=("plain",))
        sched = Scheduler(cluster, config(name), seed=0, registry=REGISTRY, fast_path=fast)
        assert (sched.fast_paths["default-scheduler"] is not None) == fast
        try:
            errors.append(sched.schedule_one(pending[0]).message)
        except FrameworkError as err:
            errors.append(str(err))
    assert errors[0] == errors[1] and message in errors[0]


def test_a_custom_filter_keeps_the_path():
    cluster, _ = build(0, nodes=4, placed=0)
    assert Scheduler(cluster, config("PickyFilter"), registry=REGISTRY).fast_paths["default-scheduler"]
    assert Scheduler(cluster, config("FewestPodsScorer"), registry=REGISTRY).fast_paths["default-scheduler"]


def test_a_plugin_of_ones_own_under_an_in_tree_name_is_called():
    """A subclass registered under ImageLocality's name (Score only, as the in-tree one) is called
    even where the in-tree plugin would answer 0 everywhere (no node reports an image)."""
    from kschedlab.plugins.image_locality import ImageLocality

    class MyImageLocality(ImageLocality):
        def score_nodes(self, state, pod_info, snapshot, rows):
            return snapshot.pod_count.take(rows) % 7

    results = []
    for fast in (True, False):
        cluster, pending = build(2, kinds=FAST_KINDS, images=False)
        sched = Scheduler(cluster, seed=2, registry={"ImageLocality": MyImageLocality}, fast_path=fast)
        assert (sched.fast_paths["default-scheduler"] is not None) == fast
        results.append([sched.schedule_one(key) for key in pending])
    for a, b in zip(*results):
        same_attempt(a, b)
    assert any(r.trace.scores()[r.node]["ImageLocality"]["raw"] for r in results[0] if r.node)
