"""Writes manager.json: upstream's eviction manager step scripts
(pkg/kubelet/eviction/eviction_manager_test.go) as ``eviction-manager`` cases.

The fixtures are rebuilt as the test's helpers make them: ``newPod(name, priority, containers,
volumes)`` (uid = name), ``newContainer(name, requests, limits)``, ``newResourceList(cpu, memory,
disk)``; ``newPodMemoryStats`` (a working set per container, no container name),
``newPodDiskStats`` (rootfs and logs bytes per container, named after it: the expected eviction
messages name the container), ``newPodInodeStats``, ``newPodProcessStats``; and the summaries of
``makeMemoryStats`` (node memory and the ``pods`` system container: available = working set),
``makeDiskStats`` (capacity twice the available bytes; containerfs as imagefs when not given),
``makePIDStats`` and the inode test's maker. Quantities become bytes as ``Quantity.Value()`` does
(rounded up). The fake clock starts at 0 s; ``Step(d)`` is a step's ``advance``; the mock disk GC
either frees nothing or turns the summary into its ``summaryAfterGC``. Each step's expectations are
exactly what upstream asserts after that ``synchronize`` call. Run ``python build_manager_cases.py``
to regenerate."""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction
from pathlib import Path

SOURCE = "kubernetes/kubernetes pkg/kubelet/eviction/eviction_manager_test.go@master :: "
LOW, DEFAULT, HIGH = -1, 0, 1
SYSTEM_CRITICAL = 2000000000
_SUFFIX = {"": 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12,
           "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}


def value(q: str) -> int:
    """``resource.MustParse(q).Value()``: the integer value, rounded up."""
    m = re.fullmatch(r"([0-9.]*)([A-Za-z]*)", q or "0")
    assert m, q
    return math.ceil(Fraction(m.group(1) or "0") * _SUFFIX[m.group(2)])


def resources(cpu="", memory="", disk=""):
    out = {}
    for key, v in (("cpu", cpu), ("memory", memory), ("ephemeral-storage", disk)):
        if v:
            out[key] = v
    return out


def pod(name, priority=DEFAULT, requests=None, limits=None, volumes=None):
    res = {k: v for k, v in (("requests", requests), ("limits", limits)) if v}
    container = {"name": name, **({"resources": res} if res else {})}
    spec: dict = {"priority": priority, "containers": [container]}
    if volumes:
        spec["volumes"] = volumes
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "uid": name}, "spec": spec}


def ref(p):
    return {"name": p["metadata"]["name"], "uid": p["metadata"]["uid"]}


def memory_stats(p, working_set):
    return {"podRef": ref(p), "containers": [{"memory": {"workingSetBytes": value(working_set)}}]}


def disk_stats(p, rootfs="", logs="", per_local_volume=""):
    """``newPodDiskStats``: each container's rootfs and logs; each local volume (here: an
    emptyDir on disk) uses ``per_local_volume``."""
    out = {"podRef": ref(p), "containers": [{"name": p["metadata"]["name"], "rootfs": {"usedBytes": value(rootfs)},
                                             "logs": {"usedBytes": value(logs)}}]}
    local = [v["name"] for v in p["spec"].get("volumes") or [] if "emptyDir" in v and not v["emptyDir"].get("medium")]
    if local:
        out["volume"] = [{"name": n, "usedBytes": value(per_local_volume)} for n in local]
    return out


def inode_stats(p, rootfs="", logs=""):
    return {"podRef": ref(p), "containers": [{"rootfs": {"inodesUsed": value(rootfs)},
                                              "logs": {"inodesUsed": value(logs)}}]}


def process_stats(p, count):
    return {"podRef": ref(p), "process_stats": {"process_count": count}}


def memory_summary(available, stats):
    mem = {"availableBytes": value(available), "workingSetBytes": value(available)}
    return {"node": {"memory": dict(mem), "systemContainers": [{"name": "pods", "memory": dict(mem)}]},
            "pods": stats}


