"""Regenerate ``pod_requests.json``: rows of upstream's ``helpers_test.go`` of
``k8s.io/component-helpers/resource`` (PodRequests, PodLimits, AggregateContainerRequests /
AggregateContainerLimits), written as pods for the ``pod-requests`` stage.

Run from the repository root: ``python tests/conformance/podrequests/build_pod_requests_cases.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

SOURCE = ("kubernetes/kubernetes staging/src/k8s.io/component-helpers/resource/helpers_test.go"
          "@6c5cf687229f4699334a13393e38b3ca4b8a9293")
ALWAYS = "Always"


def ctr(name=None, requests=None, limits=None, restart=None):
    """A container as the test builds it (an unnamed one gets no name, as there)."""
    c: dict = {"resources": {}}
    if name:
        c["name"] = name
    if requests:
        c["resources"]["requests"] = requests
    if limits:
        c["resources"]["limits"] = limits
    if restart:
        c["restartPolicy"] = restart
    return c


def pod(containers, init=(), overhead=None):
    spec: dict = {"containers": list(containers)}
    if init:
        spec["initContainers"] = list(init)
    if overhead:
        spec["overhead"] = overhead
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec}


def get_pod(cname, cpu_request="", cpu_limit="", memory_request="", memory_limit="", cpu_overhead="",
            memory_overhead=""):
    """upstream getPod: one container and one init container with the same resources."""
    requests = {k: v for k, v in (("cpu", cpu_request), ("memory", memory_request)) if v}
    limits = {k: v for k, v in (("cpu", cpu_limit), ("memory", memory_limit)) if v}
    overhead = {k: v for k, v in (("cpu", cpu_overhead), ("memory", memory_overhead)) if v}
    return pod([ctr(cname, requests, limits)], [ctr("init-" + cname, requests, limits)], overhead)


def case(test, row, p, requests=None, limits=None, options=None):
    other: dict = {}
    if requests is not None:
        other["requests"] = requests
    if limits is not None:
        other["limits"] = limits
    slug = "".join(ch if ch.isalnum() else "-" for ch in row.lower()).strip("-")
    while "--" in slug:
        slug = slug.replace("--", "-")
    c = {"id": f"podrequests/{test}/{slug}", "source": f"{SOURCE} :: {test} :: {row}", "plugin": "helper",
         "stage": "pod-requests", "pod": p, "expected": {"other": other}}
    if options:
        c["options"] = options
    return c


def _sidecar_rows(t: str, key: str) -> list[dict]:
    """The rows TestPodResourceRequests and TestPodResourceLimits share: the same pods with
    ``key`` (requests or limits) set, the same expected sums."""
    excl = {"excludeOverhead": True}

    def r(**q):
        return ctr(**{key: q.pop("q")}, **q)

    def c2(row, p, expected, options=None):
        return case(t, row, p, options=options, **{key: expected})

    return [
        c2("nil options, larger init container", pod([r(q={"cpu": "1"})], [r(q={"cpu": "4"})]), {"cpu": "4"}),
        c2("nil options, larger containers", pod([r(q={"cpu": "2"}), r(q={"cpu": "3"})], [r(q={"cpu": "2"})]),
           {"cpu": "5"}),
        c2("pod overhead excluded", pod([r(q={"cpu": "2"}), r(q={"cpu": "3"})], [r(q={"cpu": "2"})],
                                        {"cpu": "1"}), {"cpu": "5"}, excl),
        c2("restartable init container",
           pod([r(name="container-1", q={"cpu": "1"})], [r(name="restartable-init-1", q={"cpu": "1"},
                                                            restart=ALWAYS)]), {"cpu": "2"}),
        c2("multiple restartable init containers",
           pod([r(name="container-1", q={"cpu": "1"})],
               [r(name="init-1", q={"cpu": "5"}),
                r(name="restartable-init-1", q={"cpu": "1"}, restart=ALWAYS),
                r(name="restartable-init-2", q={"cpu": "2"}, restart=ALWAYS),
                r(name="restartable-init-3", q={"cpu": "3"}, restart=ALWAYS)]), {"cpu": "7"}),
        c2("multiple restartable and regular init containers",
           pod([r(name="container-1", q={"cpu": "1"})],
               [r(name="init-1", q={"cpu": "5"}),
                r(name="restartable-init-1", q={"cpu": "1"}, restart=ALWAYS),
                r(name="restartable-init-2", q={"cpu": "2"}, restart=ALWAYS),
                r(name="init-2", q={"cpu": "5"}),
                r(name="restartable-init-3", q={"cpu": "3"}, restart=ALWAYS)]), {"cpu": "8"}),
        c2("restartable-init, init and regular",
           pod([r(name="container-1", q={"cpu": "100"})],
               [r(name="restartable-init-1", q={"cpu": "10"}, restart=ALWAYS),
                r(name="init-1", q={"cpu": "200"})]), {"cpu": "210"}),
    ]


def rows() -> list[dict]:
    out = []
    t = "TestPodRequestsAndLimits"
    out += [
        case(t, "just-limit-no-overhead", get_pod("foo", cpu_limit="9"), {}, {"cpu": "9"}),
        case(t, "just-overhead", get_pod("foo", cpu_overhead="5", memory_overhead="5"),
             {"cpu": "5", "memory": "5"}, {}),
        case(t, "req-and-overhead", get_pod("foo", cpu_request="1", memory_request="10", cpu_overhead="5",
                                            memory_overhead="5"), {"cpu": "6", "memory": "15"}, {}),
        case(t, "all-req-lim-and-overhead",
             get_pod("foo", cpu_request="1", cpu_limit="2", memory_request="10", memory_limit="12", cpu_overhead="5",
                     memory_overhead="5"), {"cpu": "6", "memory": "15"}, {"cpu": "7", "memory": "17"}),
        case(t, "req-some-lim-and-overhead",
             get_pod("foo", cpu_request="1", cpu_limit="2", memory_request="10", cpu_overhead="5",
                     memory_overhead="5"), {"cpu": "6", "memory": "15"}, {"cpu": "7"}),
    ]
    t = "TestPodRequestsAndLimitsWithoutOverhead"
    two = [ctr("foobar", {"cpu": "1", "memory": "5"}, {"cpu": "2", "memory": "10"}),
           ctr("foobar2", {"cpu": "4", "memory": "12"}, {"cpu": "8", "memory": "24"})]
    overhead = {"cpu": "3", "memory": "8"}
    inits = [ctr("small-init", {"cpu": "1", "memory": "5"}, {"cpu": "1", "memory": "5"}),
             ctr("big-init", {"cpu": "40", "memory": "120"}, {"cpu": "80", "memory": "240"})]
    excl = {"excludeOverhead": True}
    out += [
        case(t, "two container no overhead - should just be sum of containers", pod(two),
             {"cpu": "5", "memory": "17"}, {"cpu": "10", "memory": "34"}, excl),
        case(t, "two container with overhead - shouldn't consider overhead", pod(two, overhead=overhead),
             {"cpu": "5", "memory": "17"}, {"cpu": "10", "memory": "34"}, excl),
        case(t, "two container with overhead, massive init - should just be the largest init",
             pod(two, inits, overhead), {"cpu": "40", "memory": "120"}, {"cpu": "80", "memory": "240"}, excl),
    ]
    out += _sidecar_rows("TestPodResourceRequests", "requests")
    out += _sidecar_rows("TestPodResourceLimits", "limits")
    t = "TestPodResourceRequests"
    out.append(case(t, "pod overhead included",
                    pod([ctr(requests={"cpu": "2"}), ctr(requests={"cpu": "3"})],
                        [ctr(requests={"cpu": "2"}, limits={"cpu": "2"})], {"cpu": "1", "memory": "1Gi"}),
                    requests={"cpu": "6", "memory": "1Gi"}))
    t = "TestPodResourceLimits"
    out += [
        case(t, "pod overhead included",
             pod([ctr(limits={"cpu": "2"}), ctr(limits={"cpu": "3"})], [ctr(limits={"cpu": "2"})],
                 {"cpu": "1", "memory": "1Gi"}), limits={"cpu": "6"}),
        case(t, "no limited containers should result in no limits for the pod", pod([ctr()]), limits={}),
        case(t, "one limited and one unlimited container should result in the limited container's limits for the pod",
             pod([ctr(limits={"cpu": "2", "memory": "2Gi"}), ctr()]), limits={"cpu": "2", "memory": "2Gi"}),
        case(t, "one limited and one unlimited init container should result in the limited init container's "
                "limits for the pod",
             pod([ctr(limits={"cpu": "1", "memory": "1Gi"})], [ctr(limits={"cpu": "2", "memory": "2Gi"}), ctr()]),
             limits={"cpu": "2", "memory": "2Gi"}),
    ]
    t = "TestAggregateContainerRequestsAndLimits"
    agg = {"aggregateOnly": True}
    nine = {"cpu": "9"}
    out += [
        case(t, "one container with limits", pod([ctr(limits=nine)]), {}, {"cpu": "9"}, agg),
        case(t, "two containers with limits", pod([ctr(limits=nine), ctr(limits=nine)]), {}, {"cpu": "18"}, agg),
        case(t, "one container with requests", pod([ctr(requests=nine)]), {"cpu": "9"}, {}, agg),
        case(t, "two containers with requests", pod([ctr(requests=nine), ctr(requests=nine)]), {"cpu": "18"}, {},
             agg),
        case(t, "regular and init containers with requests", pod([ctr(requests=nine)], [ctr(requests=nine)]),
             {"cpu": "9"}, {}, agg),
        case(t, "regular, init and sidecar containers with requests",
             pod([ctr(requests=nine)], [ctr(requests={"cpu": "8"}, restart=ALWAYS), ctr(requests={"cpu": "6"})]),
             {"cpu": "17"}, {}, agg),
        case(t, "regular and init containers with limits", pod([ctr(limits=nine)], [ctr(limits=nine)]),
             {}, {"cpu": "9"}, agg),
        case(t, "regular, init and sidecar containers with limits",
             pod([ctr(limits=nine)], [ctr(limits={"cpu": "8"}, restart=ALWAYS), ctr(limits={"cpu": "6"})]),
             {}, {"cpu": "17"}, agg),
    ]
    return out


if __name__ == "__main__":
    target = Path(__file__).with_name("pod_requests.json")
    target.write_text(json.dumps(rows(), indent=1) + "\n")
    print(f"{len(rows())} rows -> {target}")
