"""oom_score_adj per QoS class: upstream's TestGetContainerOOMScoreAdjust table
(kubernetes/kubernetes pkg/kubelet/qos/policy_test.go@master), each container's expected
[low, high] range as upstream states it."""

from __future__ import annotations

import pytest

from kschedlab.api.core import Pod
from kschedlab.kubelet.qos_policy import container_oom_score_adjust, pod_oom_score_adjusts

SOURCE = "kubernetes/kubernetes pkg/kubelet/qos/policy_test.go@master :: TestGetContainerOOMScoreAdjust :: {}"
STD = 8_000_000_000
MEM_REQ, MEM_LIM = str(STD // 8), str(1000 + STD // 8)
POD_REQ, POD_LIM = str(STD // 4), str(1000 + STD // 4)
SYSTEM_CRITICAL = 2_000_000_000


def res(req=None, lim=None):
    out = {}
    if req:
        out["requests"] = req
    if lim:
        out["limits"] = lim
    return out


def c(name, req=None, lim=None, sidecar=False):
    d = {"name": name, "resources": res(req, lim)}
    if sidecar:
        d["restartPolicy"] = "Always"
    return d


def pod(containers, init=(), pod_res=None, **spec):
    s = {"containers": list(containers), **spec}
    if init:
        s["initContainers"] = list(init)
    if pod_res is not None:
        s["resources"] = pod_res
    return Pod.model_validate({"spec": s})


main1 = c("main-1", {"memory": MEM_REQ}, {"memory": MEM_LIM})
init1 = c("init-container", {"memory": MEM_REQ}, {"memory": MEM_LIM})
sidecar = c("sidecar-container", {"memory": MEM_REQ}, {"memory": MEM_LIM}, True)
small_sidecar = c("sidecar-small-container", {"memory": str(STD // 20)}, {"memory": MEM_LIM}, True)
big_sidecar = c("sidecar-big-container", {"memory": str(STD // 2)}, {"memory": MEM_LIM}, True)
g_pod_res = res({"cpu": "5m", "memory": POD_REQ}, {"cpu": "5m", "memory": POD_REQ})
b_pod_res = res({"cpu": "5m", "memory": POD_REQ}, {"cpu": "5m", "memory": POD_LIM})
g5 = {"cpu": "5m", "memory": MEM_REQ}

ROWS = [
    ("cpu-limit", pod([c("cpu-limit", None, {"cpu": "10"})]), 4_000_000_000, {"cpu-limit": (999, 999)}, False),
    ("memory-limit-cpu-request", pod([c("memory-limit-cpu-request", {"cpu": "0"}, {"memory": "10G"})]), STD,
     {"memory-limit-cpu-request": (999, 999)}, False),
    ("zero-memory-limit", pod([c("zero-memory-limit", None, {"memory": "0"})]), 7230457451,
     {"zero-memory-limit": (1000, 1000)}, False),
    ("no-request-limit", pod([c("no-request-limit")]), 4_000_000_000, {"no-request-limit": (1000, 1000)}, False),
    ("equal-request-limit-cpu-memory", pod([c("equal-request-limit-cpu-memory", {"memory": "10G", "cpu": "5m"},
                                              {"cpu": "5m", "memory": "10G"})]), 123456789,
     {"equal-request-limit-cpu-memory": (-997, -997)}, False),
    ("cpu-unlimited-memory-limited-with-requests",
     pod([c("cpu-unlimited-memory-limited-with-requests", {"memory": str(STD // 2), "cpu": "5m"}, {"memory": "10G"})]),
     STD, {"cpu-unlimited-memory-limited-with-requests": (495, 505)}, False),
    ("request-no-limit", pod([c("request-no-limit", {"memory": str(STD - 1), "cpu": "5m"})]), STD,
     {"request-no-limit": (3, 3)}, False),
    ("cluster-critical", pod([c("cluster-critical")], priorityClassName="system-cluster-critical",
                             priority=SYSTEM_CRITICAL), 4_000_000_000, {"cluster-critical": (1000, 1000)}, False),
    ("node-critical", pod([c("node-critical")], priorityClassName="system-node-critical",
                          priority=SYSTEM_CRITICAL + 1000), 4_000_000_000, {"node-critical": (-997, -997)}, False),
    ("burstable-unique-container-pod", pod([c("burstable-unique-container", {"memory": MEM_REQ}, {"memory": MEM_LIM})]),
     STD, {"burstable-unique-container": (875, 880)}, False),
    ("burstable-mixed-unique-main-container-pod", pod([main1], [init1]), STD,
     {"init-container": (875, 880), "main-1": (875, 880)}, False),
    ("burstable-mixed-multi-container-small-sidecar-pod", pod([main1], [init1, small_sidecar]), STD,
     {"init-container": (875, 880), "sidecar-small-container": (875, 875), "main-1": (875, 875)}, False),
    ("burstable-mixed-multi-container-sample-request-pod", pod([main1], [init1, sidecar]), STD,
     {"init-container": (875, 880), "sidecar-container": (875, 875), "main-1": (875, 875)}, False),
    ("burstable-mixed-multi-container-big-sidecar-container-pod", pod([main1], [init1, big_sidecar]), STD,
     {"init-container": (875, 880), "sidecar-big-container": (500, 500), "main-1": (875, 875)}, False),
    ("guaranteed-pod-resources-no-container-resources",
     pod([c("no-request-limit-1"), c("no-request-limit-2")], pod_res=g_pod_res), 4_000_000_000,
     {"no-request-limit-1": (-997, -997), "no-request-limit-2": (-997, -997)}, True),
    ("guaranteed-pod-resources-equal-container-resources",
     pod([c("guaranteed-container-1", g5, g5), c("guaranteed-container-2", g5, g5)], pod_res=g_pod_res),
     4_000_000_000, {"guaranteed-container-1": (-997, -997), "guaranteed-container-2": (-997, -997)}, True),
    ("guaranteed-pod-resources-unequal-container-requests",
     pod([c("burstable-container", {"cpu": "3m", "memory": MEM_REQ}, {"cpu": "5m", "memory": MEM_LIM}),
          c("best-effort-container")], pod_res=g_pod_res), 4_000_000_000,
     {"burstable-container": (-997, -997), "best-effort-container": (-997, -997)}, True),
    ("burstable-pod-resources-no-container-resources",
     pod([c("no-request-limit-1"), c("no-request-limit-2")], pod_res=b_pod_res), 4_000_000_000,
     {"no-request-limit-1": (750, 750), "no-request-limit-2": (750, 750)}, True),
    ("burstable-pod-resources-equal-container-requests",
     pod([c("guaranteed-container-1", g5, g5), c("guaranteed-container-2", g5, g5)], pod_res=b_pod_res),
     4_000_000_000, {"guaranteed-container-1": (750, 750), "guaranteed-container-2": (750, 750)}, True),
    ("burstable-pod-resources-unequal-container-requests",
     pod([c("burstable-container", {"cpu": "3m", "memory": MEM_REQ}, {"cpu": "5m", "memory": MEM_REQ}),
          c("best-effort-container")], pod_res=b_pod_res), 4_000_000_000,
     {"burstable-container": (625, 625), "best-effort-container": (875, 875)}, True),
    ("burstable-pod-resources-no-container-resources-with-sidecar",
     pod([c("no-request-limit")], [c("no-request-limit-sidecar", sidecar=True)], pod_res=b_pod_res), 4_000_000_000,
     {"no-request-limit": (750, 750), "no-request-limit-sidecar": (750, 750)}, True),
    ("burstable-pod-resources-equal-container-requests-with-sidecar",
     pod([c("burstable-container", g5, {"cpu": "5m", "memory": MEM_LIM})],
         [c("burstable-sidecar", g5, {"cpu": "5m", "memory": MEM_LIM}, True)], pod_res=b_pod_res), 4_000_000_000,
     {"burstable-container": (750, 750), "burstable-sidecar": (750, 750)}, True),
    ("burstable-pod-resources-unequal-container-requests-with-sidecar",
     pod([c("burstable-container-1", {"cpu": "5m", "memory": "1000000000"}, {"cpu": "5m", "memory": POD_LIM}),
          c("burstable-container-2", {"cpu": "5m", "memory": "500000000"}, {"cpu": "5m", "memory": POD_LIM})],
         [c("burstable-sidecar", {"cpu": "5m", "memory": "200000000"}, {"cpu": "5m", "memory": POD_LIM}, True)],
         pod_res=res({"cpu": "5m", "memory": "2000000000"}, {"cpu": "5m", "memory": POD_LIM})), 4_000_000_000,
     {"burstable-container-1": (725, 725), "burstable-container-2": (850, 850), "burstable-sidecar": (850, 850)}, True),
]


@pytest.mark.parametrize("name, the_pod, capacity, want, pod_level", ROWS, ids=[SOURCE.format(r[0]) for r in ROWS])
def test_get_container_oom_score_adjust(name, the_pod, capacity, want, pod_level):
    got = pod_oom_score_adjusts(the_pod, capacity, pod_level_resources=pod_level)
    assert set(got) == set(want)
    for container, adj in got.items():
        low, high = want[container]
        assert low <= adj <= high, (container, adj)


def test_without_pod_level_resources_the_pod_request_is_not_shared():
    name, the_pod, capacity, _, _ = ROWS[17]    # burstable-pod-resources-no-container-resources
    assert pod_oom_score_adjusts(the_pod, capacity, pod_level_resources=False) == \
        {"no-request-limit-1": 999, "no-request-limit-2": 999}


def test_seed_ranking_pods_oom_order():
    """The seed: low-QoS containers using much more than they request die first."""
    from pathlib import Path

    from kschedlab.api.loader import load

    pods = [o for o in load(Path(__file__).parents[2] / "datasets" / "kubelet" / "13-memory-pressure-ranking.yaml")
            if isinstance(o, Pod)]
    adj = {p.metadata.name: container_oom_score_adjust(p, p.spec.containers[0], 8 * 2**30) for p in pods}
    assert adj == {"web-besteffort": 1000, "monitoring-besteffort": 1000, "batch-burstable-over": 988,
                   "api-burstable-under": 875, "cache-guaranteed-low": -997, "db-guaranteed": -997}
