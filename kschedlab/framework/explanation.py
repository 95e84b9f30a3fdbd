"""The per-node table of one scheduling attempt, as :meth:`CycleTrace.explain` returns it.

A DataFrame like any other (notebooks show it as HTML), whose plain-text form is the whole
table — every row and column, ``-`` where a value is missing — so that ``print(result.explain())``
in a terminal hides nothing.

>>> import pandas as pd
>>> table = Explanation({"filter": ["passed", "NodeResourcesFit"],
...                      "total": pd.array([180, None], dtype="Int64")}, index=["node-a", "node-b"])
>>> print(table)
                  filter total
node-a            passed   180
node-b  NodeResourcesFit     -
"""

from __future__ import annotations

import pandas as pd


class Explanation(pd.DataFrame):
    """A DataFrame printed whole, with ``-`` for missing values."""

    @property
    def _constructor(self):
        return Explanation

    def __repr__(self) -> str:
        return self.astype(object).where(self.notna(), "-").to_string()

    __str__ = __repr__
