"""The notebook exercise checker: verdicts, placeholders, hints one at a time, solutions on
request, no state shared between exercises."""

from __future__ import annotations

import pytest

from kschedlab.exercises import Exercise, quantity_equals


def test_placeholder_is_not_an_error(capsys):
    ex = Exercise("q", answer=1)
    assert ex.check(...) is False and ex.check(None) is False
    assert capsys.readouterr().out.count("Not answered yet") == 2


def test_quantity_answers(capsys):
    ex = Exercise("memory.limit_in_bytes?", check=quantity_equals("320Mi"), hints=["h"])
    assert ex.check(335544320) and ex.check("320Mi") and ex.check("0.3125Gi")
    assert not ex.check("320M")
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "✗ Not quite: 320M is not the expected amount. Try again, or ask for a hint with .hint()."
    assert not ex.check([1])


def test_custom_check_with_feedback(capsys):
    ex = Exercise("even?", check=lambda a: (a % 2 == 0, "odd numbers are not even"))
    assert not ex.check(3)
    assert "odd numbers are not even" in capsys.readouterr().out


def test_hints_one_at_a_time_and_independent(capsys):
    a = Exercise("a", answer="x", hints=["h1", "h2"])
    b = Exercise("b", answer="y", hints=["k1"])
    a.hint()
    b.hint()
    a.hint()
    out = capsys.readouterr().out.splitlines()
    assert out == ["Hint 1/2: h1", "Hint 1/1: k1", "Hint 2/2: h2"]


def test_solution_only_when_asked(capsys):
    ex = Exercise("q", answer=2250, solution="2000m + 250m")
    ex.check(1)
    assert "2000m + 250m" not in capsys.readouterr().out
    ex.solution()
    assert capsys.readouterr().out == "Solution: 2000m + 250m\n"


def test_needs_exactly_one_of_answer_and_check():
    with pytest.raises(ValueError):
        Exercise("q")
    with pytest.raises(ValueError):
        Exercise("q", answer=1, check=lambda a: True)


def test_markdown_display():
    ex = Exercise("Which?", choices=["x", "y"], answer="y")
    assert ex._repr_markdown_() == "**Exercise.** Which?\n\n- **a)** x\n- **b)** y"
