"""Host mode as a whole: the opt-in, path grants at their real paths, ALLOWED_PATHS, rshell's
grant warnings and namespaced command grants."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sandbash import Bash
from sandbash.host import HostAccess
from sandbash.policy import Policy, PolicyError

HOST_ONLY = ["ps", "ss", "ip", "free", "systemctl", "sudo", "ping"]


@pytest.mark.parametrize("name", HOST_ONLY)
def test_host_commands_do_not_exist_without_the_opt_in(name: str) -> None:
    r = Bash().exec(f"{name} --help; echo $?; command -v {name} || echo none; ls /usr/bin/{name} 2>&1")
    lines = r.stdout.splitlines()
    assert lines[0] == "127" and lines[1] == "none"
    assert f"{name}: command not found" in r.stderr


def test_without_host_uname_stays_virtual() -> None:
    assert Bash().exec("uname -n").stdout == "sandbox\n"
    assert Bash(host=HostAccess()).exec("uname -n").stdout == os.uname().nodename + "\n"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "app.log").write_text("ok\nERROR disk full\n")
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "conf").write_text("a=1\n")
    (tmp_path / "secret").write_text("no\n")
    return tmp_path


def test_grants_are_mounted_at_their_real_paths(tree: Path) -> None:
    b = Bash(host=HostAccess(paths=(f"{tree}/logs:ro", f"{tree}/app:rw")))
    r = b.exec(
        f"grep -c ERROR {tree}/logs/app.log; cat {tree}/app/conf; cat {tree}/secret; echo $ALLOWED_PATHS"
    )
    assert r.stdout == f"1\na=1\n{tree}/logs:{tree}/app\n"
    assert f"{tree}/secret: No such file or directory" in r.stderr  # not granted: not there at all


@pytest.mark.parametrize(
    "mode,grant,wrote",
    [
        (None, "ro", False),
        (None, "rw", False),
        ("read-only", "rw", False),
        ("remediation", "ro", False),
        ("remediation", "rw", True),
    ],
)
def test_host_writes_need_rw_and_remediation(tree: Path, mode: str | None, grant: str, wrote: bool) -> None:
    b = Bash(host=HostAccess(paths=(f"{tree}/app:{grant}",)), policy=Policy(mode=mode))
    r = b.exec(f"echo b=2 >> {tree}/app/conf")
    assert (r.exit_code == 0) == wrote, r.stderr
    assert (tree / "app" / "conf").read_text() == ("a=1\nb=2\n" if wrote else "a=1\n")
    if not wrote:
        assert "Permission denied" in r.stderr or "Read-only file system" in r.stderr


def test_grants_join_the_policy_grants(tree: Path) -> None:
    b = Bash(
        host=HostAccess(paths=(f"{tree}/logs:ro",)), policy=Policy(paths=["/tmp:rw"], mode="remediation")
    )
    assert b.policy is not None and b.policy.path_specs() == ["/tmp:rw", f"{tree}/logs:ro"]
    r = b.exec(f"cp {tree}/logs/app.log /tmp/x && wc -l < /tmp/x; ls /home")
    assert r.stdout == "2\n" and "Permission denied" in r.stderr


def test_grant_warnings_as_rshell_gives_them(tree: Path) -> None:
    (tree / "odd:ro").mkdir()
    b = Bash(host=HostAccess(paths=(f"{tree}/odd:ro", f"{tree}/missing", f"{tree}/secret:rw")))
    assert b.host_warnings == [
        f'AllowedPaths: "{tree}/odd:ro" exists, but its ":ro" suffix is read as the access mode: '
        f'granting "{tree}/odd" read-only',
        f'AllowedPaths: skipping "{tree}/odd": no such file or directory',
        f'AllowedPaths: skipping "{tree}/missing": no such file or directory',
        f'AllowedPaths: skipping "{tree}/secret": not a directory',
    ]
    assert b.exec("echo $ALLOWED_PATHS").stdout == "\n"


@pytest.mark.parametrize("spec", ["relative/path", f"/x{chr(0)}y:ro"])
def test_malformed_grants_are_configuration_errors(spec: str) -> None:
    with pytest.raises(PolicyError):
        HostAccess(paths=(spec,))


@pytest.mark.parametrize(
    "entry,expected",
    [
        ("rshell:cat", "cat"),
        ("cat", "cat"),
        (" rshell:grep ", "grep"),
        (":", ":"),
        ("rshell::", ":"),
    ],
)
def test_namespaced_command_grants(entry: str, expected: str) -> None:
    p = Policy(commands=[entry])
    assert p.allow == frozenset({expected})
    assert Bash(policy=Policy(commands=[entry, "rshell:echo"])).exec(f"echo hi | {expected} x").exit_code in (
        0,
        1,
    )


@pytest.mark.parametrize(
    "entry,message",
    [
        ("foo:cat", 'commands: "foo:cat" has unknown namespace "foo" (only "rshell" is supported)'),
        ("rshell:", 'commands: "rshell:": expected "rshell:<command>"'),
        ("rshell:a:b", 'commands: "rshell:a:b": expected "rshell:<command>"'),
        ("a:", 'commands: "a:" has unknown namespace "a" (only "rshell" is supported)'),
    ],
)
def test_bad_namespaces_are_configuration_errors(entry: str, message: str) -> None:
    with pytest.raises(PolicyError) as e:
        Policy(commands=[entry])
    assert str(e.value) == message
    with pytest.raises(PolicyError):
        Policy.from_toml(f'commands = ["{entry}"]')
    with pytest.raises(PolicyError):
        Policy(deny=[entry])


def test_namespaced_grant_refuses_what_is_not_granted() -> None:
    r = Bash(policy=Policy(commands=["rshell:echo"])).exec("cat /etc/hostname")
    assert r.exit_code == 126 and "policy denied this command" in r.stderr


def test_bash_check_reports_the_host_warnings(tree: Path) -> None:
    b = Bash(host=HostAccess(paths=(f"{tree}/missing:ro",)))
    assert b.check("true").warnings == [f'AllowedPaths: skipping "{tree}/missing": no such file or directory']


def test_a_ready_vfs_receives_the_grants_in_its_mount_table(tree: Path) -> None:
    from sandbash.vfs import MemoryFs, Vfs

    b = Bash(fs=Vfs(MemoryFs()), host=HostAccess(paths=(f"{tree}/logs:ro",)))
    assert b.exec(f"grep -c ERROR {tree}/logs/app.log; echo x > {tree}/logs/new").stdout == "1\n"
    assert not (tree / "logs" / "new").exists()


def test_sessions_and_async_runs_have_the_host_commands() -> None:
    import asyncio

    from .conftest import fixture_host

    b = Bash(host=fixture_host())
    s = b.session()
    assert s.exec("cd /tmp; ps -p 1 -o pid,comm").stdout == "PID COMMAND\n  1 init\n"
    assert (
        s.exec("pwd; free | sed -n 2p").stdout
        == "/tmp\nMem:         8000000     3000000     2000000       50000     3000000     5000000\n"
    )
    r = asyncio.run(b.aexec("ss -s | head -1"))
    assert r.stdout == "Total: 7\n"