def disk_summary(rootfs, imagefs, stats, containerfs=""):
    def fs(v):
        return {"availableBytes": value(v), "capacityBytes": value(v) * 2}
    return {"node": {"fs": fs(rootfs), "runtime": {"imageFs": fs(imagefs), "containerFs": fs(containerfs or imagefs)}},
            "pods": stats}


def inode_summary(free, stats):
    """``free``: {nodefs|imagefs|containerfs: (inodesFree, inodes)}."""
    def fs(which):
        f, n = free[which]
        return {"inodesFree": value(f), "inodes": value(n)}
    return {"node": {"fs": fs("nodefs"), "runtime": {"imageFs": fs("imagefs"), "containerFs": fs("containerfs")}},
            "pods": stats}


def pid_summary(total, running, stats):
    return {"node": {"rlimit": {"maxpid": value(total), "curproc": value(running)}}, "pods": stats}


def threshold(signal, quantity, grace="", min_reclaim=""):
    out: dict = {"signal": signal, "operator": "LessThan", "value": {"quantity": quantity}}
    if grace:
        out["gracePeriod"] = grace
    if min_reclaim:
        out["minReclaim"] = {"quantity": min_reclaim}
    return out


def case(test, row, config, pods, steps, expected, layout="single"):
    slug = re.sub(r"[^a-z0-9]+", "-", f"{test} {row}".lower()).strip("-")
    return {"id": f"eviction/manager/{slug}", "source": SOURCE + f"{test} :: {row}", "stage": "eviction-manager",
            "layout": layout, "config": config, "pods": pods, "steps": steps, "expected": {"steps": expected}}


def config(*thresholds, max_grace=5):
    out: dict = {"pressureTransitionPeriod": "5m", "thresholds": list(thresholds)}
    if max_grace:
        out["maxPodGracePeriodSeconds"] = max_grace
    return out


# ------------------------------------------------------------------ memory

MEMORY_PODS = [  # name, priority, requests, limits, working set
    ("guaranteed-low-priority-high-usage", LOW, resources("100m", "1Gi"), resources("100m", "1Gi"), "900Mi"),
    ("burstable-below-requests", DEFAULT, resources("100m", "100Mi"), resources("200m", "1Gi"), "50Mi"),
    ("burstable-above-requests", DEFAULT, resources("100m", "100Mi"), resources("200m", "1Gi"), "400Mi"),
    ("best-effort-high-priority-high-usage", HIGH, {}, {}, "400Mi"),
    ("best-effort-low-priority-low-usage", LOW, {}, {}, "100Mi"),
]


def memory_pods(rows=MEMORY_PODS):
    pods = [pod(n, pr, rq, lm) for n, pr, rq, lm, _ in rows]
    return pods, [memory_stats(p, ws) for p, (*_, ws) in zip(pods, rows)]


ADMIT_MEMORY = [pod("best-admit"), pod("burst-admit", DEFAULT, resources("100m", "100Mi"), resources("200m", "200Mi"))]


def test_memory_pressure():
    pods, stats = memory_pods()
    evict = "best-effort-low-priority-low-usage"
    soft = config(threshold("memory.available", "1Gi"), threshold("memory.available", "2Gi", "2m"))

    def s(avail, advance, admit=False):
        out = {"advance": advance, "summary": memory_summary(avail, stats)}
        if admit:
            out["admit"] = ADMIT_MEMORY
        return out
    steps = [s("2Gi", 0, True), s("1500Mi", "1m"), s("1500Mi", "3m"), s("3Gi", "20m"), s("500Mi", "1m", True),
             s("2Gi", "1m", True), s("2Gi", "5m", True)]
    exp = [{"memoryPressure": False, "admit": [True, True]},
           {"memoryPressure": True, "evicted": None},
           {"memoryPressure": True, "evicted": evict, "gracePeriodSeconds": 5},
           {"memoryPressure": False},
           {"memoryPressure": True, "evicted": evict, "gracePeriodSeconds": 1, "admit": [False, True]},
           {"memoryPressure": True, "evicted": None, "admit": [False, True]},
           {"memoryPressure": False, "evicted": None, "admit": [True, True]}]
    return case("TestMemoryPressure", "", soft, pods, steps, exp)


