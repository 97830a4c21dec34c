"""The CLI as a new user meets it, through the installed `sandbash` entry point in a real subprocess:
--root/--mount/--cwd, --limit, a closed stdout, signals, --version/--help, --check, script file errors."""

from __future__ import annotations

import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest

import oracle

SANDBASH = str(pathlib.Path(sys.executable).parent / "sandbash")
pytestmark = pytest.mark.skipif(
    not os.path.exists(SANDBASH), reason="the sandbash entry point is not installed"
)


def run(args: list[str], stdin: bytes = b"", cwd: str | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([SANDBASH, *args], input=stdin, capture_output=True, timeout=120, cwd=cwd)


def test_root_starts_in_the_handed_over_directory(tmp_path: pathlib.Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "f.txt").write_text("abc\n")
    # the README's example, as written
    p = run(["--root", "./project", "-c", "ls; sed -i s/a/b/ f.txt; cat f.txt; pwd"], cwd=str(tmp_path))
    assert p.returncode == 0, p.stderr
    assert p.stderr == b""
    lines = p.stdout.decode().splitlines()
    assert "f.txt" in lines
    assert lines[-2:] == ["bbc", "/"]
    assert (project / "f.txt").read_text() == "abc\n"  # the host copy is never written
    # an explicit --cwd still wins
    p = run(["--root", str(project), "--cwd", "/tmp", "-c", "pwd"])
    assert p.stdout == b"/tmp\n"


@pytest.mark.parametrize("mode", ["ro", "rw", "cow"])
def test_mount_with_cwd(tmp_path: pathlib.Path, mode: str) -> None:
    (tmp_path / "app.log").write_text("ERROR a\nok\nERROR b\n")
    p = run(["--mount", f"{tmp_path}:/data:{mode}", "--cwd", "/data", "-c", "pwd; grep -c ERROR app.log"])
    assert (p.stdout, p.stderr, p.returncode) == (b"/data\n2\n", b"", 0)


@pytest.mark.parametrize("point", ["/home/user/proj", "/tmp/in"])
def test_a_mount_below_home_or_tmp_leaves_them_writable(tmp_path: pathlib.Path, point: str) -> None:
    (tmp_path / "a.txt").write_text("host\n")
    script = f"cat {point}/a.txt; echo x > ~/f && echo y > /tmp/g && cat ~/f /tmp/g"
    p = run(["--mount", f"{tmp_path}:{point}:ro", "-c", script])
    assert (p.stdout, p.stderr, p.returncode) == (b"host\nx\ny\n", b"", 0)


def test_cwd_that_cannot_exist_is_a_one_line_error(tmp_path: pathlib.Path) -> None:
    p = run(["--mount", f"{tmp_path}:/data:ro", "--cwd", "/data/missing", "-c", "pwd"])
    assert p.returncode == 2
    assert p.stdout == b""
    assert p.stderr.count(b"\n") == 1 and b"/data/missing" in p.stderr


@pytest.mark.parametrize(
    ("spec", "script", "limit"),
    [
        ("max_output_size=1KB", "seq 1000", b"max_output_size (1024)"),
        ("max_output_size=1_000", "seq 1000", b"max_output_size (1000)"),
        ("max_command_count=50", "for i in $(seq 100); do :; done", b"max_command_count (50)"),
        ("timeout=300ms", "sleep 10", b"timeout (0.3s)"),
        ("timeout=1", "sleep 10", b"timeout (1s)"),
    ],
)
def test_limit_sets_one_knob(spec: str, script: str, limit: bytes) -> None:
    p = run(["--limit", spec, "-c", script])
    assert p.returncode != 0
    assert p.stderr.startswith(b"bash: sandbash limit exceeded: " + limit), p.stderr


def test_limit_is_repeatable_and_raises_a_knob() -> None:
    p = run(
        [
            "--limits",
            "hardened",
            "--limit",
            "max_loop_iterations=5000",
            "--limit",
            "max_command_count=20000",
            "-c",
            "n=0; while ((n < 3000)); do n=$((n+1)); done; echo $n",
        ]
    )
    assert (p.stdout, p.returncode) == (b"3000\n", 0), p.stderr


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("foo=1", [b"unknown limit 'foo'", b"max_command_count"]),
        ("timeout", [b"expected NAME=VALUE"]),
        ("=5", [b"expected NAME=VALUE"]),
        ("timeout=2x", [b"invalid value '2x' for timeout"]),
        ("max_output_size=lots", [b"invalid value 'lots'"]),
        ("max_output_size=1.5", [b"invalid value '1.5'"]),
        ("max_command_count=10MB", [b"invalid value '10MB'"]),
        ("max_command_count=", [b"invalid value ''"]),
    ],
)
def test_bad_limit_is_one_line_with_status_2(spec: str, words: list[bytes]) -> None:
    p = run(["--limit", spec, "-c", "echo ran"])
    assert p.returncode == 2
    assert p.stdout == b""
    assert p.stderr.startswith(b"sandbash: --limit ") and p.stderr.count(b"\n") == 1, p.stderr
    for w in words:
        assert w in p.stderr


