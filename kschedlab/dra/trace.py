"""A step-by-step record of one structured allocation (off in the fast path).

Every row is one event of the search: a device tried for a request and why it
was rejected, a device taken, a rollback when the search backtracks, a
``firstAvailable`` alternative entered, a pool skipped, the outcome. Rows are
plain dicts so that :meth:`AllocationTrace.to_frame` gives a pandas DataFrame.

>>> t = AllocationTrace()
>>> t.add("try", claim="c", request="r", device="d/p/x", depth=0)
>>> t.add("reject", claim="c", request="r", device="d/p/x", reason="selector false", depth=0)
>>> t.to_frame()[["step", "action", "reason"]].values.tolist()
[[0, 'try', ''], [1, 'reject', 'selector false']]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["AllocationTrace", "REASONS", "COLUMNS"]

#: why a device was not taken for a request
REASONS = (
    "already allocated",          # allocated to some claim before (or in use by another claim being allocated)
    "in use in same claim",        # admin access: already taken by this claim
    "binding conditions disabled",  # device has bindingConditions, DRADeviceBindingConditions off
    "class selector false",
    "selector false",
    "node selection",              # per-device node selection does not reach the node
    "capacity",                    # consumable capacity would be exceeded / policy violated
    "capacity undefined",          # the request names a capacity the device lacks
    "partitionable devices disabled",
    "counters",                    # shared counters of the pool exhausted
    "taint",                       # NoSchedule/NoExecute taint not tolerated
    "constraint",                  # matchAttribute / distinctAttribute
)

COLUMNS = ("step", "depth", "action", "claim", "request", "device", "reason", "detail")


@dataclass
class AllocationTrace:
    """Rows of the search; ``to_frame()`` for a DataFrame, ``rows`` for plain dicts."""

    rows: list[dict[str, Any]] = field(default_factory=list)

    def add(self, action: str, *, claim: str = "", request: str = "", device: str = "",
            reason: str = "", detail: str = "", depth: int = 0) -> None:
        """Append one event."""
        self.rows.append({"step": len(self.rows), "depth": depth, "action": action, "claim": claim,
                          "request": request, "device": device, "reason": reason, "detail": detail})

    def to_frame(self):
        """The rows as a pandas DataFrame with columns :data:`COLUMNS`."""
        import pandas as pd

        return pd.DataFrame(self.rows, columns=list(COLUMNS))

    def rejections(self) -> dict[str, int]:
        """How often each rejection reason occurred.

        >>> t = AllocationTrace(); t.add("reject", reason="taint"); t.rejections()
        {'taint': 1}
        """
        out: dict[str, int] = {}
        for r in self.rows:
            if r["action"] == "reject":
                out[r["reason"]] = out.get(r["reason"], 0) + 1
        return out
