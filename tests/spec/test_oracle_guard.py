"""The oracle sandbox (tests/oracle.py) holds: a case run through real bash, as record.py and
test_real_bash run it, changes nothing on the host outside its own directory.

Every probe is a file in a scratch directory this test creates (never /dev, /etc or another
shared path): the script tries to write, overwrite and remove probes outside its directory, and
the host's copies must be exactly as they were."""

from __future__ import annotations

import ast
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from spec_loader import Case, run_real_bash

import oracle


@pytest.fixture(autouse=True)
def _sandboxed(request: pytest.FixtureRequest) -> None:
    """These tests check the sandbox itself: with the explicit opt-out they would prove nothing."""
    if oracle.unsandboxed() and request.node.name != "test_no_sandbox_means_no_run_unless_opted_out":
        pytest.skip(f"{oracle.UNSANDBOXED_ENV} is set: the oracles run unsandboxed")


@pytest.fixture
def scratch() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="oracle-guard") as d:
        yield Path(d)


def _case(script: str) -> Case:
    return Case("oracle_guard", "probe", 1, script)


def test_writes_outside_the_case_directory_leave_the_host_unchanged(
    scratch: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the case's own directory is made inside the scratch directory, so `..` is the scratch too
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    keep = scratch / "keep"
    keep.write_text("host\n")
    # a directory outside the host's temporary directory: under the sandbox's read-only root
    outside_tmp = Path(tempfile.mkdtemp(prefix="oracle-guard", dir="/var/tmp"))
    try:
        (outside_tmp / "keep").write_text("host\n")
        script = (
            f"[ -e {keep} ] && echo keep-visible || echo keep-hidden\n"
            f": > probe && echo own-dir-ok\n"
            f"echo x > ../escaped && echo wrote-parent\n"
            f"echo x > {scratch}/abs && echo wrote-abs\n"
            f"mkdir -p {scratch}/made && : > {scratch}/made/p\n"
            f"echo sandbox > {keep}; rm -f {keep}\n"
            f"echo x 2>/dev/null > {outside_tmp}/new || echo refused-new\n"
            f"rm -f {outside_tmp}/keep 2>/dev/null || echo refused-rm\n"
        )
        got = run_real_bash(_case(script))
        # the scratch directory (around the case's) is the sandbox's private /tmp: writes there
        # succeed in a tmpfs that vanishes with the script; the rest of the root is read-only
        assert got.stdout.split() == [
            "keep-hidden",
            "own-dir-ok",
            "wrote-parent",
            "wrote-abs",
            "refused-new",
            "refused-rm",
        ], got
        assert sorted(p.name for p in scratch.iterdir()) == ["keep"]
        assert keep.read_text() == "host\n"
        assert sorted(p.name for p in outside_tmp.iterdir()) == ["keep"]
        assert (outside_tmp / "keep").read_text() == "host\n"
    finally:
        for p in outside_tmp.iterdir():
            p.unlink()
        outside_tmp.rmdir()


def test_the_case_directory_is_writable_and_is_home() -> None:
    got = run_real_bash(
        _case('mkdir -p a/b && echo hi > a/b/f && cat a/b/f && [ "$HOME" = "$PWD" ] && echo home')
    )
    assert (got.stdout, got.status) == ("hi\nhome\n", 0)


def test_a_cwd_outside_tmp_is_entered_read_only() -> None:
    """A caller's cwd of "/" (tests/unit/test_sandbox_commands.py) or any other directory outside
    the temporary directory is not made writable (probed in a scratch directory of /var/tmp)."""
    cmd, _ = oracle.oracle_command(["true"], cwd="/")
    assert "--bind" not in cmd and cmd[cmd.index("--chdir") + 1] == "/"
    outside_tmp = tempfile.mkdtemp(prefix="oracle-guard", dir="/var/tmp")
    try:
        p = oracle.run(
            ["/bin/sh", "-c", "echo x > probe || echo refused"], cwd=outside_tmp, capture_output=True
        )
        assert p.stdout == b"refused\n" and os.listdir(outside_tmp) == []
    finally:
        shutil.rmtree(outside_tmp)


def test_only_temporary_directories_are_bound_writable() -> None:
    for path in ("/", "/etc", "/var", tempfile.gettempdir()):
        with pytest.raises(ValueError, match="outside the temporary directory"):
            oracle.oracle_command(["true"], writable=[path])


def test_cases_reach_servers_on_loopback() -> None:
    """The sandbox keeps the host's network namespace: cases may talk to 127.0.0.1."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]

        def answer() -> None:
            conn, _ = server.accept()
            with conn:
                conn.sendall(conn.recv(100).upper())

        t = threading.Thread(target=answer, daemon=True)
        t.start()
        script = f"exec 3<>/dev/tcp/127.0.0.1/{port}; echo ping >&3; read -r line <&3; echo $line"
        got = run_real_bash(_case(script))
        t.join(10)
    assert (got.stdout, got.status) == ("PING\n", 0)


def test_a_program_named_apart_from_argv0_keeps_its_argv0() -> None:
    """subprocess's executable= (run /bin/bash as `bash`): when PATH would not find that file,
    the sandbox execs it through a shim, so $0 and the messages still say `bash`."""
    p = oracle.run(
        ["bash", "-c", 'echo "$0"; nosuchcommand'],
        executable="/bin/bash",
        env={"PATH": "/nonexistent", "LC_ALL": "C"},
        capture_output=True,
        text=True,
    )
    assert p.stdout == "bash\n" and p.stderr.startswith("bash: line 1: nosuchcommand"), p


def test_no_sandbox_means_no_run_unless_opted_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(oracle.UNSANDBOXED_ENV, raising=False)
    monkeypatch.setattr(oracle, "sandbox_problem", lambda: "bwrap (bubblewrap) is not installed")

    def no_process(*args: object, **kwargs: object) -> None:
        raise AssertionError("an oracle ran without its sandbox")

    monkeypatch.setattr(subprocess, "run", no_process)
    with pytest.raises(oracle.OracleUnavailable, match=f"not installed.*{oracle.UNSANDBOXED_ENV}=1"):
        oracle.run(["bash", "-c", "echo"], executable="/bin/bash")
    with pytest.raises(oracle.OracleUnavailable):
        run_real_bash(_case("echo"))
    monkeypatch.setenv(oracle.UNSANDBOXED_ENV, "1")
    assert oracle.oracle_command(["bash", "-c", "echo"], "/tmp", "/bin/bash") == (
        ["bash", "-c", "echo"],
        "/bin/bash",
    )


def test_the_script_has_no_admin_capabilities() -> None:
    """Of root's capabilities only the file-permission ones: no CAP_SYS_ADMIN to remount the
    read-only root."""
    got = run_real_bash(_case("sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status\n"))
    effective = int(got.stdout.split()[0], 16)
    assert effective & ~sum(1 << n for n in _FILE_CAPS) == 0, hex(effective)


def test_a_process_still_writing_when_bash_exits_is_heard() -> None:
    """The sandbox shares the host's pid namespace: one of its own ends with bash and kills what
    is left in it, so a process substitution's output written after bash exits was lost (the spec
    case cmdsub/procsub-output-tee failed most of the time)."""
    got = run_real_bash(_case("tee >(sleep 0.3; sed 's/^/copy: /') <<<data >/dev/null\n"))
    assert got.stdout == "copy: data\n", got


# CAP_CHOWN, DAC_OVERRIDE, DAC_READ_SEARCH, FOWNER, FSETID, SETGID, SETUID (linux/capability.h)
_FILE_CAPS = (0, 1, 2, 3, 4, 6, 7)


# Programs the tests use as oracles: a call that runs one of them with arguments taken from a table
# (not a fixed literal command such as a version probe) must go through oracle.run.
_ORACLE_PROGRAMS = frozenset(
    {"bash", "sh", "dash", "gawk", "awk", "mawk", "sed", "grep", "egrep", "fgrep", "jq", "tar", "cpio"}
    | {"gzip", "zip", "unzip", "env", "kill", "split", "rg", "getopt", "cat", "cp", "mv", "rm", "ls"}
    | {"find", "xargs", "sort", "date", "bc", "expr", "sqlite3", "lua5.4", "node"}
)
_SUBPROCESS_CALLS = frozenset({"run", "Popen", "call", "check_call", "check_output"})


def _direct_oracle_calls(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    found = []
    for node in ast.walk(ast.parse(text)):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _SUBPROCESS_CALLS
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "subprocess"
            and node.args
        ):
            continue
        argv = node.args[0]
        keywords = {k.arg: k.value for k in node.keywords}
        names = {n.id for n in ast.walk(argv) if isinstance(n, ast.Name)}
        if "SANDBASH" in names:  # runs the sandbash CLI itself (a fixed pipeline around it)
            continue
        fixed = isinstance(argv, ast.List) and all(isinstance(e, ast.Constant) for e in argv.elts)
        if any(
            "# not an oracle" in line for line in lines[node.lineno - 1 : node.end_lineno]
        ):  # e.g. unpacking a suite: setup, said why
            continue
        program: object = None
        executable = keywords.get("executable")
        if isinstance(executable, ast.Constant):
            program = executable.value
        elif isinstance(argv, ast.List) and argv.elts and isinstance(argv.elts[0], ast.Constant):
            program = argv.elts[0].value
        elif "shell" in keywords:
            program = "sh"
        if isinstance(program, str) and os.path.basename(program) in _ORACLE_PROGRAMS and not fixed:
            found.append(f"{path}:{node.lineno}: subprocess.{node.func.attr}({ast.unparse(argv)[:60]} ...)")
    return found


def test_tests_run_real_programs_through_the_oracle() -> None:
    """No test runs bash, gawk, sed... on a table's script or arguments with subprocess directly
    (a fixed literal command, like a `--version` probe, may). Box mode's tests start their own
    bubblewrap sandbox and are not scanned. A call whose program is in a variable is not seen."""
    tests = Path(__file__).parent.parent
    found = [
        hit
        for path in sorted(tests.rglob("*.py"))
        if "box" not in path.relative_to(tests).parts[:1] and path.name != "oracle.py"
        for hit in _direct_oracle_calls(path)
    ]
    assert found == []


def test_the_scan_sees_direct_runs(scratch: Path) -> None:
    sample = scratch / "sample.py"
    sample.write_text(
        "import subprocess\n"
        'subprocess.run(["bash", "-c", script])\n'
        'subprocess.run(["bash", "-c", script], executable="/bin/bash")\n'
        'subprocess.run(f"gawk {args}", shell=True)\n'
        'subprocess.run(["/bin/bash", "-c", "echo $BASH_VERSION"])\n'
        'subprocess.run([sys.executable, "-c", code])\n'
        'subprocess.run(["tar", "-x", "-C", d], input=t)  # not an oracle: unpacking\n'
    )
    assert [hit.split(":")[1] for hit in _direct_oracle_calls(sample)] == ["2", "3", "4"]
