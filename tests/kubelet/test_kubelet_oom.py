"""The kernel's OOM killer choice (kschedlab.kubelet.oom) and the kubelet's garbage collectors."""

import pytest

from kschedlab.api.core import Pod
from kschedlab.kubelet.container_gc import DeadContainer, evictable_dead_containers
from kschedlab.kubelet.images import Image, ImageGCManager, ImageGCPolicy, image_gc_policy
from kschedlab.kubelet.oom import (
    PAGE_SIZE,
    oom_badness,
    oom_processes,
    oom_ranking_frame,
    oom_ranking_table,
    proc_oom_score,
    select_bad_process,
)

GI = 2**30
NODE = 8 * GI
PAGES = NODE // PAGE_SIZE  # 2097152


def pod(name, req=None, lim=None, prio=None, cls=None, containers=1):
    res = {}
    if req:
        res["requests"] = {"memory": req, **({"cpu": "1"} if lim else {})}
    if lim:
        res["limits"] = {"memory": lim, "cpu": "1"}
    spec = {"containers": [{"name": f"c{i}", "resources": res} for i in range(containers)]}
    if prio is not None:
        spec["priority"] = prio
    if cls:
        spec["priorityClassName"] = cls
    return Pod.model_validate({"metadata": {"name": name, "uid": name}, "spec": spec})


def stats(name, *ws):
    return {"podRef": {"uid": name}, "containers": [{"name": f"c{i}", "memory": {"workingSetBytes": w}}
                                                    for i, w in enumerate(ws)]}


def test_badness_is_the_kernels_arithmetic():
    # totalpages // 1000 first: 2097152 // 1000 = 2097
    assert oom_badness(GI, 0, PAGES) == GI // PAGE_SIZE
    assert oom_badness(GI, 500, PAGES) == 262144 + 500 * 2097
    assert oom_badness(GI, -997, PAGES) == 262144 - 997 * 2097
    assert oom_badness(GI, -1000, PAGES) is None
    assert oom_badness(GI, 0, PAGES, swap_bytes=2 * PAGE_SIZE, page_table_bytes=PAGE_SIZE) == 262147
    with pytest.raises(ValueError):
        oom_badness(GI, 1001, PAGES)


def test_proc_oom_score_scales_to_0_1333():
    assert proc_oom_score(PAGES, PAGES) == 1333        # uses everything
    assert proc_oom_score(-PAGES, PAGES) == 0
    assert proc_oom_score(0, PAGES) == 666


