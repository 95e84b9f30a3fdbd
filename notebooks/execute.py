"""Re-execute the course notebooks in place so their stored outputs are reproducible.

Run after changing a notebook or anything in the library that changes its
numbers (for example a new default Score plugin):

    .venv/bin/python notebooks/execute.py            # every notebook here
    .venv/bin/python notebooks/execute.py 00-tour.ipynb
    .venv/bin/python notebooks/execute.py 00-tour      # the same: ``.ipynb`` may be left out

Then ``pytest --nbval notebooks/`` compares fresh runs with what is stored.
What keeps the files stable from run to run:

- each notebook sets ``plotly.io.renderers.default = "plotly_mimetype"``,
  so figures are stored as plotly JSON (no HTML with random div ids);
- no execution timestamps (``record_timing=False``) and no widget state;
- the random ``model_id`` of displayed widgets is dropped (nbval ignores
  it anyway; the widgets' text repr stays and is compared);
- the kernel runs with the notebook's directory as working directory;
- consecutive stream outputs are merged (a busy kernel splits prints differently).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def execute(path: Path, timeout: int = 600) -> None:
    """Execute ``path`` top to bottom and write it back with stable metadata."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", record_timing=False,
                            store_widget_state=False, resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if "outputs" in cell:
            cell.outputs = _coalesce_streams(cell.outputs)
        for out in cell.get("outputs", []):
            if "data" in out:
                out["data"].pop(WIDGET_VIEW, None)
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, path)


def _coalesce_streams(outputs: list) -> list:
    """One stream output per run of ``print``s: how a busy kernel splits them into messages varies.

    >>> import nbformat
    >>> outs = [nbformat.v4.new_output("stream", name="stdout", text=t) for t in ("a", "b\\n")]
    >>> [o.text for o in _coalesce_streams(outs)]
    ['ab\\n']
    """
    merged: list = []
    for out in outputs:
        last = merged[-1] if merged else None
        if (out.get("output_type") == "stream" and last is not None and last.get("output_type") == "stream"
                and last.get("name") == out.get("name")):
            last["text"] += out["text"]
        else:
            merged.append(out)
    return merged


def notebook_path(name: str) -> Path:
    """The notebook ``name`` names, here, with or without its ``.ipynb`` suffix; a name that
    matches none is an error that lists the notebooks there are.

    >>> notebook_path("00-tour").name, notebook_path("00-tour.ipynb").name
    ('00-tour.ipynb', '00-tour.ipynb')
    >>> notebook_path("00-tuor")
    Traceback (most recent call last):
    ...
    SystemExit: no notebook 00-tuor in notebooks/ (00-tour, 01-filter-and-score, ...)
    """
    path = HERE / name
    if path.suffix != ".ipynb":
        path = path.with_name(path.name + ".ipynb")
    if not path.is_file():
        known = sorted(p.stem for p in HERE.glob("*.ipynb"))
        raise SystemExit(f"no notebook {name} in notebooks/ ({', '.join(known[:2])}, ...)")
    return path


def main(argv: list[str]) -> int:
    paths = [notebook_path(a) for a in argv] if argv else sorted(HERE.glob("*.ipynb"))
    for path in paths:
        print(f"executing {path.name}", flush=True)
        execute(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
