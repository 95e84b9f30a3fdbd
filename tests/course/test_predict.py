"""The "predict, then change the YAML and check" exercises: the library schedules the student's YAML,
says whether the change asked was made and whether the prediction was right, and answers a broken
YAML with a sentence, never a traceback."""

from __future__ import annotations

import ast
from pathlib import Path

import nbformat
import pytest
import yaml

from kschedlab.exercises import CHANGE_MARK, WIDTH, PredictExercise, answer_key, change_problems, exercise

ROOT = Path(__file__).resolve().parents[2]
ANSWERS = yaml.safe_load((Path(__file__).parent / "exercise_answers.yaml").read_text(encoding="utf-8"))
PREDICT = [(notebook, number, plain) for notebook, entries in sorted(ANSWERS.items())
           for number, plain in enumerate(entries, start=1) if plain["kind"] == "predict"]
WRONG = {"number": 123456789, "text": "not-this", "choice": "zzz"}


def _edited(ex: PredictExercise, plain: dict) -> str:
    text = ex.manifest()
    for old, new in plain["edit"]:
        assert old in text, (old, "not in the exercise's YAML")
        text = text.replace(old, new)
    return text


def _ids(case) -> str:
    return f"{case[0]}#{case[1]}"


@pytest.mark.parametrize("case", PREDICT, ids=_ids)
def test_the_change_asked_gives_the_expected_outcome(case, capsys):
    """With the change made, the library's outcome is the stored answer: the digest is recomputed."""
    notebook, number, plain = case
    ex = exercise(notebook, number)
    assert isinstance(ex, PredictExercise)
    edited = _edited(ex, plain)
    assert change_problems(ex.manifest(), edited, ex.change) == []
    observed, _ = ex.outcome(edited)
    assert answer_key(ex.answer_kind, observed, ex.choices) == answer_key(ex.answer_kind, plain["answer"], ex.choices)
    assert ex.try_it(edited, plain["answer"]) is True
    out = capsys.readouterr().out
    assert "✓ The change asked is made." in out and "✓ Your prediction" in out


@pytest.mark.parametrize("case", PREDICT, ids=_ids)
def test_a_wrong_prediction_is_told(case, capsys):
    notebook, number, plain = case
    ex = exercise(notebook, number)
    assert ex.try_it(_edited(ex, plain), WRONG[ex.answer_kind]) is False
    out = capsys.readouterr().out
    assert "✓ The change asked is made." in out
    assert "is not what happened" in out or "is not one of the choices" in out


@pytest.mark.parametrize("case", PREDICT, ids=_ids)
def test_the_change_not_made_is_told_and_the_prediction_not_judged(case, capsys):
    notebook, number, plain = case
    ex = exercise(notebook, number)
    assert ex.try_it(ex.manifest(), plain["answer"]) is False
    out = capsys.readouterr().out
    assert "✗ The change asked is not made yet:" in out and "Your prediction is judged once" in out
    assert "✓" not in out


@pytest.mark.parametrize("case", PREDICT, ids=_ids)
def test_broken_yaml_gets_a_sentence(case, capsys):
    notebook, number, plain = case
    ex = exercise(notebook, number)
    edited = _edited(ex, plain)
    for broken in (edited.replace("kind:", "kind: [", 1), edited.replace("metadata:", "metdata:", 1), "just: [text"):
        assert ex.try_it(broken, plain["answer"]) is False
        out = capsys.readouterr().out
        assert out.startswith("Your YAML cannot be used: your YAML") and "Traceback" not in out
    assert ex.try_it(42, plain["answer"]) is False
    assert capsys.readouterr().out == "Give the YAML as a string, not 42.\n"


@pytest.mark.parametrize("case", PREDICT, ids=_ids)
def test_no_outcome_before_a_prediction(case, capsys):
    notebook, number, plain = case
    ex = exercise(notebook, number)
    assert ex.try_it(_edited(ex, plain), ...) is False
    assert capsys.readouterr().out.startswith("Predict first:")


@pytest.mark.parametrize("case", PREDICT, ids=_ids)
def test_the_notebook_cell_holds_the_exercise_yaml(case):
    """The YAML in the notebook's cell is the dataset's, with the line to change marked, so the
    student edits the cluster the question is about."""
    notebook, number, _ = case
    ex = exercise(notebook, number)
    nb = nbformat.read(ROOT / "notebooks" / f"{notebook}.ipynb", as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "code" and f"ex{number}.try_it(yaml_{number}, answer_{number})"
                in c.source)
    given = {t.id: node.value.value for node in ast.parse(cell.source).body if isinstance(node, ast.Assign)
             for t in node.targets if isinstance(t, ast.Name) and isinstance(node.value, ast.Constant)}
    assert given[f"yaml_{number}"] == ex.manifest()
    assert given[f"yaml_{number}"].count(f"  # <- {ex.note}" if ex.note else CHANGE_MARK) >= 1


def test_what_the_loader_skips_is_told(capsys):
    ex = exercise("07-framework", 3)
    edited = _edited(ex, next(p for n, k, p in PREDICT if (n, k) == ("07-framework", 3)))
    assert ex.try_it(edited.replace("apiVersion: kubescheduler", "apiVersion: nope.kubescheduler", 1), "c") is False
    out = capsys.readouterr().out
    assert "\n  note: skipped 1 object of kinds the scheduler does not use:" in out
    out = " ".join(out.split())  # the feedback is wrapped at spaces
    assert "note: skipped 1 object of kinds the scheduler does not use: KubeSchedulerConfiguration (1)" in out
    assert "So default/disco is Pending: no profile is named 'bin-packing-scheduler'." in out
    assert ("✗ The change asked is not made yet: you also changed KubeSchedulerConfiguration apiVersion: undo that, "
            "so the outcome answers the question.") in out