def evicted_status(message):
    return {"phase": "Failed", "reason": "Evicted", "message": message,
            "conditions": [{"type": "DisruptionTarget", "status": "True", "reason": "TerminationByKubelet",
                            "message": message}]}


def test_memory_pressure_verify_pod_status():
    rows = [("below-requests", DEFAULT, resources("", "1Gi"), resources("", "1Gi"), "900Mi"),
            ("above-requests", DEFAULT, resources("", "100Mi"), resources("", "1Gi"), "700Mi")]
    pods, stats = memory_pods(rows)
    cfg = config(threshold("memory.available", "2Gi"), max_grace=0)
    msg = "The node was low on resource: memory. Threshold quantity: 2Gi, available: 1500Mi. "
    return case("TestMemoryPressure_VerifyPodStatus", "", cfg, pods,
                [{"summary": memory_summary("1500Mi", stats)}],
                [{"memoryPressure": True, "status": evicted_status(msg)}])


def test_min_reclaim():
    pods, stats = memory_pods()
    evict = "best-effort-low-priority-low-usage"
    cfg = config(threshold("memory.available", "1Gi", min_reclaim="500Mi"))
    steps = [{"advance": a, "summary": memory_summary(v, stats)}
             for v, a in (("2Gi", 0), ("500Mi", "1m"), ("1.2Gi", "1m"), ("2Gi", "1m"), ("2Gi", "5m"))]
    exp = [{"memoryPressure": False},
           {"memoryPressure": True, "evicted": evict, "gracePeriodSeconds": 1},
           {"memoryPressure": True, "evicted": evict, "gracePeriodSeconds": 1},
           {"memoryPressure": True, "evicted": None},
           {"memoryPressure": False, "evicted": None}]
    return case("TestMinReclaim", "", cfg, pods, steps, exp)


def test_allocatable_memory_pressure():
    pods, stats = memory_pods()
    extra = pod("guaranteed-high-2", DEFAULT, resources("100m", "1Gi"), resources("100m", "1Gi"))
    cfg = config(threshold("allocatableMemory.available", "1Gi"))
    steps = [{"advance": 0, "summary": memory_summary("4Gi", stats), "admit": ADMIT_MEMORY},
             {"advance": "1m", "summary": memory_summary("500Mi", [*stats, memory_stats(extra, "1Gi")]),
              "admit": ADMIT_MEMORY},
             {"advance": "1m", "summary": memory_summary("2Gi", stats), "admit": ADMIT_MEMORY},
             {"advance": "5m", "summary": memory_summary("2Gi", stats), "admit": ADMIT_MEMORY}]
    exp = [{"memoryPressure": False, "admit": [True, True]},
           {"memoryPressure": True, "evicted": "best-effort-low-priority-low-usage", "gracePeriodSeconds": 1,
            "admit": [False, True]},
           {"memoryPressure": True, "evicted": None, "admit": [False, True]},
           {"memoryPressure": False, "evicted": None, "admit": [True, True]}]
    return case("TestAllocatableMemoryPressure", "", cfg, pods, steps, exp)


