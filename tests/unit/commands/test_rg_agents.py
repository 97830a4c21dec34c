"""rg as agents use it: fixed expectations for ripgrep's behaviour (always run), and the same
options checked against a real ripgrep when one is installed (`apt-get install ripgrep`)."""

from __future__ import annotations

import json
import pathlib
import re
import shlex
import shutil
import subprocess

import pytest

import oracle
from sandbash import Bash

TREE: dict[str, bytes] = {
    "a.txt": b"hello world\nfoo bar\nHello again\n",
    "w.txt": b"x foobar y\nfoo\n",
    "src/m.py": b"def foo():\n    return 1\n# foo bar baz\n",
    "src/x.js": b"let foo = 1;\n",
    "src/sub/empty.txt": b"none here\n",
    "docs/r.md": b"foo in md\n",
    ".hidden/h.txt": b"foo hidden\n",
    "b.bin": b"bin\0foo\n",
    "notes.log": b"foo log\n",
}
# a repository: .gitignore applies (with negation, anchoring, ** and directory rules), .ignore always
REPO: dict[str, bytes] = {
    **TREE,
    ".git/HEAD": b"ref: refs/heads/main\n",
    ".gitignore": b"node_modules/\n/build\n*.log\n!keep.log\nsrc/**/g.py\n",
    ".ignore": b"docs/\n",
    "src/sub/.gitignore": b"*.txt\n",
    "src/sub/s.txt": b"foo sub\n",
    "node_modules/pkg/i.js": b"foo\n",
    "build/out/o.txt": b"foo\n",
    "src/gen/g.py": b"foo\n",
    "keep.log": b"foo keep\n",
}


def sandbox(tree: dict[str, bytes]) -> Bash:
    return Bash(files={f"/w/{k}": v for k, v in tree.items()}, cwd="/w")


def rg(bash: Bash, args: str, stdin: bytes = b"") -> tuple[str, str, int]:
    r = bash.exec(f"rg {args}", stdin=stdin)
    return r.stdout, r.stderr, r.exit_code


# ------------------------------------------------------------ fixed expectations


@pytest.mark.parametrize(
    ("args", "out", "status"),
    [
        ("-c foo", "a.txt:1\ndocs/r.md:1\nnotes.log:1\nsrc/m.py:2\nsrc/x.js:1\nw.txt:2\n", 0),
        ("-c nomatch", "", 1),  # files without matches are left out, even when all are
        ("-c foo src/sub/empty.txt", "", 1),
        ("-c foo a.txt src/sub/empty.txt", "a.txt:1\n", 0),
        ("--count-matches o a.txt", "5\n", 0),
        ("--count-matches foo", "a.txt:1\ndocs/r.md:1\nnotes.log:1\nsrc/m.py:2\nsrc/x.js:1\nw.txt:2\n", 0),
        ("-g '*.{py,js}' -l foo", "src/m.py\nsrc/x.js\n", 0),
        ("-g '*.{txt,{md,log}}' -l foo", "a.txt\ndocs/r.md\nnotes.log\nw.txt\n", 0),
        ("-g '!*.{txt,md}' -l foo", "notes.log\nsrc/m.py\nsrc/x.js\n", 0),
        ("-g 'src/*.py' -l foo", "src/m.py\n", 0),
        ("foo b.bin", 'binary file matches (found "\\0" byte around offset 3)\n', 0),
        (
            "foo b.bin a.txt",
            'b.bin: binary file matches (found "\\0" byte around offset 3)\na.txt:foo bar\n',
            0,
        ),
        ("-a foo b.bin", "bin\0foo\n", 0),
        ("-uuu -l bin", "b.bin\n", 0),
        ("nomatch b.bin", "", 1),
    ],
)
def test_fixed(args: str, out: str, status: int) -> None:
    got_out, _err, got_status = rg(sandbox(TREE), args)
    assert (got_out, got_status) == (out, status)


def test_walked_binary_files_are_skipped_quietly() -> None:
    assert rg(sandbox(TREE), "-l bin") == ("", "", 1)  # only b.bin holds "bin"
    assert rg(sandbox(TREE), "-l bin b.bin") == ("b.bin\n", "", 0)  # named: searched


