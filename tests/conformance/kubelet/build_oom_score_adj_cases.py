"""Writes oom_score_adj.json: the rows of upstream's ``TestGetContainerOOMScoreAdjust``
(pkg/kubelet/qos/policy_test.go) as ``kubelet-oom-score-adj`` cases.

The test's package-level pods are rebuilt here (``standardMemoryAmount`` = 8000000000; the
sample requests and limits are its fractions); each row lists the bounds upstream gives every
init and regular container, and ``podLevelResources`` is the row's
``podLevelResourcesFeatureEnabled``. Run ``python build_oom_score_adj_cases.py`` to regenerate."""

from __future__ import annotations

import json
from pathlib import Path

SOURCE = "kubernetes/kubernetes pkg/kubelet/qos/policy_test.go@master :: TestGetContainerOOMScoreAdjust :: "
STANDARD = 8000000000
SYSTEM_CRITICAL = 2000000000
MEM_REQ, MEM_LIM = str(STANDARD // 8), str(1000 + STANDARD // 8)
POD_MEM_REQ, POD_MEM_LIM = str(STANDARD // 4), str(1000 + STANDARD // 4)


def c(name, requests=None, limits=None, sidecar=False):
    res = {k: v for k, v in (("requests", requests), ("limits", limits)) if v}
    out: dict = {"name": name, "resources": res}
    if sidecar:
        out["restartPolicy"] = "Always"
    return out


def pod(containers, init=(), resources=None, **spec):
    out: dict = {"containers": list(containers), **spec}
    if init:
        out["initContainers"] = list(init)
    if resources:
        out["resources"] = resources
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "pod"}, "spec": out}


def mem(request, limit=None, cpu=None, cpu_limit=None):
    req = {"memory": request, **({"cpu": cpu} if cpu else {})}
    lim = {**({"memory": limit} if limit else {}), **({"cpu": cpu_limit} if cpu_limit else {})}
    return req, lim