BEFORE = """\
kind: Node
metadata: {name: a, labels: {zone: x}}
---
kind: Pod
metadata: {name: p, namespace: default}
spec: {containers: [{name: c}]}
"""


@pytest.mark.parametrize(("edited", "change", "said"), [
    (BEFORE.replace("zone: x", "zone: w"), [{"object": "Node a", "path": "metadata.labels.zone", "value": "w"}], []),
    (BEFORE, [{"object": "Node a", "path": "metadata.labels.zone", "value": "w"}],
     ["Node a metadata.labels.zone is 'x'; the question asks for 'w'"]),
    (BEFORE.replace(", labels: {zone: x}", ""), [{"object": "Node a", "path": "metadata.labels.zone", "value": None}],
     []),
    (BEFORE.split("---")[0], [{"object": "Pod default/p", "deleted": True}], []),
    (BEFORE, [{"object": "Pod default/p", "deleted": True}],
     ["Pod default/p is still there; the question asks to delete it"]),
    (BEFORE + "---\nkind: Node\nmetadata: {name: b, labels: {zone: z}}\n",
     [{"object": "Node b", "path": "metadata.labels.zone", "value": "z"}], []),
    (BEFORE, [{"object": "Node b", "path": "metadata.labels.zone", "value": "z"}],
     ["there is no Node b in your YAML; the question asks for one"]),
    ("---" + BEFORE.split("---")[1], [{"object": "Node a", "path": "metadata.labels.zone", "value": "w"}],
     ["there is no Node a in your YAML; the question asks for one"]),
    (BEFORE.replace("name: c", "name: d").replace("zone: x", "zone: w"),
     [{"object": "Node a", "path": "metadata.labels.zone", "value": "w"}],
     ["you also changed Pod default/p spec.containers[0].name: undo that, so the outcome answers the question"]),
    (BEFORE + "---" + BEFORE.split("---")[1], [], ["you also wrote Pod default/p twice: undo that, so the outcome "
                                                 "answers the question"]),
    (BEFORE + "---\nkind: Node\nmetadata: {name: b}\n", [{"object": "Node a", "path": "metadata.labels.zone",
                                                          "value": "x"}],
     ["you also added Node b: undo that, so the outcome answers the question"]),
])
def test_change_problems(edited, change, said):
    assert change_problems(BEFORE, edited, change) == said


def test_an_outcome_unlike_the_change_asked_is_not_judged(monkeypatch, capsys):
    """Should an edit the change check cannot see move the outcome, the prediction is not judged right or wrong."""
    notebook, number, plain = PREDICT[0]
    ex = exercise(notebook, number)
    edited = _edited(ex, plain)
    monkeypatch.setattr(ex, "outcome", lambda text: ("somewhere-else", ["What the scheduler did with your YAML:"]))
    assert ex.try_it(edited, plain["answer"]) is False
    assert "✗ The outcome is not the one the change asked gives" in capsys.readouterr().out


def test_a_solved_predict_exercise_is_found_by_the_answer_scan(tmp_path, capsys):
    """A notebook saved with a predict exercise solved (its prediction, the verdict) fails the scan."""
    from .test_exercise_answers import answers_given_away

    notebook, number, plain = PREDICT[0]
    ex = exercise(notebook, number)
    assert ex.try_it(_edited(ex, plain), plain["answer"]) is True
    verdict = capsys.readouterr().out
    nb = nbformat.read(ROOT / "notebooks" / f"{notebook}.ipynb", as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "code" and f"ex{number}.try_it(" in c.source)
    cell.source = cell.source.replace(f"answer_{number} = ...", f"answer_{number} = {plain['answer']!r}")
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=verdict)]
    nbformat.write(nb, tmp_path / f"{notebook}.ipynb")
    found = answers_given_away(tmp_path / f"{notebook}.ipynb")
    assert any("✓ Your prediction" in f for f in found) and any(f"answer_{number} holds the answer" in f for f in found)


@pytest.mark.parametrize(("notebook", "number", "sentence"), [
    ("09-gang-scheduling", 6, "So 6 pods are running."),
    ("14-api-initiated-eviction", 6, "So 0 evictions are allowed."),
    ("13-node-pressure-eviction", 6, "So 2 thresholds are met."),
])
def test_the_outcome_reads_as_a_sentence(notebook, number, sentence, capsys):
    """The last line of the outcome counts in words a student reads, not "pod(s)"."""
    plain = ANSWERS[notebook][number - 1]
    ex = exercise(notebook, number)
    assert ex.try_it(_edited(ex, plain), plain["answer"]) is True
    out = capsys.readouterr().out
    assert sentence in out and "(s)" not in out


def test_feedback_is_wrapped_at_spaces(capsys):
    """No line of the feedback is wider than WIDTH, so JupyterLab never breaks one inside a word."""
    notebook, number, plain = next(case for case in PREDICT if case[:2] == ("01-filter-and-score", 6))
    ex = exercise(notebook, number)
    assert ex.try_it(ex.manifest(), "large") is False
    lines = capsys.readouterr().out.splitlines()
    assert lines[-3:-1] == ["✗ The change asked is not made yet: Pod default/web",
                            "  spec.containers[0].resources.requests.cpu is '1'; the question asks for '3'."]
    assert max(len(line) for line in lines) <= WIDTH