def test_no_files_searched_is_explained() -> None:
    out, err, status = rg(Bash(files={"/w/e/.keep": ""}, cwd="/w/e"), "-t py foo")
    assert (out, status) == ("", 2)
    assert err.startswith("rg: No files were searched, which means ripgrep probably applied a filter")


def test_symlink_loop_with_follow_is_reported_not_walked() -> None:
    bash = Bash(files={"/w/d/f.txt": "foo\n"}, cwd="/w")
    bash.exec("ln -s .. d/up; ln -s d self")
    out, err, status = rg(bash, "-L foo")
    assert out == "d/f.txt:foo\nself/f.txt:foo\n"
    assert status == 2
    assert err.splitlines() == [
        "rg: File system loop found: d/up points to an ancestor .",
        "rg: File system loop found: self/up points to an ancestor .",
    ]
    out, err, status = rg(bash, "foo")  # without -L links are not followed: no loop
    assert (out, err, status) == ("d/f.txt:foo\n", "", 0)


def test_missing_path_is_ripgreps_io_error() -> None:
    out, err, status = rg(sandbox(TREE), "foo nope a.txt")
    assert out == "a.txt:foo bar\n" and status == 2
    assert err == "rg: nope: IO error for operation on nope: No such file or directory (os error 2)\n"


def test_json_messages() -> None:
    out, _err, status = rg(sandbox(TREE), "--json foo a.txt w.txt")
    assert status == 0
    messages = [json.loads(line) for line in out.splitlines()]
    assert [m["type"] for m in messages] == [
        "begin",
        "match",
        "end",
        "begin",
        "match",
        "match",
        "end",
        "summary",
    ]
    match = messages[1]["data"]
    assert match == {
        "path": {"text": "a.txt"},
        "lines": {"text": "foo bar\n"},
        "line_number": 2,
        "absolute_offset": 12,
        "submatches": [{"match": {"text": "foo"}, "start": 0, "end": 3}],
    }
    end = messages[2]["data"]["stats"]
    assert {
        k: end[k] for k in ("searches", "searches_with_match", "bytes_searched", "matched_lines", "matches")
    } == {"searches": 1, "searches_with_match": 1, "bytes_searched": 32, "matched_lines": 1, "matches": 1}
    assert end["bytes_printed"] == len(out.splitlines(keepends=True)[0]) + len(
        out.splitlines(keepends=True)[1]
    )
    summary = messages[-1]["data"]["stats"]
    assert summary["matched_lines"] == 3 and summary["searches"] == 2
    out, _err, status = rg(sandbox(TREE), "--json nomatch a.txt")
    assert status == 1 and [json.loads(x)["type"] for x in out.splitlines()] == ["summary"]


def test_json_shows_invalid_utf8_as_base64() -> None:
    out, _err, _status = rg(Bash(files={"/w/z": b"caf\xe9 foo\n"}, cwd="/w"), "--json foo z")
    match = json.loads(out.splitlines()[1])["data"]
    assert match["lines"] == {"bytes": "Y2Fm6SBmb28K"}


@pytest.mark.parametrize(
    ("args", "out"),
    [
        ("-l foo", "a.txt\nkeep.log\nsrc/m.py\nsrc/x.js\nw.txt\n"),
        (
            "--no-ignore -l foo",
            "a.txt\nbuild/out/o.txt\ndocs/r.md\nkeep.log\nnode_modules/pkg/i.js\nnotes.log\n"
            "src/gen/g.py\nsrc/m.py\nsrc/sub/s.txt\nsrc/x.js\nw.txt\n",
        ),
        (
            "-u -l foo",
            "a.txt\nbuild/out/o.txt\ndocs/r.md\nkeep.log\nnode_modules/pkg/i.js\nnotes.log\n"
            "src/gen/g.py\nsrc/m.py\nsrc/sub/s.txt\nsrc/x.js\nw.txt\n",
        ),
        ("-l foo notes.log", "notes.log\n"),  # a file named on the command line is searched even if ignored
    ],
)
def test_ignore_files_in_a_repository(args: str, out: str) -> None:
    assert rg(sandbox(REPO), args)[0] == out