SAMPLE = c("main-1", {"memory": MEM_REQ}, {"memory": MEM_LIM})
INIT = c("init-container", {"memory": MEM_REQ}, {"memory": MEM_LIM})
SIDECAR = c("sidecar-container", {"memory": MEM_REQ}, {"memory": MEM_LIM}, sidecar=True)
SMALL_SIDECAR = c("sidecar-small-container", {"memory": str(STANDARD // 20)}, {"memory": MEM_LIM}, sidecar=True)
BIG_SIDECAR = c("sidecar-big-container", {"memory": str(STANDARD // 2)}, {"memory": MEM_LIM}, sidecar=True)


def pod_level(request, limit):
    return {"requests": {"cpu": "5m", "memory": request}, "limits": {"cpu": "5m", "memory": limit}}


def guaranteed_c(name):
    both = {"cpu": "5m", "memory": MEM_REQ}
    return c(name, both, both)


ROWS = [  # name, pod, memory capacity, {container: (low, high)}, pod-level resources gate
    ("cpu-limit", pod([c("cpu-limit", None, {"cpu": "10"})]), 4000000000, {"cpu-limit": (999, 999)}, False),
    ("memory-limit-cpu-request", pod([c("memory-limit-cpu-request", {"cpu": "0"}, {"memory": "10G"})]),
     8000000000, {"memory-limit-cpu-request": (999, 999)}, False),
    ("zero-memory-limit", pod([c("zero-memory-limit", None, {"memory": "0"})]), 7230457451,
     {"zero-memory-limit": (1000, 1000)}, False),
    ("no-request-limit", pod([c("no-request-limit")]), 4000000000, {"no-request-limit": (1000, 1000)}, False),
    ("equal-request-limit-cpu-memory",
     pod([c("equal-request-limit-cpu-memory", {"memory": "10G", "cpu": "5m"}, {"cpu": "5m", "memory": "10G"})]),
     123456789, {"equal-request-limit-cpu-memory": (-997, -997)}, False),
    ("cpu-unlimited-memory-limited-with-requests",
     pod([c("cpu-unlimited-memory-limited-with-requests", {"memory": str(STANDARD // 2), "cpu": "5m"},
            {"memory": "10G"})]),
     STANDARD, {"cpu-unlimited-memory-limited-with-requests": (495, 505)}, False),
    ("request-no-limit", pod([c("request-no-limit", {"memory": str(STANDARD - 1), "cpu": "5m"})]), STANDARD,
     {"request-no-limit": (3, 3)}, False),
    ("cluster-critical", pod([c("cluster-critical")], priorityClassName="system-cluster-critical",
                             priority=SYSTEM_CRITICAL), 4000000000, {"cluster-critical": (1000, 1000)}, False),
    ("node-critical", pod([c("node-critical")], priorityClassName="system-node-critical",
                          priority=SYSTEM_CRITICAL + 1000), 4000000000, {"node-critical": (-997, -997)}, False),
    ("burstable-unique-container-pod",
     pod([c("burstable-unique-container", {"memory": MEM_REQ}, {"memory": MEM_LIM})]), STANDARD,
     {"burstable-unique-container": (875, 880)}, False),
    ("burstable-mixed-unique-main-container-pod", pod([SAMPLE], [INIT]), STANDARD,
     {"init-container": (875, 880), "main-1": (875, 880)}, False),
    ("burstable-mixed-multi-container-small-sidecar-pod", pod([SAMPLE], [INIT, SMALL_SIDECAR]), STANDARD,
     {"init-container": (875, 880), "sidecar-small-container": (875, 875), "main-1": (875, 875)}, False),
    ("burstable-mixed-multi-container-sample-request-pod", pod([SAMPLE], [INIT, SIDECAR]), STANDARD,
     {"init-container": (875, 880), "sidecar-container": (875, 875), "main-1": (875, 875)}, False),
    ("burstable-mixed-multi-container-big-sidecar-container-pod", pod([SAMPLE], [INIT, BIG_SIDECAR]), STANDARD,
     {"init-container": (875, 880), "sidecar-big-container": (500, 500), "main-1": (875, 875)}, False),
    ("guaranteed-pod-resources-no-container-resources",
     pod([c("no-request-limit-1"), c("no-request-limit-2")], resources=pod_level(POD_MEM_REQ, POD_MEM_REQ)),
     4000000000, {"no-request-limit-1": (-997, -997), "no-request-limit-2": (-997, -997)}, True),
    ("guaranteed-pod-resources-equal-container-resources",
     pod([guaranteed_c("guaranteed-container-1"), guaranteed_c("guaranteed-container-2")],
         resources=pod_level(POD_MEM_REQ, POD_MEM_REQ)),
     4000000000, {"guaranteed-container-1": (-997, -997), "guaranteed-container-2": (-997, -997)}, True),
    ("guaranteed-pod-resources-unequal-container-requests",
     pod([c("burstable-container", {"cpu": "3m", "memory": MEM_REQ}, {"cpu": "5m", "memory": MEM_LIM}),
          c("best-effort-container")], resources=pod_level(POD_MEM_REQ, POD_MEM_REQ)),
     4000000000, {"burstable-container": (-997, -997), "best-effort-container": (-997, -997)}, True),
    ("burstable-pod-resources-no-container-resources",
     pod([c("no-request-limit-1"), c("no-request-limit-2")], resources=pod_level(POD_MEM_REQ, POD_MEM_LIM)),
     4000000000, {"no-request-limit-1": (750, 750), "no-request-limit-2": (750, 750)}, True),
    ("burstable-pod-resources-equal-container-requests",
     pod([guaranteed_c("guaranteed-container-1"), guaranteed_c("guaranteed-container-2")],
         resources=pod_level(POD_MEM_REQ, POD_MEM_LIM)),
     4000000000, {"guaranteed-container-1": (750, 750), "guaranteed-container-2": (750, 750)}, True),
    ("burstable-pod-resources-unequal-container-requests",
     pod([c("burstable-container", {"cpu": "3m", "memory": MEM_REQ}, {"cpu": "5m", "memory": MEM_REQ}),
          c("best-effort-container")], resources=pod_level(POD_MEM_REQ, POD_MEM_LIM)),
     4000000000, {"burstable-container": (625, 625), "best-effort-container": (875, 875)}, True),
    ("burstable-pod-resources-no-container-resources-with-sidecar",
     pod([c("no-request-limit")], [c("no-request-limit-sidecar", sidecar=True)],
         resources=pod_level(POD_MEM_REQ, POD_MEM_LIM)),
     4000000000, {"no-request-limit": (750, 750), "no-request-limit-sidecar": (750, 750)}, True),
    ("burstable-pod-resources-equal-container-requests-with-sidecar",
     pod([c("burstable-container", {"cpu": "5m", "memory": MEM_REQ}, {"cpu": "5m", "memory": MEM_LIM})],
         [c("burstable-sidecar", {"cpu": "5m", "memory": MEM_REQ}, {"cpu": "5m", "memory": MEM_LIM}, sidecar=True)],
         resources=pod_level(POD_MEM_REQ, POD_MEM_LIM)),
     4000000000, {"burstable-container": (750, 750), "burstable-sidecar": (750, 750)}, True),
    ("burstable-pod-resources-unequal-container-requests-with-sidecar",
     pod([c("burstable-container-1", {"cpu": "5m", "memory": "1000000000"}, {"cpu": "5m", "memory": POD_MEM_LIM}),
          c("burstable-container-2", {"cpu": "5m", "memory": "500000000"}, {"cpu": "5m", "memory": POD_MEM_LIM})],
         [c("burstable-sidecar", {"cpu": "5m", "memory": "200000000"}, {"cpu": "5m", "memory": POD_MEM_LIM},
            sidecar=True)],
         resources=pod_level("2000000000", POD_MEM_LIM)),
     4000000000, {"burstable-container-1": (725, 725), "burstable-container-2": (850, 850),
                  "burstable-sidecar": (850, 850)}, True),
]


def main() -> None:
    cases = []
    for name, p, capacity, bounds, gate in ROWS:
        cases.append({"id": f"kubelet/oom-score-adj/{name}", "source": SOURCE + name,
                      "stage": "kubelet-oom-score-adj", "pod": p, "memoryCapacity": capacity,
                      "podLevelResources": gate,
                      "expected": {"other": {"oomScoreAdj": {k: list(v) for k, v in bounds.items()}}}})
    out = Path(__file__).with_name("oom_score_adj.json")
    out.write_text(json.dumps(cases, indent=1) + "\n")
    print(f"wrote {len(cases)} cases to {out}")


if __name__ == "__main__":
    main()
