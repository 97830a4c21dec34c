"""The test command also type-checks (mypy --strict) and lints (ruff) the package."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tool(name: str) -> list[str] | None:
    exe = Path(sys.executable).parent / name
    if exe.exists():
        return [str(exe)]
    found = shutil.which(name)
    return [found] if found else None


@pytest.mark.skipif(_tool("mypy") is None, reason="mypy not installed")
def test_mypy_strict() -> None:
    cmd = _tool("mypy")
    assert cmd is not None
    # strict mode comes from pyproject.toml, which leaves unused `type: ignore`s
    # alone: some are needed only when an optional integration is installed
    p = subprocess.run([*cmd, "src/sandbash"], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stdout[-6000:] + p.stderr[-2000:]


@pytest.mark.skipif(_tool("ruff") is None, reason="ruff not installed")
def test_ruff() -> None:
    cmd = _tool("ruff")
    assert cmd is not None
    p = subprocess.run([*cmd, "check", "--output-format", "concise", "src", "tests"], cwd=ROOT, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stdout[-6000:] + p.stderr[-2000:]
