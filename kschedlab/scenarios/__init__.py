"""Scenarios shipped inside the package (the demo's embedded default)."""

from importlib.resources import files


def path(name: str = "default") -> str:
    """Filesystem path of a shipped scenario."""
    return str(files(__name__) / f"{name}.yaml")