@pytest.mark.parametrize(
    "script",
    [
        "seq 1000000",
        "seq 1000000; echo after",
        "yes",
        "yes | cat",
        "while :; do echo y; done",
        "seq 200000 | sort -n",
    ],
)
def test_closed_stdout_ends_quietly(script: str) -> None:
    proc = subprocess.run(
        f"{SANDBASH} -c '{script}' | head -1; echo \"${{PIPESTATUS[0]}}\" >&2",
        shell=True,
        executable="/bin/bash",
        capture_output=True,
        timeout=120,
    )
    assert proc.stderr == b"141\n"
    assert len(proc.stdout.splitlines()) == 1


def test_closed_stdout_lets_the_shell_go_on_like_bash() -> None:
    # each external command dies of SIGPIPE; the shell itself runs on (as bash's does)
    proc = subprocess.run(
        f"{SANDBASH} -c 'seq 100000; seq 100000; echo done >&2; exit 3' | head -1",
        shell=True,
        executable="/bin/bash",
        capture_output=True,
        timeout=120,
    )
    assert proc.stdout == b"1\n"
    assert proc.stderr == b"done\n"


@pytest.mark.parametrize(("sig", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
@pytest.mark.parametrize(
    "script",
    [
        "echo start; while :; do :; done",
        "echo start; sleep 100",
        "echo start; cat",  # blocked reading the CLI's stdin
    ],
)
def test_signal_stops_the_run_quietly(sig: int, status: int, script: str) -> None:
    r, w = os.pipe()
    proc = subprocess.Popen(
        [SANDBASH, "--limits", "generous", "-c", script],
        stdin=r,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    os.close(r)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == b"start\n"
        time.sleep(0.3)
        os.kill(proc.pid, sig)
        out, err = proc.communicate(timeout=60)
    finally:
        os.close(w)
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == status
    assert err == b"" and out == b""


def test_version_and_help() -> None:
    p = run(["--version"])
    assert p.returncode == 0 and p.stdout.startswith(b"sandbash ")
    p = run(["--help"])
    assert p.returncode == 0
    text = p.stdout.decode()
    for needle in ("sandbash mcp", "examples:", "--limit NAME=VALUE", "--root DIR", "[commands]", "--check"):
        assert needle in text
    # every subcommand the CLI dispatches on is listed (serve and install-alias once were not)
    import re

    from sandbash.cli import app

    source = pathlib.Path(app.__file__).read_text()
    subcommands = re.findall(r'argv\[:1\] == \["([a-z-]+)"\]', source)
    assert {"mcp", "serve", "install-alias"} <= set(subcommands)
    listed = text.split("subcommands:", 1)[1].split("examples:", 1)[0]
    for name in subcommands:
        assert f"  sandbash {name} " in listed, name


def test_check_without_a_policy_says_so(tmp_path: pathlib.Path) -> None:
    p = run(["--check", "-c", "rm -rf /"])
    assert p.returncode == 0
    assert b"no policy loaded" in p.stderr
    policy = tmp_path / "policy.toml"
    policy.write_text(
        'mode = "read-only"\npaths = ["/data:ro"]\n[commands]\nallow = ["cat", "ls"]\ndeny = ["rm"]\n'
    )
    p = run(["--policy", str(policy), "--check", "-c", "rm -rf /data"])
    assert p.returncode == 1
    assert b"no policy loaded" not in p.stderr
    p = run(["--policy", str(policy), "-c", "ls /; rm x"])
    assert p.returncode == 126 and b"rm" in p.stderr


def test_bad_policy_file_is_one_line(tmp_path: pathlib.Path) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text('comands = ["cat"]\n')
    p = run(["--policy", str(policy), "-c", "echo ran"])
    assert p.returncode == 2 and p.stdout == b""
    assert p.stderr.startswith(b"sandbash: --policy: ") and p.stderr.count(b"\n") == 1


def test_a_setting_file_that_cannot_be_read_is_named_as_the_tools_do(tmp_path: pathlib.Path) -> None:
    missing, directory = str(tmp_path / "missing.toml"), str(tmp_path)
    for args, prefix, name, why in (
        (
            ["--policy", missing, "-c", "echo ran"],
            b"sandbash: --policy: ",
            missing,
            b"No such file or directory",
        ),
        (["--policy", directory, "-c", "echo ran"], b"sandbash: --policy: ", directory, b"Is a directory"),
        (
            ["--check", "--remote-policy", missing, "-c", "echo"],
            b"sandbash: --remote-policy: ",
            missing,
            b"No such file or directory",
        ),
        (["mcp", "--config", missing], b"sandbash mcp: ", missing, b"No such file or directory"),
    ):
        p = run(args)
        assert (p.stdout, p.stderr, p.returncode) == (b"", prefix + name.encode() + b": " + why + b"\n", 2)


def test_a_relative_cwd_counts_from_the_root() -> None:
    p = run(["--cwd", "rel/./x/", "-c", 'echo "$PWD"; ls -d .'])
    assert (p.stdout, p.stderr, p.returncode) == (b"/rel/x\n.\n", b"", 0)


def test_syntax_error_in_a_script_file_names_the_file(tmp_path: pathlib.Path) -> None:
    script = tmp_path / "script.sh"
    script.write_text("echo one\n\n\n\n\n\n\nif then\n")
    p = run(["script.sh"], cwd=str(tmp_path))
    expected = oracle.run(["/bin/bash", "script.sh"], cwd=str(tmp_path), capture_output=True)
    assert p.stdout == b"one\n"
    assert p.stderr.startswith(b"script.sh: line 8: syntax error near unexpected token `then'")
    assert (p.stdout, p.stderr, p.returncode) == (expected.stdout, expected.stderr, expected.returncode)


@pytest.mark.parametrize("args", [["-s"], []])
def test_syntax_error_in_a_script_on_stdin(args: list[str]) -> None:
    p = run(args, stdin=b"echo a\nif then\n")
    expected = oracle.run(
        ["bash", *args], executable="/bin/bash", input=b"echo a\nif then\n", capture_output=True
    )
    assert (p.stdout, p.stderr, p.returncode) == (expected.stdout, expected.stderr, expected.returncode)


def test_syntax_errors_inside_the_sandbox_name_their_source() -> None:
    script = (
        "printf 'echo a\\nif then\\n' > bad.sh\n"
        "bash bad.sh; echo rc=$?\n"
        "source bad.sh; echo rc=$?\n"
        ". ./bad.sh; echo rc=$?\n"
        "bash -c 'if then'; echo rc=$?\n"
        "bash -s <<< 'fi'; echo rc=$?\n"
    )
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        expected = oracle.run(["bash", "-c", script], executable="/bin/bash", cwd=d, capture_output=True)
    p = run(["--cwd", "/tmp", "-c", script])
    assert (p.stdout, p.stderr) == (expected.stdout, expected.stderr)


def test_policy_warnings_are_printed_once_at_start_up(tmp_path: pathlib.Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    policy = tmp_path / "policy.toml"
    policy.write_text('paths = ["/out:rw"]\n')
    p = run(["--policy", str(policy), "--mount", f"{out}:/out:rw", "-c", "echo x > /out/f"])
    lines = p.stderr.decode().splitlines()
    assert lines[0].startswith("sandbash: warning: policy: grant /out:rw allows no writes to host mounts")
    assert "[policy: mode.read-only]" in lines[1] and len(lines) == 2
    policy.write_text('mode = "remediation"\npaths = ["/out:rw"]\n')
    p = run(["--policy", str(policy), "--mount", f"{out}:/out:rw", "-c", "echo x > /out/f"])
    assert (p.stderr, p.returncode) == (b"", 0) and (out / "f").read_text() == "x\n"
    p = run(["--policy", str(policy.with_name("none.toml")), "-c", "true"])
    assert p.returncode == 2 and p.stderr.startswith(b"sandbash: --policy: ") and p.stderr.count(b"\n") == 1
