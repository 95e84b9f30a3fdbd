"""A researcher's Filter and PreFilter plugins on SchedulingBasic: their cost beside the fused path (issue 26).

Run: ``.venv/bin/python benchmarks/custom_plugin.py [--scale S] [--per-node]``

SchedulingBasic (5,000 nodes, 1,000 pods placed, 10,000 measured at ``--scale 1``) is run, one after the
other in this process, with the default profile, then with plugins of one's own added through
``multiPoint`` as notebook 18 adds them (all nodes at once, on the snapshot's columns):

* ``ReservedNodes``: Filter, a label check: a node labelled ``example.com/reserved`` is refused
  (no node of this workload carries it, so every node is checked and passes);
* ``TeamTag``: PreFilter, reads the pod's ``team`` label into the cycle state (Success);
* both together, and (``--per-node``) ``ReservedNodesPerNode``, the same check written per node, and
  ``LightsPerNode``, a Score written per node (a label read as a number, as notebook 07's plugin).

Each custom profile runs twice: on the fused path (the default plugins answered at once, the custom
plugins called beside them) and plugin by plugin (``fast_path=False``: what every pod took before a
custom PreFilter or Filter could ride the fused path). Prints one JSON line per run (pods per CPU
second, the load average) and, per custom profile, ``ratio`` = the default profile's fused rate over
the custom profile's fused rate (the issue asks for at most 2). Numbers are for reading, never asserted.
"""

import argparse
import json
import os
import sys

from kschedlab.framework.interface import Plugin, Verdicts
from kschedlab.framework.status import Code, Status
from kschedlab.scheduler_perf import WORKLOADS, run_workload

RESERVED = "example.com/reserved"


class ReservedNodes(Plugin):
    """Filter: nodes labelled ``example.com/reserved`` are not for ordinary pods."""

    name = "ReservedNodes"

    def filter_nodes(self, state, pod_info, snapshot, rows):
        codes, _ = snapshot.label_codes(RESERVED)
        return Verdicts.from_mask(codes.take(rows) >= 0, Code.UnschedulableAndUnresolvable,
                                  ("node(s) are reserved",))


class ReservedNodesPerNode(Plugin):
    """The same check, one node at a time."""

    name = "ReservedNodesPerNode"

    def filter(self, state, pod_info, node_info):
        if RESERVED in node_info.node.metadata.labels:
            return Status.unresolvable("node(s) are reserved")
        return Status()


class LightsPerNode(Plugin):
    """Score, one node at a time: the node's ``example.com/blinking-lights`` label (notebook 07's
    BlinkingLightScorer without its NormalizeScore; no node of this workload carries it: 0 everywhere)."""

    name = "LightsPerNode"

    def score(self, state, pod_info, node_info):
        return int(node_info.node.metadata.labels.get("example.com/blinking-lights", "0")), Status()


class TeamTag(Plugin):
    """PreFilter: the pod's team, kept in the cycle state for later points."""

    name = "TeamTag"

    def pre_filter(self, state, pod_info, snapshot):
        state["TeamTag"] = pod_info.pod.metadata.labels.get("team", "")
        return None, Status()


REGISTRY = {cls.name: cls for cls in (ReservedNodes, ReservedNodesPerNode, LightsPerNode, TeamTag)}


def config(*names: str) -> dict:
    return {"profiles": [{"plugins": {"multiPoint": {"enabled": [{"name": n} for n in names]}}}]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of upstream's sizes")
    parser.add_argument("--per-node", action="store_true", help="also a Filter and a Score written per node")
    args = parser.parse_args(argv)
    w = WORKLOADS["SchedulingBasic"]
    sizes = {k: max(1, round(getattr(w, k) * args.scale)) for k in ("nodes", "init_pods", "measure_pods")}
    arms = [("ReservedNodes",), ("TeamTag",), ("TeamTag", "ReservedNodes")]
    if args.per_node:
        arms += [("ReservedNodesPerNode",), ("LightsPerNode",)]

    def measure(names: tuple, fast: bool) -> float:
        r = run_workload("SchedulingBasic", **sizes, config=config(*names) if names else None,
                         registry=REGISTRY, fast_path=fast)
        assert r["scheduled"] == r["pods"]
        row = {"plugins": list(names), "fast_path": fast, **sizes, "pods_per_cpu_second": r["pods_per_cpu_second"],
               "cpu_seconds": r["cpu_seconds"], "load_average": round(os.getloadavg()[0], 2)}
        print(json.dumps(row), flush=True)
        return r["pods_per_cpu_second"]

    base = measure((), True)
    for names in arms:
        fused = measure(names, True)
        plain = measure(names, False)
        print(json.dumps({"plugins": list(names), "ratio": round(base / fused, 2),
                          "fused_over_plugin_by_plugin": round(fused / plain, 2)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
