"""The linter and the type checker run the same way everywhere: .ci/run, the pre-commit hooks and the
conda environment use the commands and versions pinned in pyproject.toml's ``test`` extra."""

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def _pins() -> dict[str, str]:
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    return dict(p.split("==") for p in extra if "==" in p)


def test_ci_runs_the_pre_commit_hooks_before_pytest():
    hooks = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())["repos"][0]["hooks"]
    assert [h["id"] for h in hooks] == ["ruff", "mypy"]
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    pytest_at = ci.index(".venv/bin/python -m pytest")
    for hook in hooks:
        assert hook["language"] == "system" and not hook["pass_filenames"]
        assert ci.index(f".venv/bin/{hook['entry']}") < pytest_at, hook["id"]


def test_every_place_names_the_pinned_versions():
    pins = _pins()
    assert {"ruff", "mypy"} <= set(pins)
    hooks = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())["repos"][0]["hooks"]
    for hook in hooks:
        assert hook["name"].endswith(f"({hook['id']} {pins[hook['id']]})"), hook["name"]
    conda = yaml.safe_load((ROOT / "environment.yml").read_text())["dependencies"]
    conda_pip = next(d["pip"] for d in conda if isinstance(d, dict))
    conda_pins = dict(re.split(r"==", p.split()[0]) for p in conda_pip if "==" in p)
    assert {name: conda_pins.get(name) for name in pins} == pins
