"""FitError message formatting -> ``Diagnosis.message()``.

source: kubernetes/kubernetes@00fdf757a8e89fb0c7ccad10419ef33a1fa1b1ab
        pkg/scheduler/framework/types_test.go :: TestFitError_Error
        (formatting rules: pkg/scheduler/framework/types.go :: (*FitError).Error)
"""

from __future__ import annotations

from collections import Counter

import pytest

from kschedlab.framework.diagnosis import Diagnosis
from kschedlab.framework.status import Code, Status

SOURCE = ("kubernetes/kubernetes@00fdf757a8e89fb0c7ccad10419ef33a1fa1b1ab "
          "pkg/scheduler/framework/types_test.go :: TestFitError_Error")

UNRESOLVABLE = Status(Code.UnschedulableAndUnresolvable)


def diagnosis(num_all_nodes, node_to_status, absent=UNRESOLVABLE,
              prefilter_msg="", postfilter_msg=""):
    """Build a Diagnosis the way upstream's NodeToStatus holds it: explicit
    per-node statuses plus the status of the absent nodes."""
    d = Diagnosis(num_all_nodes)
    counts = Counter(r for st in node_to_status.values() for r in st.reasons)
    d.add_counts(counts, explicit=len(node_to_status))
    d.absent_status = absent
    d.prefilter_msg = prefilter_msg
    d.postfilter_msg = postfilter_msg
    return d


def unsched(msg):
    return Status(Code.Unschedulable, (msg,))


PF = "Node(s) failed PreFilter plugin FalsePreFilter"
F1 = "Node(s) failed Filter plugin FalseFilter-1"
F2 = "Node(s) failed Filter plugin FalseFilter-2"
POST = "Error running PostFilter plugin FailedPostFilter"

CASES = [
    pytest.param(3, {"node1": unsched(PF), "node2": unsched(PF), "node3": unsched(PF)}, PF, "",
                 "0/3 nodes are available: Node(s) failed PreFilter plugin FalsePreFilter.",
                 id="nodes failed Prefilter plugin"),
    pytest.param(3, {"node1": unsched(PF), "node2": unsched(PF), "node3": unsched(PF)}, PF, POST,
                 "0/3 nodes are available: Node(s) failed PreFilter plugin FalsePreFilter. "
                 "Error running PostFilter plugin FailedPostFilter",
                 id="nodes failed Prefilter plugin and the preemption also failed"),
    pytest.param(3, {"node1": unsched(F1), "node2": unsched(F1), "node3": unsched(F1)}, "", "",
                 "0/3 nodes are available: 3 Node(s) failed Filter plugin FalseFilter-1.",
                 id="nodes failed one Filter plugin with an empty PostFilterMsg"),
    pytest.param(3, {"node1": unsched(F1), "node2": unsched(F1), "node3": unsched(F1)}, "", POST,
                 "0/3 nodes are available: 3 Node(s) failed Filter plugin FalseFilter-1. "
                 "Error running PostFilter plugin FailedPostFilter",
                 id="nodes failed one Filter plugin with a non-empty PostFilterMsg"),
    pytest.param(3, {"node1": unsched(F1), "node2": unsched(F1), "node3": unsched(F2)}, "", "",
                 "0/3 nodes are available: 1 Node(s) failed Filter plugin FalseFilter-2, "
                 "2 Node(s) failed Filter plugin FalseFilter-1.",
                 id="nodes failed two Filter plugins with an empty PostFilterMsg"),
    pytest.param(3, {"node1": unsched(F1), "node2": unsched(F1), "node3": unsched(F2)}, "", POST,
                 "0/3 nodes are available: 1 Node(s) failed Filter plugin FalseFilter-2, "
                 "2 Node(s) failed Filter plugin FalseFilter-1. Error running PostFilter plugin FailedPostFilter",
                 id="nodes failed two Filter plugins with a non-empty PostFilterMsg"),
    pytest.param(1, {"node1": unsched("Node failed Permit plugin Permit-1")}, "", "",
                 "0/1 nodes are available: 1 Node failed Permit plugin Permit-1.",
                 id="failed to Permit on node"),
    pytest.param(1, {"node1": unsched("Node failed Reserve plugin Reserve-1")}, "", "",
                 "0/1 nodes are available: 1 Node failed Reserve plugin Reserve-1.",
                 id="failed to Reserve on node"),
]


@pytest.mark.parametrize("num_all, statuses, prefilter_msg, postfilter_msg, want", CASES)
def test_fit_error_message(num_all, statuses, prefilter_msg, postfilter_msg, want):
    # source: SOURCE
    d = diagnosis(num_all, statuses, prefilter_msg=prefilter_msg, postfilter_msg=postfilter_msg)
    assert d.message() == want
