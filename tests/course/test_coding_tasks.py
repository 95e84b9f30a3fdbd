"""The checks of the course's coding tasks answer a student's mistakes with a sentence, never a traceback."""

from __future__ import annotations

import pytest

from kschedlab.exercises import exercise
from kschedlab.framework.interface import Plugin
from kschedlab.framework.status import Status
from kschedlab.research.fgd.policies import Policy


def _raising_hint(pod_info, old_obj, new_obj):
    return old_obj.no_such_field


class _RaisingScore(Plugin):
    name = "RaisingScore"

    def score_placement(self, state, group, assignments):
        raise KeyError("rack")


class _RaisingPolicy(Policy):
    name = "RaisingPolicy"

    def score(self, node, pod):
        raise ValueError("no score")


class _SameName(Plugin):
    name = "PodGroupPodsCount"

    def score_placement(self, state, group, assignments):
        return 0, Status()


@pytest.mark.parametrize(("notebook", "number", "answer", "said"), [
    ("12-priority-and-preemption", 5, _raising_hint, "when default/bound is deleted your hint raised AttributeError"),
    ("12-priority-and-preemption", 5, Plugin, "give a function hint(pod_info, old_obj, new_obj)"),
    ("16-podgroups-and-placement", 5, _RaisingScore, "scheduling podgroup/ml/training, your plugin raised KeyError"),
    ("16-podgroups-and-placement", 5, _SameName, "give your plugin a name of its own (not 'PodGroupPodsCount')"),
    ("16-podgroups-and-placement", 5, "MyPodsCount", "give a plugin class with score_placement"),
    ("19-reproducing-a-paper", 4, _RaisingPolicy, "your policy raised ValueError: no score."),
    ("19-reproducing-a-paper", 4, 3, "give a policy class (class MyPolicy(Policy): ...), not 3."),
])
def test_a_wrong_answer_gets_a_sentence(notebook, number, answer, said):
    ok, message = exercise(notebook, number).verdict(answer)
    assert ok is False
    assert said in message
