"""The course's exercises keep their answers out of the notebooks.

The exercises live in ``kschedlab/exercise_book`` with digests instead of answers; the
plain answers are here (``exercise_answers.yaml``). These tests check that the digests match
those answers, that no notebook's source or stored output gives an answer away, and that the
library still computes each expected answer (the teachers' checks in ``answers/``, run in the
notebook's own kernel after its cells).
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
import yaml

from kschedlab.exercises import BOOK, exercise

from . import model_plugins
from .model_plugins import (
    AdmitEverything,
    RejectEverything,
    ScoreEveryNodeZero,
    ScoreNothing,
    ScoreZero,
    all_nodes,
    queue_always,
)

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
ANSWERS = yaml.safe_load((Path(__file__).parent / "exercise_answers.yaml").read_text(encoding="utf-8"))
TEACHERS = Path(__file__).parent / "answers"
#: the coding tasks: the model answer is a name in model_plugins; a wrong answer for each kind
CODING = {"plugin": RejectEverything, "hint": queue_always, "placement": ScoreNothing, "policy": ScoreZero,
          "pre_enqueue": AdmitEverything, "function": all_nodes, "sweep": ScoreEveryNodeZero}


def _notebooks() -> list[Path]:
    return sorted(NOTEBOOKS.glob("*.ipynb"))


def _texts(path: Path) -> list[tuple[str, str]]:
    """(where, text) for every cell source and every stored text output of ``path``."""
    nb = nbformat.read(path, as_version=4)
    out = []
    for i, cell in enumerate(nb.cells):
        out.append((f"cell {i} source", cell.source))
        for o in cell.get("outputs", []):
            if "text" in o:
                out.append((f"cell {i} output", o["text"]))
            for mime, data in o.get("data", {}).items():
                if mime.startswith("text/"):
                    out.append((f"cell {i} {mime}", data if isinstance(data, str) else "".join(data)))
    return out


def test_every_notebook_with_exercises_is_in_the_book():
    assert sorted(ANSWERS) == sorted(p.stem for p in BOOK.glob("*.yaml"))
    for path in _notebooks():
        source = "".join(c.source for c in nbformat.read(path, as_version=4).cells)
        uses = sorted(set(map(int, re.findall(rf'exercise\("{re.escape(path.stem)}", (\d+)\)', source))))
        assert uses == list(range(1, len(ANSWERS.get(path.stem, [])) + 1)), path.stem


@pytest.mark.parametrize("notebook", sorted(ANSWERS))
def test_digests_accept_the_answer_and_reject_others(notebook, capsys):
    for number, plain in enumerate(ANSWERS[notebook], start=1):
        ex = exercise(notebook, number)
        wrongs = {"number": 123456789, "quantity": "123456789", "text": "not-this", "choice": "zzz", "explain": "yes",
                  "selector": "device.driver == \"nope\"", **CODING}
        right, wrong = plain["answer"], wrongs[getattr(ex, "answer_kind", None) or plain["kind"]]
        if plain["kind"] in CODING:
            right = getattr(model_plugins, right)
        assert ex.verdict(right)[0] is True, (notebook, number)
        assert ex.verdict(wrong)[0] is False
        ex.solution()
        assert capsys.readouterr().out == f"Solution: {plain['solution']}\n"


def answers_given_away(path: Path) -> list[str]:
    """Where ``path`` shows an exercise's answer, solution or verdict, in a cell's source or
    outputs (the exercises of the notebook named like ``path``'s stem)."""
    found = []
    solutions = [p["solution"] for p in ANSWERS.get(path.stem, [])]
    for where, text in _texts(path):
        flat = " ".join(text.split())
        for pattern in (r"\banswer\s*=", r"\bsolution\s*=", r"\bcheck\s*=", "For teachers", "expected answers:",
                        r"(✓|✅) Correct", r"✓ Your prediction", r"^Solution:"):
            if re.search(pattern, text, re.M):
                found.append(f"{where}: {pattern}")
        for number, plain in enumerate(ANSWERS.get(path.stem, []), start=1):
            if plain["kind"] in ("explain", *CODING):
                continue
            if re.search(rf"answer_{number}\s*=\s*(?!\.\.\.)", text):
                ex = exercise(path.stem, number)
                value = re.search(rf"answer_{number}\s*=\s*([^#\n]+)", text).group(1).strip()
                try:
                    given = eval(value, {})  # the student cell's literal
                except Exception:
                    given = value
                if ex.verdict(given)[0]:
                    found.append(f"{where}: answer_{number} holds the answer")
        for solution in solutions:
            if " ".join(solution.split()) in flat:
                found.append(f"{where}: a solution")
    return found


@pytest.mark.parametrize("path", _notebooks(), ids=lambda p: p.stem)
def test_no_answer_in_a_notebook(path):
    """No exercise's answer, solution or verdict is in the notebook's source or outputs."""
    assert answers_given_away(path) == []


@pytest.mark.parametrize("teacher", sorted(TEACHERS.glob("nb_*.py")), ids=lambda p: p.stem)
def test_the_library_computes_each_expected_answer(teacher):
    """Run the notebook, then the teachers' check in its kernel: every expected answer is right."""
    from nbclient import NotebookClient

    name = next(p for p in NOTEBOOKS.glob("*.ipynb") if "nb_" + p.stem.replace("-", "_") == teacher.stem)
    nb = nbformat.read(name, as_version=4)
    # right after the exercises, where the teachers' cell was (later cells may clean up what it reads)
    at = 1 + max(i for i, c in enumerate(nb.cells) if c.cell_type == "code" and ".check(answer_" in c.source)
    nb.cells.insert(at, nbformat.v4.new_code_cell(teacher.read_text(encoding="utf-8")))
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    assert not [o for o in nb.cells[at].outputs if o.output_type == "error"]


#: exercises that once asked for a value the notebook printed above them, now worked out by the student
WORKED_OUT = [("00-tour", 2), ("08-dynamic-resource-allocation", 3), ("09-gang-scheduling", 1),
              ("09-gang-scheduling", 2), ("12-priority-and-preemption", 3),
              ("13b-eviction-ranking-and-oom", 2)]


@pytest.mark.parametrize(("notebook", "number"), WORKED_OUT, ids=lambda v: str(v))
def test_a_worked_out_answer_is_not_printed(notebook, number):
    """The answer is nowhere in the notebook's text or outputs (as 75, 75.0 or 75 s alike)."""
    answer = str(ANSWERS[notebook][number - 1]["answer"])
    found = [where for where, text in _texts(NOTEBOOKS / f"{notebook}.ipynb")
             if re.search(rf"(?<![\w.]){re.escape(answer)}(\.0+)?(?![\w.])", text)]
    assert found == []


def test_the_seed_by_seed_cpu_utilisation_is_not_printed():
    """18's exercise 3 is answered with the explorer: no table printed above it gives the seeds'
    mean CPU utilisation (the summary table gives only the means over seeds)."""
    for where, text in _texts(NOTEBOOKS / "18-research-workflow.ipynb"):
        if "output" in where and "cpu_utilization_mean" in text:
            assert not re.search(r"\bseed\b", text), where  # a column or row per seed ("seeds" counts them)


def test_the_gang_story_is_shown_on_four_nodes_only():
    """09's exercise 3 asks how many nodes both jobs need to start at t=0 with minCount 3: no output
    shows the story on a cluster of more than four nodes (node-0 to node-3)."""
    for where, text in _texts(NOTEBOOKS / "09-gang-scheduling.ipynb"):
        if "output" in where or "text/" in where:
            assert not re.search(r"\bnode-([4-9]|\d\d+)\b", text), where


def test_no_printed_pod_needs_two_declared_features():
    """15's exercise 2 asks about a pod needing ContainerUlimits and UserNamespacesHostNetworkSupport:
    no requirements table above it shows a pod needing both."""
    for where, text in _texts(NOTEBOOKS / "15-node-declared-features.ipynb"):
        if "source" not in where and "required features" in text:
            assert not [line for line in text.splitlines()
                        if "ContainerUlimits" in line and "UserNamespacesHostNetworkSupport" in line], where


def test_gpu_b3_is_shown_rejected_by_its_taint_only():
    """00's exercise 1 asks which plugin rejects gpu-b3 once cache-0 tolerates its taint: no output
    above it shows gpu-b3 rejected by another Filter plugin."""
    for where, text in _texts(NOTEBOOKS / "00-tour.ipynb"):
        if "source" not in where:
            assert not re.search(r"gpu-b3\s+NodeAffinity", text), where


def test_no_printed_pod_has_a_restart_rule_of_one_container():
    """15's exercise 1 asks on how many nodes ``checker`` may run (its restart rule's action is
    Restart, it sets hostUsers: true): no output shows that pod, such a rule or its requirements."""
    for where, text in _texts(NOTEBOOKS / "15-node-declared-features.ipynb"):
        if "source" not in where and "NodeDeclaredFeatures let `checker` run" not in text:  # but the question
            assert "checker" not in text and not re.search(r"action: Restart\b(?!All)", text), where
            assert "hostUsers: true" not in text, where
