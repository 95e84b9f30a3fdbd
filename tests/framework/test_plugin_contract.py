"""A plugin written in a notebook that breaks its extension point's contract is named with what it
returned and what it should return, instead of an unpacking error deep in the framework or a
silently wrong score (found by QA as a researcher would write plugins)."""

import numpy as np
import pytest

from kschedlab import Cluster, Scheduler
from kschedlab.api import load_manifests
from kschedlab.framework.interface import Plugin
from kschedlab.framework.profile import ProfileError
from kschedlab.framework.status import Status

TEXT = """
apiVersion: v1
kind: Node
metadata: {name: a}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: b}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers: [{name: app, image: nginx, resources: {requests: {cpu: "1"}}}]
"""


def schedule(cls, point, name=None):
    name = name or cls.name
    scheduler = Scheduler(Cluster(load_manifests(text=TEXT)),
                          {"profiles": [{"plugins": {point: {"enabled": [{"name": name}]}}}]}, registry={name: cls})
    return scheduler.schedule_one("default/web")


def plugin(name, method, body):
    return type(name, (Plugin,), {"name": name, method: body})


@pytest.mark.parametrize(("answer", "message"), [
    (5, 'plugin "Bad": score returned 5 (int), not a pair (score, Status())'),
    ((3.7, Status()), 'plugin "Bad": score returned the score 3.7 (float), not an integer (int64 as upstream: '
                      "// for integer division)"),
    ((10, "ok"), "plugin \"Bad\": score returned (10, 'ok') (tuple), not a pair (score, Status())"),
])
def test_a_per_node_score_of_the_wrong_type_is_named(answer, message):
    with pytest.raises(TypeError) as err:
        schedule(plugin("Bad", "score", lambda self, state, pod_info, node_info: answer), "score")
    assert str(err.value) == message


def test_an_integer_score_of_numpy_and_a_status_of_none_are_taken():
    result = schedule(plugin("Good", "score", lambda self, state, pod_info, node_info: (np.int64(7), None)), "score")
    assert result.node in ("a", "b")


def test_score_nodes_with_one_score_too_few_or_floats_is_refused():
    short = plugin("Short", "score_nodes", lambda self, state, pod_info, snapshot, rows: [1])
    with pytest.raises(TypeError, match=r'plugin "Short": score_nodes returned 1 int64 value\(s\) of shape \(1,\), '
                                        r"not one integer per row \(2 rows"):
        schedule(short, "score")
    floats = plugin("Floats", "score_nodes", lambda self, state, pod_info, snapshot, rows: rows * 0.5)
    with pytest.raises(TypeError, match=r'plugin "Floats": score_nodes returned 2 float64 value'):
        schedule(floats, "score")


@pytest.mark.parametrize("answer", [None, False, True])
def test_a_filter_answer_that_is_not_a_status_is_named(answer):
    with pytest.raises(TypeError) as err:
        schedule(plugin("Bad", "filter", lambda self, state, pod_info, node_info: answer), "filter")
    assert str(err.value) == (f'plugin "Bad": filter returned {answer!r} ({type(answer).__name__}), not a Status: '
                              'Status() lets the node pass, Status.unschedulable("reason") rejects it')


def test_filter_nodes_must_answer_verdicts():
    bad = plugin("Bad", "filter_nodes", lambda self, state, pod_info, snapshot, rows: [True] * len(rows))
    with pytest.raises(TypeError, match=r'plugin "Bad": filter_nodes returned \[True, True\] \(list\), not Verdicts'):
        schedule(bad, "filter")


def test_a_plugin_registered_under_another_name_than_its_own_is_refused():
    nameless = type("Nameless", (Plugin,), {"score": lambda self, state, pod_info, node_info: (1, Status())})
    with pytest.raises(ProfileError, match="plugin 'X' is registered under 'X' but its class Nameless names itself "
                                           "'': set name = 'X' on the class"):
        schedule(nameless, "score", name="X")