def test_seed_low_qos_over_request_dies_first():
    pods = [pod("guaranteed", "2Gi", "2Gi"), pod("burstable", "1Gi"), pod("besteffort")]
    table = oom_ranking_table(pods, [stats("guaranteed", 2 * GI), stats("burstable", 3 * GI // 2),
                                     stats("besteffort", GI)], NODE)
    assert [(r["pod"], r["oomScoreAdj"], r["killed"]) for r in table] == [
        ("besteffort", 1000, True), ("burstable", 875, False), ("guaranteed", -997, False)]
    # at 2 GiB (1 GiB above its request) the Burstable pod already outscores the BestEffort one by 19 pages
    table = oom_ranking_table(pods, [stats("guaranteed", 2 * GI), stats("burstable", 3 * GI),
                                     stats("besteffort", GI)], NODE)
    assert table[0]["pod"] == "burstable" and table[0]["badness"] == 3 * 262144 + 875 * 2097


def test_node_critical_is_guaranteed_and_ties_go_to_the_later_process():
    crit = pod("crit", prio=2000001000, cls="system-node-critical")
    assert oom_processes([crit], [stats("crit", GI)], NODE)[0].oom_score_adj == -997
    a, b = pod("a"), pod("b")
    procs = oom_processes([a, b], [stats("a", GI), stats("b", GI)], NODE)
    assert select_bad_process(procs).pod == "b"
    assert [r["pod"] for r in oom_ranking_table([a, b], [stats("a", GI), stats("b", GI)], NODE)] == ["b", "a"]


def test_every_container_is_a_process_and_a_cgroup_domain_changes_totalpages():
    p = pod("multi", "1Gi", containers=2)
    procs = oom_processes([p], [stats("multi", GI, 0)], NODE, totalpages=GI // PAGE_SIZE)
    assert [(x.container, x.rss) for x in procs] == [("c0", GI), ("c1", 0)]
    # in a 1 GiB cgroup the same adj weighs 1/8 as much
    assert procs[0].badness == 262144 + procs[0].oom_score_adj * (262144 // 1000)
    frame = oom_ranking_frame([p], [stats("multi", GI, 0)], NODE)
    assert list(frame.index) == [1, 2] and frame.loc[1, "container"] == "c0"


def test_no_victim_when_all_exempt():
    assert select_bad_process([]) is None


def test_image_gc_policy_validation_and_config():
    assert ImageGCPolicy(101, 80).validate() == ["invalid HighThresholdPercent 101, must be in range [0-100]"]
    assert ImageGCPolicy(90, -1).validate() == ["invalid LowThresholdPercent -1, must be in range [0-100]"]
    with pytest.raises(ValueError, match="LowThresholdPercent 90 can not be higher than HighThresholdPercent 85"):
        ImageGCManager(ImageGCPolicy(85, 90))
    from kschedlab.api.kubeletconfig import KubeletConfiguration

    assert image_gc_policy(None) == ImageGCPolicy(85, 80, 120.0, 0.0)
    with pytest.raises(ValueError, match="can not be higher"):
        image_gc_policy(KubeletConfiguration.model_validate({"imageGCLowThresholdPercent": 95}))


def test_image_gc_pinned_min_age_and_max_age():
    gc = ImageGCManager(ImageGCPolicy(85, 80, min_age=120, max_age=600))
    imgs = [Image("pause", 1, pinned=True), Image("old", 10), Image("new", 10)]
    gc.detect_images(imgs[:2], set(), None)
    gc.detect_images(imgs, set(), 1000.0)           # "new" first seen at 1000
    assert gc.delete_unused_images(imgs, set(), 1060.0).removed == ["old"]    # new too young, pause pinned
    # maxAge: unused for longer than 600 s once the kubelet ran 600 s
    gc2 = ImageGCManager(ImageGCPolicy(85, 80, min_age=0, max_age=600))
    gc2.detect_images([Image("a", 5), Image("b", 7)], {"a", "b"}, 100.0)
    gc2.detect_images([Image("a", 5), Image("b", 7)], {"b"}, 500.0)
    res = gc2.garbage_collect([Image("a", 5), Image("b", 7)], set(), 800.0, capacity=1000, available=900)
    assert res.removed == ["a"] and res.error is None      # a unused since 100 (700 s), b since 500


def test_image_gc_frees_down_to_the_low_threshold_lru_first():
    gc = ImageGCManager(ImageGCPolicy(85, 80, min_age=0))
    imgs = [Image("a", 60), Image("b", 30), Image("c", 100)]
    gc.detect_images(imgs, {"a", "b", "c"}, 10.0)
    gc.detect_images(imgs, {"b", "c"}, 20.0)
    gc.detect_images(imgs, {"c"}, 30.0)
    res = gc.garbage_collect(imgs, set(), 40.0, capacity=1000, available=100)   # 90% used
    # wants 1000*20/100 - 100 = 100 bytes: a (last used 10) then b (20) = 90, then c (30)
    assert res.wanted == 100 and res.removed == ["a", "b", "c"] and res.freed == 190 and res.error is None
    gc = ImageGCManager(ImageGCPolicy(85, 80, min_age=0))
    res = gc.garbage_collect([Image("x", 10)], {"x"}, 5.0, capacity=1000, available=100)
    assert res.removed == [] and res.error.startswith("Failed to garbage collect required amount of images. "
                                                       "Attempted to free 100 bytes, but only found 0 bytes")


def test_dead_container_gc_for_eviction_takes_terminated_pods():
    dead = [DeadContainer("ns/run", "c", 1.0), DeadContainer("ns/run", "c", 2.0),
            DeadContainer("ns/done", "c", 1.0, pod_terminated=True)]
    # periodic: one dead instance kept per container of a running pod
    assert [(c.pod, c.created) for c in evictable_dead_containers(dead, 10.0)] == [("ns/run", 1.0)]
    got = evictable_dead_containers(dead, 10.0, evict_non_deleted_pods=True)
    assert [(c.pod, c.created) for c in got] == [("ns/done", 1.0), ("ns/run", 1.0)]