def test_static_critical_pods():
    rows = [("critical", SYSTEM_CRITICAL, resources("100m", "1Gi"), resources("100m", "1Gi"), "800Mi")]
    pods, stats = memory_pods(rows)
    static = {"kubernetes.io/config.source": "file"}
    pods[0]["metadata"].update(namespace="kube-system", annotations=static)
    later = json.loads(json.dumps(pods))
    del later[0]["spec"]["priority"]
    cfg = config(threshold("memory.available", "1Gi"), threshold("memory.available", "2Gi", "2m"))
    steps = [{"advance": "1m", "summary": memory_summary("1500Mi", stats)},
             {"advance": "3m", "summary": memory_summary("1500Mi", stats)},
             {"advance": "20m", "summary": memory_summary("3Gi", stats)},
             {"advance": "1m", "summary": memory_summary("500Mi", stats), "pods": later}]
    exp = [{"memoryPressure": True, "evicted": None},
           {"memoryPressure": True, "notEvicted": "critical"},
           {"memoryPressure": False},
           {"memoryPressure": True}]
    return case("TestStaticCriticalPodsAreNotEvicted", "", cfg, pods, steps, exp)


def test_admit_under_node_conditions():
    req = resources("100m", "1Gi")
    pods = [pod("guaranteed-pod", 0, req, req), pod("burstable-pod", 0, req), pod("best-effort-pod", 0)]
    pods[0]["spec"]["containers"][0]["name"] = "guaranteed-container"
    pods[1]["spec"]["containers"][0]["name"] = "burtable-container"
    pods[2]["spec"]["containers"][0]["name"] = "best-effort-container"
    conds = [[], ["MemoryPressure"], ["MemoryPressure", "DiskPressure"]]
    out = case("TestAdmitUnderNodeConditions", "", {}, [], [{"nodeConditions": c, "admit": pods} for c in conds],
               [{"admit": [True, True, True]}, {"admit": [True, True, False]}, {"admit": [False, False, False]}])
    out["helper"] = "Admit"
    return out


# ------------------------------------------------------------------ pids

def test_pid_pressure():
    rows = [("high-priority-high-usage", HIGH, 900), ("default-priority-low-usage", DEFAULT, 100),
            ("default-priority-medium-usage", DEFAULT, 400), ("low-priority-high-usage", LOW, 600),
            ("low-priority-low-usage", LOW, 50)]
    pods = [pod(n, pr) for n, pr, _ in rows]
    stats = [process_stats(p, c) for p, (*_, c) in zip(pods, rows)]
    admit = [pod("pod-to-admit")]
    cfg = config(threshold("pid.available", "1200"), threshold("pid.available", "1500", "2m"))

    def s(running, advance, with_admit=False):
        out: dict = {"advance": advance}
        if running:
            out["summary"] = pid_summary("2000", running, stats)
        if with_admit:
            out["admit"] = admit
        return out
    steps = [s("300", 0, True), s("700", "1m"), s("", "3m"), s("300", "20m"), s("1200", "1m", True),
             s("300", "1m", True), s("300", "5m", True)]
    evict = "low-priority-high-usage"
    exp = [{"pidPressure": False, "admit": [True]},
           {"pidPressure": True, "evicted": None},
           {"pidPressure": True, "evicted": evict, "gracePeriodSeconds": 5},
           {"pidPressure": False},
           {"pidPressure": True, "evicted": evict, "gracePeriodSeconds": 1, "admit": [False]},
           {"pidPressure": True, "evicted": None, "admit": [False]},
           {"pidPressure": False, "evicted": None, "admit": [True]}]
    return case("TestPIDPressure", "eviction due to pid pressure", cfg, pods, steps, exp)


def test_pid_pressure_verify_pod_status():
    pods = [pod("pod1", LOW), pod("pod2", DEFAULT)]
    stats = [process_stats(p, 2) for p in pods]
    cfg = config(threshold("pid.available", "1200"), max_grace=0)
    msg = "The node was low on resource: pids. Threshold quantity: 1200, available: 500. "
    return case("TestPIDPressure_VerifyPodStatus", "eviction due to pid pressure", cfg, pods,
                [{"summary": pid_summary("1500", "1000", stats)}],
                [{"pidPressure": True, "status": evicted_status(msg)}])


# ------------------------------------------------------------------ disk

