"""The one file-operand loop (`ctx.inputs()`): stdin for `-` or no operand, every operand in
order, errors named in each tool's own words, the loop goes on, status 1.

Rows were recorded from GNU coreutils 9.1, util-linux 2.38, binutils and glibc iconv; when the
real tool is on the machine the row is also checked live against it.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

import oracle
from sandbash.commands.context import Ctx
from sandbash.commands.inputs import Inputs, format_error
from sandbash.limits import Budget, Limits
from sandbash.stdio.streams import BufferWriter, BytesReader, Stream, StreamError
from sandbash.testing import make_vfs, run_command

FILES = {"f1": "one\ntwo\n", "f2": "three\n", "d/x": "in a directory\n", "a b": "spaced\n", "j": "1 [2]\n"}
STDIN = b"from stdin\n"

# (argv, stderr, status): each is an operand loop; `nope` is missing, `d` a directory
ROWS = [
    (
        ["cat", "f1", "nope", "-", "d", "f2"],
        "cat: nope: No such file or directory\ncat: d: Is a directory\n",
        1,
    ),
    (
        ["cat", "a b", "x#", "'~aa"],
        "cat: x#: No such file or directory\ncat: ''\\''~aa': No such file or directory\n",
        1,
    ),
    (["nl", "nope", "f1", "d"], "nl: nope: No such file or directory\nnl: d: Is a directory\n", 1),
    (["cut", "-c1", "d", "f1", "nope"], "cut: d: Is a directory\ncut: nope: No such file or directory\n", 1),
    (
        ["fold", "-w2", "nope", "f2", "d"],
        "fold: nope: No such file or directory\nfold: d: Is a directory\n",
        1,
    ),
    (
        ["fmt", "nope", "f1", "d"],
        "fmt: cannot open 'nope' for reading: No such file or directory\nfmt: read error\n",
        1,
    ),
    (
        ["paste", "-s", "f1", "nope", "d", "f2"],
        "paste: nope: No such file or directory\npaste: d: Is a directory\n",
        1,
    ),
    (
        ["pr", "-t", "a c", "nope", "d", "f2"],
        "pr: 'a c': No such file or directory\npr: nope: No such file or directory\npr: d: Is a directory\n",
        1,
    ),
    (["column", "f1", "nope", "f2"], "column: nope: No such file or directory\n", 1),
    (["column", "d"], "column: read failed: Is a directory\n", 1),
    (["rev", "nope", "a b", "f1"], "rev: cannot open nope: No such file or directory\n", 1),
    (["tac", "nope", "f1"], "tac: failed to open 'nope' for reading: No such file or directory\n", 1),
    (
        ["md5sum", "nope", "f1", "d", "-"],
        "md5sum: nope: No such file or directory\nmd5sum: d: Is a directory\n",
        1,
    ),
    (["sha1sum", "f1", "a b"], "", 0),
    (["sum", "nope", "f1", "d"], "sum: nope: No such file or directory\nsum: d: Is a directory\n", 1),
    (["base64", "d"], "base64: read error: Is a directory\n", 1),
    (["base32", "a b"], "", 0),
    (["base64", "nope"], "base64: nope: No such file or directory\n", 1),
    (
        ["strings", "nope", "f1", "d"],
        "strings: 'nope': No such file\nstrings: Warning: 'd' is a directory\n",
        1,
    ),
    (["iconv", "nope", "f1"], "iconv: cannot open input file `nope': No such file or directory\n", 1),
    (["iconv", "d", "f1"], "iconv: error while reading the input: Is a directory\n", 1),
    (["iconv", "d", "nope"], "iconv: error while reading the input: Is a directory\n", 1),
    (["sed", "p", "f1", "nope", "f2"], "sed: can't read nope: No such file or directory\n", 2),
    (["sed", "p", "f1", "d", "f2"], "sed: read error on d: Is a directory\n", 4),
    (["sed", "p", "d", "nope"], "sed: read error on d: Is a directory\n", 4),
    (["sed", "-n", "$p", "f1", "nope"], "sed: can't read nope: No such file or directory\n", 2),
    (["sed", "s/o/0/", "d"], "sed: read error on d: Is a directory\n", 4),
    (["sed", "s/o/0/", "nope"], "sed: can't read nope: No such file or directory\n", 2),
    (["sed", "-s", "-n", "$p", "f1", "nope", "f2"], "sed: can't read nope: No such file or directory\n", 2),
    (["od", "-c", "nope", "f2", "d"], "od: nope: No such file or directory\nod: d: Is a directory\n", 1),
    (["od", "-N2", "f1", "nope"], "", 0),
    (["od", "d"], "od: d: Is a directory\n", 1),
    (
        ["hexdump", "-C", "d", "f1", "nope"],
        "hexdump: d: Is a directory\nhexdump: nope: No such file or directory\n",
        1,
    ),
    (["hexdump", "nope", "d"], "hexdump: nope: No such file or directory\nhexdump: d: Is a directory\n", 1),
    (
        ["hexdump", "nope", "a c"],
        "hexdump: nope: No such file or directory\nhexdump: a c: No such file or directory\n"
        "hexdump: all input file arguments failed\n",
        1,
    ),
    (["hexdump", "-n2", "f1", "nope"], "", 0),
    (["shuf", "nope"], "shuf: nope: No such file or directory\n", 1),
    (["jq", "-c", ".", "j", "nope"], "jq: error: Could not open file nope: No such file or directory\n", 2),
    (
        ["jq", "-n", "[inputs]", "j", "nope"],
        "jq: error: Could not open file nope: No such file or directory\n",
        2,
    ),
    (
        ["head", "-n1", "f1", "nope", "d", "-", "f2"],
        "head: cannot open 'nope' for reading: No such file or directory\nhead: error reading 'd': Is a directory\n",
        1,
    ),
    (
        ["tail", "-n1", "a c", "d", "f2"],
        "tail: cannot open 'a c' for reading: No such file or directory\ntail: error reading 'd': Is a directory\n",
        1,
    ),
]


def _ids(row: tuple[list[str], str, int]) -> str:
    return " ".join(row[0])


def _sandbash(argv: list[str]) -> tuple[bytes, str, int]:
    r = run_command(argv, stdin=STDIN, files=FILES)
    return r.stdout, r.stderr.decode("utf-8", "surrogateescape"), r.status


def _real(argv: list[str]) -> tuple[bytes, str, int] | None:
    if shutil.which(argv[0]) is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in FILES.items():
            path = os.path.join(tmp, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as fh:
                fh.write(text)
        r = oracle.run(
            argv,
            input=STDIN,
            capture_output=True,
            cwd=tmp,
            check=False,
            env={"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin", "TZ": "UTC"},
        )
    return r.stdout, r.stderr.decode("utf-8", "surrogateescape"), r.returncode


@pytest.mark.parametrize(("argv", "stderr", "status"), ROWS, ids=[_ids(r) for r in ROWS])
def test_recorded(argv: list[str], stderr: str, status: int) -> None:
    _out, err, st = _sandbash(argv)
    assert (err, st) == (stderr, status)


# pr's header carries the file's time and column's layout differs by terminal: compare stderr/status only
_STDOUT_DIFFERS = {"pr", "column"}


@pytest.mark.parametrize(("argv", "stderr", "status"), ROWS, ids=[_ids(r) for r in ROWS])
def test_live_against_the_real_tool(argv: list[str], stderr: str, status: int) -> None:
    real = _real(argv)
    if real is None:
        pytest.skip(f"{argv[0]} not installed")
    out, err, st = _sandbash(argv)
    assert (err, st) == real[1:]
    if argv[0] not in _STDOUT_DIFFERS:
        assert out == real[0]


# stdout and stderr together: gnulib's error() flushes stdout first, util-linux's warn() and
# tools that read everything first (tac, column, od) do not
ORDER = [
    (
        "head f1 d f2",
        "==> f1 <==\none\ntwo\n\n==> d <==\nhead: error reading 'd': Is a directory\n\n==> f2 <==\nthree\n",
    ),
    (
        "tail -n1 f1 d - <f2",
        "==> f1 <==\ntwo\n\n==> d <==\ntail: error reading 'd': Is a directory\n\n"
        "==> standard input <==\nthree\n",
    ),
    ("paste -s f1 d f2", "one\ttwo\n\npaste: d: Is a directory\nthree\n"),
    (
        "hexdump -C f1 d",
        "hexdump: d: Is a directory\n00000000  6f 6e 65 0a 74 77 6f 0a"
        "                           |one.two.|\n00000008\n",
    ),
    ("cut -c1 f1 nope f2", "o\nt\ncut: nope: No such file or directory\nt\n"),
    ("nl f1 nope", "     1\tone\n     2\ttwo\nnl: nope: No such file or directory\n"),
    ("fold -w2 f2 nope", "th\nre\ne\nfold: nope: No such file or directory\n"),
    ("expand f2 nope", "three\nexpand: nope: No such file or directory\n"),
    ("md5sum f2 nope", "febe6995bad457991331348f7b9c85fa  f2\nmd5sum: nope: No such file or directory\n"),
    ("sum f2 nope", "08302     1 f2\nsum: nope: No such file or directory\n"),
    ("pr -t f2 nope", "three\npr: nope: No such file or directory\n"),
    ("tac f2 nope", "tac: failed to open 'nope' for reading: No such file or directory\nthree\n"),
    ("rev f2 nope", "rev: cannot open nope: No such file or directory\neerht\n"),
    ("strings -n1 f2 nope", "three\nstrings: 'nope': No such file\n"),
    ("iconv f2 nope", "three\niconv: cannot open input file `nope': No such file or directory\n"),
    ("fmt f2 nope", "three\nfmt: cannot open 'nope' for reading: No such file or directory\n"),
    ("cat -n f2 nope", "     1\tthree\ncat: nope: No such file or directory\n"),
    ("od -c f2 nope", "od: nope: No such file or directory\n0000000   t   h   r   e   e  \\n\n0000006\n"),
]


def _real_bash(script: str) -> str | None:
    if not os.path.exists("/bin/bash") or shutil.which(script.split()[0]) is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in FILES.items():
            path = os.path.join(tmp, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as fh:
                fh.write(text)
        r = oracle.run(
            ["/bin/bash", "-c", script + " 2>&1"],
            capture_output=True,
            cwd=tmp,
            check=False,
            env={"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin", "TZ": "UTC"},
        )
    return r.stdout.decode("utf-8", "surrogateescape")


@pytest.mark.parametrize(("script", "expected"), ORDER, ids=[s for s, _ in ORDER])
def test_output_and_message_order(script: str, expected: str) -> None:
    from sandbash import Bash

    r = Bash(files={f"/home/user/{k}": v for k, v in FILES.items()}, cwd="/home/user").exec(script + " 2>&1")
    assert r.stdout == expected
    real = _real_bash(script)
    if real is not None:
        assert real == expected


def _ctx() -> Ctx:
    vfs = make_vfs(FILES)
    return Ctx(
        "tool",
        [],
        BytesReader(STDIN),
        BufferWriter(),
        BufferWriter(),
        vfs.view("/home/user"),
        {},
        Budget(Limits()),
    )


def test_no_operand_is_stdin_and_order_is_kept() -> None:
    ctx = _ctx()
    inputs = ctx.inputs([])
    assert [name for name, _ in inputs] == ["-"]
    inputs = ctx.inputs(["f2", "-", "f1"])
    seen = [(name, stream.read()) for name, stream in inputs]
    assert seen == [("f2", b"three\n"), ("-", STDIN), ("f1", b"one\ntwo\n")]
    assert inputs.status == 0


class _Recorder(BytesReader):
    def __init__(self, data: bytes, log: list[str], name: str) -> None:
        super().__init__(data)
        self.log = log
        self.name = name

    def close(self) -> None:
        self.log.append(f"close {self.name}")


class _RecordingCtx(Ctx):
    __slots__ = ("log",)
    log: list[str]

    def open_in(self, path: str) -> Stream:
        if path == "-":
            return self.stdin
        return _Recorder(b"", self.log, path)


@pytest.mark.parametrize("stop_early", [False, True])
def test_files_are_closed_when_the_loop_moves_on_and_stdin_is_not(stop_early: bool) -> None:
    log: list[str] = []
    ctx = _RecordingCtx(
        "tool",
        [],
        _Recorder(STDIN, log, "stdin"),
        BufferWriter(),
        BufferWriter(),
        make_vfs().view("/"),
        {},
        Budget(Limits()),
    )
    ctx.log = log
    for name, _stream in ctx.inputs(["f1", "-", "f2", "/dev/stdin"]):
        log.append(f"read {name}")
        if stop_early and name == "f1":
            break
    if stop_early:
        assert log == ["read f1", "close f1"]
    else:
        assert log == ["read f1", "close f1", "read -", "read f2", "close f2", "read /dev/stdin"]


def _recording(log: list[str]) -> _RecordingCtx:
    ctx = _RecordingCtx(
        "tool",
        [],
        _Recorder(STDIN, log, "stdin"),
        BufferWriter(),
        BufferWriter(),
        make_vfs().view("/"),
        {},
        Budget(Limits()),
    )
    ctx.log = log
    return ctx


def test_an_exception_in_the_body_closes_the_file_at_once() -> None:
    """A limit or a write error ends the command: the file is closed then, not when the loop
    is collected."""
    log: list[str] = []
    inputs = _recording(log).inputs(["f1", "f2"])
    with pytest.raises(RuntimeError):
        for name, _stream in inputs:
            with inputs.reading():
                log.append(f"read {name}")
                raise RuntimeError("limit")
    assert log == ["read f1", "close f1"]


def test_close_frees_the_current_file_once() -> None:
    log: list[str] = []
    inputs = _recording(log).inputs(["f1", "f2"])
    it = iter(inputs)
    next(it)
    inputs.close()
    inputs.close()
    assert log == ["close f1"]
    assert next(it)[0] == "f2" and log == ["close f1"]


@pytest.mark.parametrize(
    ("argv", "stop"),
    [(["sed", "p", "d", "nope"], True), (["iconv", "d", "nope"], True), (["cat", "d", "nope"], False)],
)
def test_some_tools_stop_at_a_file_they_cannot_read(argv: list[str], stop: bool) -> None:
    _out, err, _status = _sandbash(argv)
    assert ("nope" in err) is not stop


def test_a_read_error_inside_the_body_names_the_operand_and_the_loop_goes_on() -> None:
    ctx = _ctx()
    inputs = ctx.inputs(["f1", "f2"], read_error="{f}: read error: {err}")
    done = []
    for name, _stream in inputs:
        with inputs.reading():
            if name == "f1":
                raise StreamError(5, "boom")
            done.append(name)
    assert done == ["f2"]
    assert inputs.status == 1 and inputs.read_failed
    assert isinstance(ctx.stderr, BufferWriter)
    assert ctx.stderr.getvalue() == b"tool: f1: read error: Input/output error\n"


@pytest.mark.parametrize(
    ("template", "name", "shown"),
    [
        ("{f}: {err}", "a b", "'a b': No such file or directory"),
        ("{af}", "x", "'x'"),
        ("{f}", "x", "x"),
        ("cannot open {name}", "a b", "cannot open a b"),
        ("read error", "x", "read error"),
    ],
)
def test_wording(template: str, name: str, shown: str) -> None:
    assert format_error(template, name, 2) == shown


def test_inputs_is_the_context_method() -> None:
    assert isinstance(_ctx().inputs(["f1"]), Inputs)