def test_gitignore_needs_a_repository() -> None:
    tree = {k: v for k, v in REPO.items() if not k.startswith(".git/")}
    listed = rg(sandbox(tree), "-l foo")[0].split()
    assert "node_modules/pkg/i.js" in listed and "docs/r.md" not in listed  # .ignore still applies


def test_stdin_that_is_the_hosts_terminal_or_null_is_not_searched(tmp_path: pathlib.Path) -> None:
    import sys

    sandbash = pathlib.Path(sys.executable).parent / "sandbash"
    (tmp_path / "f.txt").write_text("foo\n")
    with open("/dev/null", "rb") as null:
        p = subprocess.run(
            [str(sandbash), "--mount", f"{tmp_path}:/w:ro", "--cwd", "/w", "-c", "rg foo"],
            stdin=null,
            capture_output=True,
            timeout=60,
        )
    assert (p.stdout, p.returncode) == (b"f.txt:foo\n", 0)
    p = subprocess.run([str(sandbash), "-c", "rg foo"], input=b"a foo\nb\n", capture_output=True, timeout=60)
    assert p.stdout == b"a foo\n"


# ------------------------------------------------------------ against a real ripgrep

ORACLE_ARGS = [
    "foo",
    "-n foo",
    "-i hello",
    "-w foo",
    "-l foo",
    "-c foo",
    "-c nomatch",
    "--count-matches o",
    "-t py foo",
    "-t md foo",
    "-T py foo",
    "-tpy -c foo",
    "-g '*.py' foo",
    "-g '*.{py,js}' foo",
    "-g '!*.txt' foo",
    "-g 'src/*.py' foo",
    "-g '**/g.py' foo",
    "-g 'src/**' -l foo",
    "-g '!src/' -l foo",
    "-g '*.{txt,md}' -c foo",
    "--iglob '*.PY' foo",
    "-C 1 bar",
    "-A 1 hello",
    "-B 1 again",
    "-n -C 1 foo a.txt",
    "--files",
    "--files -g '*.txt'",
    "--hidden foo",
    "--no-ignore foo",
    "-u foo",
    "-uu foo",
    "-uuu foo",
    "-F 'foo()'",
    "-F -w foo",
    "-e foo -e hello",
    "-e foo -e hello -l",
    "foo b.bin",
    "-a foo b.bin",
    "-c foo a.txt",
    "-o 'fo+'",
    "-w -o foo",
    "-n foo a.txt w.txt",
    "foo src",
    "-l foo src docs",
    "-x foo",
    "-v foo a.txt",
    "-l -v foo",
    "-m 1 foo",
    "--max-depth 1 foo",
    "-S Hello",
    "-s hello",
    "-i -n -w foo",
    "-r X foo a.txt",
    "--files-without-match foo",
    "-H foo a.txt",
    "-I foo",
    "-c -i FOO a.txt w.txt",
    "foo nope",
    "--json foo a.txt",
    "--json -i hello",
    "--json foo src docs",
]


def _normalise(text: str) -> str:
    # ripgrep 13 writes an IO error without the `rg: ` that 14 (and sandbash) put first
    text = re.sub(r"(?m)^(?!rg: )(\S+: IO error for operation|No files were searched)", r"rg: \1", text)
    # --json timings differ from run to run
    return re.sub(r'"(elapsed|elapsed_total)":\{[^}]*\}', '"\\1":{}', text)


@pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep is not installed (apt-get install ripgrep)")
@pytest.mark.parametrize("tree", ["plain", "repo"])
def test_against_ripgrep(tmp_path: pathlib.Path, tree: str) -> None:
    files = TREE if tree == "plain" else REPO
    for rel, data in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    bash = sandbox(files)
    problems = []
    for args in ORACLE_ARGS:
        real = oracle.run(
            ["/bin/sh", "-c", f"rg --sort path {args}"],
            cwd=tmp_path,
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=60,
        )
        expected = (
            _normalise(real.stdout.decode("utf-8", "replace")),
            _normalise(real.stderr.decode("utf-8", "replace")),
            real.returncode,
        )
        got_out, got_err, status = rg(bash, args)
        if (_normalise(got_out), _normalise(got_err), status) != expected:
            problems.append(
                f"rg {shlex.quote(args)}:\n  ripgrep: {expected}\n  sandbash: {(got_out, got_err, status)}"
            )
    assert not problems, "\n".join(problems)