DISK_PODS = [  # name, priority, requests, limits, rootfs, logs, per local volume
    ("low-priority-high-usage", LOW, resources("100m", "1Gi"), resources("100m", "1Gi"), "900Mi", "", ""),
    ("below-requests", DEFAULT, resources("100m", "100Mi"), resources("200m", "1Gi"), "", "50Mi", ""),
    ("above-requests", DEFAULT, resources("100m", "100Mi"), resources("200m", "1Gi"), "400Mi", "", ""),
    ("high-priority-high-usage", HIGH, {}, {}, "", "", "400Mi"),
    ("low-priority-low-usage", LOW, {}, {}, "100Mi", "", ""),
]


def disk_pods(rows=DISK_PODS):
    pods = [pod(n, pr, rq, lm) for n, pr, rq, lm, *_ in rows]
    return pods, [disk_stats(p, rootfs, logs, vol) for p, (*_, rootfs, logs, vol) in zip(pods, rows)]


LAYOUTS = {"no image fs": "single", "image fs": "imagefs", "container fs": "split"}


def _disk_summary(stats, on=None, avail=None):
    fs = {"nodefs": "16Gi", "imagefs": "16Gi", "containerfs": "16Gi"}
    if on:
        fs[on] = avail
    return disk_summary(fs["nodefs"], fs["imagefs"], stats, fs["containerfs"])


DISK_ROWS = [  # row, layout key, threshold signal, fs put under pressure
    ("eviction due to disk pressure; no image fs", "no image fs", "nodefs.available", "nodefs"),
    ("eviction due to image disk pressure; image fs", "image fs", "imagefs.available", "imagefs"),
    ("eviction due to container disk pressure; container fs", "container fs", "nodefs.available", "containerfs"),
]


def _disk_script_expected(evict: str) -> list[dict]:
    """What TestDiskPressureNodeFs and TestInodePressureFsInodes assert after each of their seven
    steps (soft threshold met, acted on after its grace period, cleared, hard threshold met...)."""
    return [{"diskPressure": False, "admit": [True]},
            {"diskPressure": True, "evicted": None},
            {"diskPressure": True, "evicted": evict, "gracePeriodSeconds": 5},
            {"diskPressure": False},
            {"diskPressure": True, "evicted": evict, "gracePeriodSeconds": 1, "admit": [False]},
            {"diskPressure": True, "evicted": None, "admit": [False]},
            {"diskPressure": False, "evicted": None, "admit": [True]}]


def test_disk_pressure_node_fs(row, layout, signal, on):
    pods, stats = disk_pods()
    cfg = config(threshold(signal, "1Gi"), threshold(signal, "2Gi", "2m"))
    admit = [pod("pod-to-admit")]

    def s(advance, avail=None, with_admit=False):
        out: dict = {"advance": advance, "summary": _disk_summary(stats, on if avail else None, avail)}
        if with_admit:
            out["admit"] = admit
        return out
    steps = [s(0, None, True), s("1m", "1.5Gi"), s("3m", "1.5Gi"), s("20m"), s("1m", "750Mi", True),
             s("1m", None, True), s("5m", None, True)]
    exp = _disk_script_expected("low-priority-high-usage")
    return case("TestDiskPressureNodeFs", row, cfg, pods, steps, exp, LAYOUTS[layout])


