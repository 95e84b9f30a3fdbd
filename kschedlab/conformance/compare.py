"""How conformance results are compared and reported (the rules of ``shared/CASES.md``)."""

from __future__ import annotations

import json
from typing import Any


class Mismatch(Exception):
    """A stage found a difference it cannot continue past (reported as the case's diff)."""


def check(diffs: list[str], what: str, got: Any, want: Any) -> None:
    """Append a readable diff when ``got`` differs from ``want``.

    >>> diffs = []
    >>> check(diffs, "score", 3, 4); diffs
    ['score: got 3, want 4']
    """
    if got != want:
        diffs.append(f"{what}: got {json.dumps(got, default=str)}, want {json.dumps(want, default=str)}")


def status_dict(status) -> dict:
    """A framework Status as a case writes it: ``{code, reasons}``."""
    return {"code": status.code.name, "reasons": list(status.reasons)}
