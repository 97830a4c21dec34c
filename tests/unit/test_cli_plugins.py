"""The CLI's quick look for installed command plugins before paying for importlib.metadata."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbash import custom
from sandbash.cli import app as cli


def test_group_matches_custom() -> None:
    assert cli.ENTRY_POINT_GROUP == custom.ENTRY_POINT_GROUP


def test_plugins_declared(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dist = tmp_path / "sb_other-1.0.dist-info"
    dist.mkdir()
    (dist / "entry_points.txt").write_text("[console_scripts]\nx = y:z\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert cli._plugins_declared("sandbash.test-group-nobody-declares") is False
    (dist / "entry_points.txt").write_text("[sandbash.test-group]\nx = y:z\n")
    assert cli._plugins_declared("sandbash.test-group") is True