VERIFY_DISK_ROWS = [  # row, layout, nodefs, imagefs, containerfs, threshold, pods, message
    ("eviction due to disk pressure; no image fs", "single", "1.5Gi", "10Gi", "10Gi",
     threshold("nodefs.available", "2Gi"),
     [("below-requests", "1Gi", "1Gi", "900Mi"), ("above-requests", "100Mi", "1Gi", "700Mi")],
     "The node was low on resource: ephemeral-storage. Threshold quantity: 2Gi, available: 1536Mi. "
     "Container above-requests was using 700Mi, request is 100Mi, has larger consumption of ephemeral-storage. "),
    ("eviction due to image disk pressure; image fs", "imagefs", "1Gi", "10Gi", "10Gi",
     threshold("imagefs.available", "50Gi"),
     [("below-requests", "1Gi", "1Gi", "900Mi"), ("above-requests", "50Gi", "50Gi", "80Gi")],
     "The node was low on resource: ephemeral-storage. Threshold quantity: 50Gi, available: 10Gi. "
     "Container above-requests was using 80Gi, request is 50Gi, has larger consumption of ephemeral-storage. "),
    ("eviction due to container disk pressure; container fs", "split", "10Gi", "100Gi", "10Gi",
     threshold("nodefs.available", "50Gi"),
     [("below-requests", "1Gi", "1Gi", "900Mi"), ("above-requests", "50Gi", "50Gi", "80Gi")],
     "The node was low on resource: ephemeral-storage. Threshold quantity: 50Gi, available: 10Gi. "
     "Container above-requests was using 80Gi, request is 50Gi, has larger consumption of ephemeral-storage. "),
]


def test_disk_pressure_verify_pod_status(row, layout, nodefs, imagefs, containerfs, thr, rows, msg):
    pods = [pod(n, DEFAULT, resources(disk=rq), resources(disk=lm)) for n, rq, lm, _ in rows]
    stats = [disk_stats(p, used) for p, (*_, used) in zip(pods, rows)]
    return case("TestDiskPressureNodeFs_VerifyPodStatus", row, config(thr, max_grace=0), pods,
                [{"summary": disk_summary(nodefs, imagefs, stats, containerfs)}],
                [{"diskPressure": True, "status": evicted_status(msg)}], layout)


RECLAIM_ROWS = [  # row, layout, signal, fs under pressure, image GC expected, container GC expected
    ("eviction due to disk pressure; no image fs", "single", "nodefs.available", "nodefs", True, True),
    ("eviction due to image disk pressure; image fs", "imagefs", "imagefs.available", "imagefs", True, True),
    ("eviction due to container disk pressure; container fs", "split", "nodefs.available", "nodefs", False, True),
    ("eviction due to image disk pressure; container fs", "split", "imagefs.available", "imagefs", True, False),
]


def test_node_reclaim_funcs(row, layout, signal, on, image_gc, container_gc):
    pods, stats = disk_pods()
    cfg = config(threshold(signal, "1Gi", min_reclaim="500Mi"))
    const = _disk_summary(stats)
    hard = _disk_summary(stats, on, "750Mi")
    gc = {"imageGC": image_gc, "containerGC": container_gc}
    steps = [{"advance": 0, "summary": const},
             {"advance": "1m", "summary": hard, "summaryAfterGC": const},
             {"advance": "20m", "summary": const},
             {"advance": 0},
             {"advance": "1m", "summary": hard, "summaryAfterGC": _disk_summary(stats, on, "1.1G")},
             {"advance": "20m", "summary": const},
             {"advance": "1m", "summary": hard, "summaryAfterGC": hard},
             {"advance": "1m", "summary": const},
             {"advance": "5m", "summary": const}]
    exp = [{"diskPressure": False},
           {"diskPressure": True, **gc, "evicted": None},
           {"diskPressure": False},
           {"diskPressure": False},
           {"diskPressure": True, **gc, "evicted": True},
           {"diskPressure": False},
           {"diskPressure": True, **gc, "evicted": "low-priority-high-usage", "gracePeriodSeconds": 1},
           {"diskPressure": True, "imageGC": False, "containerGC": False, "evicted": None},
           {"diskPressure": False, "imageGC": False, "containerGC": False, "evicted": None}]
    return case("TestNodeReclaimFuncs", row, cfg, pods, steps, exp, layout)


INODE_ROWS = [  # row, layout, signal, fs under pressure
    ("eviction due to disk pressure; no image fs", "single", "nodefs.inodesFree", "nodefs"),
    ("eviction due to image disk pressure; image fs", "imagefs", "imagefs.inodesFree", "imagefs"),
    ("eviction due to container disk pressure; container fs", "split", "nodefs.inodesFree", "nodefs"),
]


