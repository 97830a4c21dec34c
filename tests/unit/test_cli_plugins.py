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


def test_plugins_declared_edges(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the quick look cannot read answers True (importlib.metadata decides); what it can
    read and finds nothing in is skipped."""
    group = "sandbash.test-group-nobody-declares"
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "file.dist-info").write_text("not a directory")  # (no entry_points.txt inside)
    (empty / "noentry.dist-info").mkdir()
    (empty / "dir.egg-info" / "entry_points.txt").mkdir(parents=True)  # a directory, unreadable
    monkeypatch.setattr("sys.path", [str(empty), str(tmp_path / "missing")])
    assert cli._plugins_declared(group) is False
    zipped = tmp_path / "lib.zip"
    zipped.write_bytes(b"PK")
    monkeypatch.setattr("sys.path", [str(empty), str(zipped)])
    assert cli._plugins_declared(group) is True
    egg = tmp_path / "thing.egg"
    egg.mkdir()
    monkeypatch.setattr("sys.path", [str(egg)])
    assert cli._plugins_declared(group) is True
    cased = tmp_path / "cased"
    (cased / "Upper-1.0.DIST-INFO").mkdir(parents=True)
    (cased / "Upper-1.0.DIST-INFO" / "entry_points.txt").write_bytes(b"[x]\n[" + group.encode() + b"]\n")
    monkeypatch.setattr("sys.path", [str(cased)])
    assert cli._plugins_declared(group) is True


@pytest.mark.parametrize("spelling", ["{d}", "{d}/"])
def test_plugins_declared_among_other_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spelling: str
) -> None:
    """A directory is skipped when no name in it ends in .dist-info/.egg-info (one test over the whole
    listing); otherwise each such name is looked at, whatever else the directory holds: names that only
    contain the suffix, distributions without entry_points.txt, a path entry written with a trailing /."""
    group = "sandbash.test-group-among"
    plain = tmp_path / "plain"
    plain.mkdir()
    for name in ("a.py", "x.dist-info.bak", "y.egg-infox", "dist-info", "z.DIST-INFOx"):
        (plain / name).mkdir()
    (plain / "x.dist-info.bak" / "entry_points.txt").write_text(f"[{group}]\n")  # not a distribution
    site = tmp_path / "site"
    site.mkdir()
    for i in range(30):
        (site / f"mod{i}.py").write_text("")
        (site / f"dist{i}-1.0.dist-info").mkdir()  # no entry_points.txt
    (site / "late-1.0.Egg-Info").mkdir()
    (site / "late-1.0.Egg-Info" / "entry_points.txt").write_text(f"[console_scripts]\n[{group}]\nx = y:z\n")
    monkeypatch.setattr("sys.path", [spelling.format(d=plain)])
    assert cli._plugins_declared(group) is False
    monkeypatch.setattr("sys.path", [spelling.format(d=plain), spelling.format(d=site)])
    assert cli._plugins_declared(group) is True
    assert cli._plugins_declared("sandbash.test-group-nobody-declares") is False


@pytest.mark.parametrize("declared", [True, False])
def test_the_cli_builds_through_new_bash_only_when_plugins_are_declared(
    declared: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """new_bash (which reads the plugins with importlib.metadata) is imported and used only when the
    quick look finds a declaration; otherwise the CLI builds a plain Bash."""
    from sandbash import Bash
    from sandbash.agent import sandbox

    made: list[str] = []

    def recording_new_bash(**kw: object) -> Bash:
        made.append("new_bash")
        return Bash(**kw)  # type: ignore[arg-type]

    monkeypatch.setattr(sandbox, "new_bash", recording_new_bash)
    monkeypatch.setattr(cli, "_plugins_declared", lambda: declared)
    bash = cli._build(cli._parse_ours(["--cwd", "/tmp"]))
    assert made == (["new_bash"] if declared else [])
    assert bash.exec("pwd").stdout == "/tmp\n"
