"""The alias's forms, its refusal, and one command per invocation through the shell service."""

from __future__ import annotations

import os

import pytest

from sandbash.box.alias import USAGE, encode_request, parse_form

from .conftest import Box

FORMS = [
    (["-c", "echo hi"], ("command", "echo hi")),
    (["-lc", "echo hi"], ("command", "echo hi")),
    (["-c", "-l", "echo hi"], ("command", "echo hi")),
    (["-l", "-c", "echo hi"], ("command", "echo hi")),
    (["script.sh"], ("script", "script.sh")),
    (["-c", ""], ("command", "")),
]
REFUSED = [
    [],
    ["-c"],
    ["-l"],
    ["-x", "echo"],
    ["-lc"],
    ["-c", "echo", "arg0"],
    ["-cl", "echo"],
    ["--login", "-c", "x"],
    ["-i"],
    ["-s"],
    ["a.sh", "arg"],
    ["-c", "-l"],
    ["-l", "-c", "x", "y"],
    ["-e", "-c", "x"],
    [""],
]


@pytest.mark.parametrize(("args", "request_"), FORMS)
def test_forms_parse(args: list[str], request_: tuple[str, str]) -> None:
    assert parse_form(args) == request_


@pytest.mark.parametrize(
    "text",
    [
        "",
        "plain",
        'q"uote',
        "back\\slash",
        "nl\n\ttab\x01\x1f",
        "é ✓ 𝄞",
        b"raw\xff\x80".decode("utf-8", "surrogateescape"),
        "\\u0041",
    ],
)
def test_request_encoding_round_trips(text: str) -> None:
    import json

    line = encode_request("command", text)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line) == {"command": text}


@pytest.mark.parametrize("args", REFUSED)
def test_other_forms_refused(args: list[str]) -> None:
    assert parse_form(args) is None


@pytest.mark.parametrize("shell", ["bash", "sh", "zsh"])
@pytest.mark.parametrize(
    ("args", "out"),
    [
        (["-c", "echo hi; exit 3"], "hi\n"),
        (["-lc", "echo hi; exit 3"], "hi\n"),
        (["-c", "-l", "echo hi; exit 3"], "hi\n"),
        (["-l", "-c", "echo hi; exit 3"], "hi\n"),
    ],
)
def test_every_form_through_the_service(box: Box, shell: str, args: list[str], out: str) -> None:
    done = box.run(*args, shell=shell)
    assert (done.stdout, done.stderr, done.returncode) == (out, "", 3)


def test_script_form_reads_through_the_sandbox(box: Box) -> None:
    (box.root / "ws/job.sh").write_text("echo from script $0\necho err >&2\n")
    done = box.run("job.sh")
    assert (done.stdout, done.stderr, done.returncode) == ("from script job.sh\n", "err\n", 0)
    missing = box.run("nope.sh")
    assert missing.returncode == 127 and "nope.sh: No such file or directory" in missing.stderr
    # the box's own config file is not reachable, whatever the path
    toml = box.root / "box.toml"
    refused = box.run(str(toml))
    assert (refused.stderr, refused.returncode) == (
        f"bash: {toml}: policy denied this operation on '{toml}' [policy: reachable-paths]\n",
        126,
    )


@pytest.mark.parametrize("args", [["-x", "-c", "true"], ["-c"], ["-c", "true", "extra"], ["--norc"]])
def test_refusal_message(box: Box, args: list[str]) -> None:
    done = box.run(*args)
    assert (done.stdout, done.stderr, done.returncode) == ("", USAGE + "\n", 2)
    assert USAGE == "Shell alias accepts only -c COMMAND, -lc COMMAND, -c -l COMMAND, or SCRIPT."


def test_export_does_not_leak_and_home_and_cwd(box: Box) -> None:
    first = box.run("-c", "export LEAK=1; cd /tmp; X=2; echo $LEAK; echo data > /tmp/mem")
    assert first.stdout == "1\n"
    second = box.run("-c", 'echo "[${LEAK-unset}] [${X-unset}]"; echo $HOME; pwd; cat /tmp/mem')
    assert second.stdout == f"[unset] [unset]\n{box.root}/home\n{box.root}/ws\n"
    assert "/tmp/mem: No such file or directory" in second.stderr  # /tmp lived in memory for one command


def test_workspace_writes_reach_the_host(box: Box) -> None:
    done = box.run("-c", "echo made > out.txt; mkdir -p d/e; ls")
    assert done.returncode == 0
    assert (box.root / "ws/out.txt").read_text() == "made\n"
    assert (box.root / "ws/d/e").is_dir()


def test_output_streams_and_binary_bytes(box: Box) -> None:
    done = subprocess_bytes(box, ["-c", r"printf '\x00\xff\xfe'; printf 'e\x80' >&2"])
    assert done == (b"\x00\xff\xfe", b"e\x80", 0)


def test_undecodable_bytes_in_the_command(box: Box) -> None:
    assert subprocess_bytes(box, [b"-c", b"printf '%s' '\xff\x80ok'"]) == (b"\xff\x80ok", b"", 0)


def subprocess_bytes(box: Box, args: list[str] | list[bytes]) -> tuple[bytes, bytes, int]:
    import subprocess

    p = subprocess.run(
        [os.fsencode(box.aliases / "bash"), *map(os.fsencode, args)], capture_output=True, timeout=60
    )
    return p.stdout, p.stderr, p.returncode


def test_socket_env_overrides_and_missing_service(box: Box) -> None:
    env = {**os.environ, "SANDBASH_SOCKET": str(box.root / "nowhere.sock")}
    done = box.run("-c", "echo hi", env=env)
    assert done.returncode == 125 and "cannot reach the shell service" in done.stderr
    env["SANDBASH_SOCKET"] = str(box.socket)
    assert box.run("-c", "echo hi", env=env).stdout == "hi\n"


def test_concurrent_commands(box: Box) -> None:
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        outs = list(pool.map(lambda i: box.run("-c", f"x={i}; sleep 0.2; echo $x").stdout, range(16)))
    assert outs == [f"{i}\n" for i in range(16)]


@pytest.mark.parametrize(
    ("stdin", "command", "out"),
    [
        (b"a\nb\n", "wc -l", b"2\n"),
        (b"", "cat; echo end", b"end\n"),
        (b"x" * 300000, "wc -c", b"300000\n"),
        (b"line\n" * 1000, "head -1", b"line\n"),
        (b"q\n", "read v; echo got $v; hostcat", b"got q\n"),
        (b"a\nb\n", "hostcat | sort -r", b"b\na\n"),
    ],
)
def test_stdin_is_forwarded(box: Box, stdin: bytes, command: str, out: bytes) -> None:
    import subprocess

    p = subprocess.run(
        [str(box.aliases / "bash"), "-c", command], input=stdin, capture_output=True, timeout=60
    )
    assert (p.stdout, p.stderr, p.returncode) == (out, b"", 0)


def test_unread_stdin_does_not_block(box: Box) -> None:
    """A command that reads none of a large stdin still ends (the client sends only what the service takes)."""
    import subprocess

    p = subprocess.run(
        [str(box.aliases / "bash"), "-c", "echo done"],
        input=b"z" * 5_000_000,
        capture_output=True,
        timeout=60,
    )
    assert (p.stdout, p.returncode) == (b"done\n", 0)