def test_inode_pressure(row, layout, signal, on):
    used = [("low-priority-high-usage", LOW, resources("100m", "1Gi"), resources("100m", "1Gi"), "900Mi"),
            ("below-requests", DEFAULT, resources("100m", "100Mi"), resources("200m", "1Gi"), "50Mi"),
            ("above-requests", DEFAULT, resources("100m", "100Mi"), resources("200m", "1Gi"), "400Mi"),
            ("high-priority-high-usage", HIGH, {}, {}, "400Mi"),
            ("low-priority-low-usage", LOW, {}, {}, "100Mi")]
    pods = [pod(n, pr, rq, lm) for n, pr, rq, lm, _ in used]
    stats = [inode_stats(p, root) for p, (*_, root) in zip(pods, used)]
    cfg = config(threshold(signal, "1Mi"), threshold(signal, "2Mi", "2m"))
    admit = [pod("pod-to-admit")]

    def s(advance, free=None, with_admit=False):
        fs = {k: ("3Mi", "4Mi") for k in ("nodefs", "imagefs", "containerfs")}
        if free:
            fs[on] = (free, "4Mi")
        out: dict = {"advance": advance, "summary": inode_summary(fs, stats)}
        if with_admit:
            out["admit"] = admit
        return out
    steps = [s(0, None, True), s("1m", "1.5Mi"), s("3m", "1.5Mi"), s("20m"), s("1m", "0.5Mi", True),
             s("1m", None, True), s("5m", None, True)]
    exp = _disk_script_expected("low-priority-high-usage")
    return case("TestInodePressureFsInodes", row, cfg, pods, steps, exp, layout)


STORAGE_LIMIT_ROWS = [  # row, pod name, requests, limits, rootfs, logs, per local volume, volumes
    ("eviction due to rootfs above limit", "rootfs-above-limits", resources(disk="1Gi"), resources(disk="1Gi"),
     "2Gi", "", "", None),
    ("eviction due to logsfs above limit", "logsfs-above-limits", resources(disk="1Gi"), resources(disk="1Gi"),
     "", "2Gi", "", None),
    ("eviction due to local volume above limit", "localvolume-above-limits", {}, {}, "", "", "2Gi",
     [{"name": "emptyDirVolume", "emptyDir": {"sizeLimit": "1Gi"}}]),
]


def test_storage_limit_evictions(row, name, requests, limits, rootfs, logs, vol, volumes):
    p = pod(name, DEFAULT, requests, limits, volumes)
    stats = [disk_stats(p, rootfs, logs, vol)]
    out = case("TestStorageLimitEvictions", row, config(threshold("nodefs.available", "1Gi")), [p],
               [{"summary": disk_summary("200Mi", "200Mi", stats)}],
               [{"evicted": name, "gracePeriodSeconds": 1}])
    out["localStorageCapacityIsolation"] = True
    return out


def main() -> None:
    cases = [test_memory_pressure(), test_memory_pressure_verify_pod_status(), test_min_reclaim(),
             test_allocatable_memory_pressure(), test_static_critical_pods(), test_admit_under_node_conditions(),
             test_pid_pressure(), test_pid_pressure_verify_pod_status(),
             *(test_disk_pressure_node_fs(*r) for r in DISK_ROWS),
             *(test_disk_pressure_verify_pod_status(*r) for r in VERIFY_DISK_ROWS),
             *(test_node_reclaim_funcs(*r) for r in RECLAIM_ROWS),
             *(test_inode_pressure(*r) for r in INODE_ROWS),
             *(test_storage_limit_evictions(*r) for r in STORAGE_LIMIT_ROWS)]
    out = Path(__file__).with_name("manager.json")
    out.write_text(json.dumps(cases, indent=1) + "\n")
    print(f"wrote {len(cases)} cases to {out}")


if __name__ == "__main__":
    main()
