"""`sandbash --host --host-path ...`, `--check --remote-policy FILE`, and the MCP config's [host]."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbash.cli.app import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_host_paths_and_warnings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "log").mkdir()
    (tmp_path / "log" / "a.log").write_text("x\n")
    status, out, err = run(
        capsys,
        "--host-path",
        f"{tmp_path}/log:ro",
        "--host-path",
        f"{tmp_path}/gone",
        "-c",
        f"cat {tmp_path}/log/a.log; echo $ALLOWED_PATHS; command -v ps",
    )
    assert status == 0
    assert out == f"x\n{tmp_path}/log\n/usr/bin/ps\n"
    assert err == f'sandbash: warning: AllowedPaths: skipping "{tmp_path}/gone": no such file or directory\n'


def test_without_host_no_host_commands(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "-c", "ps")
    assert status == 127 and "ps: command not found" in err
    status, out, _ = run(capsys, "--host", "-c", "ps -p 1 -o pid | tail -1")
    assert (status, out) == (0, "  1\n")


def test_bad_host_path(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "--host-path", "relative:ro", "-c", "true")
    assert status == 2 and err.startswith("sandbash: --host-path: path grant 'relative'")


REMOTE = """commands = ["rshell:cat", "rshell:systemctl"]
paths = ["/var/log:ro"]
services = ["nginx.service:status+restart"]
dir = "/var/log"
env = { LOG = "/var/log/app.log" }
timeout = 2
"""


@pytest.mark.parametrize(
    "script,status,lines",
    [
        ("systemctl status nginx", 0, ["status: allowed"]),
        (
            "cat $LOG",
            3,
            [
                "1:1: unknown: requires_execution: cat: read /var/log/app.log is allowed as written; the "
                "remote host's symbolic links are known only there",
                "status: indeterminate",
            ],
        ),
        (
            "systemctl restart nginx",
            1,
            [
                "1:1: deny: remediation_required: systemctl: restart nginx.service: policy "
                "denied [policy: services.remediation] ('restart' needs remediation mode)",
                "status: denied",
            ],
        ),
        (
            "cat /etc/shadow",
            1,
            [
                "1:1: deny: path_not_allowed: cat: read /etc/shadow: policy denied "
                "[policy: paths.no-grant] (no grant covers /etc/shadow)",
                "status: denied",
            ],
        ),
    ],
)
def test_check_remote_policy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], script: str, status: int, lines: list[str]
) -> None:
    f = tmp_path / "remote.toml"
    f.write_text(REMOTE)
    got, out, err = run(capsys, "--check", "--remote-policy", str(f), "-c", script)
    assert (got, out.splitlines(), err) == (status, lines, "")


def test_remote_policy_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "remote.toml"
    f.write_text("mode = 3\n")
    assert (
        run(capsys, "--check", "--remote-policy", str(f), "-c", "true")[2]
        == "sandbash: --remote-policy: mode: expected a string\n"
    )
    assert run(capsys, "--remote-policy", str(f), "-c", "true")[0] == 2
    got, _, err = run(capsys, "--check", "--remote-policy", str(tmp_path / "none.toml"), "-c", "true")
    assert got == 2 and err.startswith("sandbash: --remote-policy: ")


def test_mcp_config_host_table(tmp_path: Path) -> None:
    from sandbash.agent.mcp_server import ServerConfig, build_tool

    (tmp_path / "log").mkdir()
    cfg = ServerConfig.from_toml(f'[host]\npaths = ["{tmp_path}/log:ro"]\n')
    tool = build_tool(cfg)
    assert tool.bash.host is not None and tool.bash.host.paths == (f"{tmp_path}/log:ro",)
    assert tool.bash.exec("ps -p 1 -o pid | tail -1").stdout == "  1\n"
    assert build_tool(ServerConfig.from_toml("")).bash.host is None
    with pytest.raises(ValueError):
        ServerConfig.from_toml("[host]\nbogus = 1\n")
