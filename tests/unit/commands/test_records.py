"""One record per command (issue 17 part 1): the declarations, the generated index, the per-Bash
table, the static check reading the same record, and the one place that starts a command.

`python tests/unit/commands/test_records.py --write-index` rewrites src/sandbash/commands/index.py
from the records (after adding or renaming an `@declare`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sandbash import Bash, ExecResult
from sandbash.check.wrappers import MODELS
from sandbash.commands import registry
from sandbash.commands.context import CommandExit, Ctx
from sandbash.commands.index import INDEX
from sandbash.commands.options import CommandSpec
from sandbash.commands.record import CommandRecord, Effects, declare
from sandbash.custom import Command, as_record, command
from sandbash.policy import Policy
from sandbash.stdio.streams import SigPipe, StreamError
from sandbash.testing import run_command
from sandbash.vfs.errors import FsError

INDEX_FILE = Path(registry.__file__).with_name("index.py")
RECORDS = registry.all_records()


# ------------------------------------------------------------ the declarations and the index


def test_the_index_is_generated_from_the_records() -> None:
    expected = registry.render_index(RECORDS)
    assert INDEX_FILE.read_text(encoding="utf-8") == expected, (
        "commands/index.py is stale: run `python tests/unit/commands/test_records.py --write-index`"
    )


def test_every_name_is_declared_once() -> None:
    seen: dict[str, str] = {}
    for r in RECORDS:
        for n in r.names:
            key = registry.HOST_PREFIX + n if r.host_variant else n
            assert key not in seen, f"{key} declared by {seen[key]} and {r.module}.{r.attr}"
            seen[key] = f"{r.module}.{r.attr}"
    assert set(seen) == set(INDEX)


def test_every_command_has_a_check_model() -> None:
    """A built-in cannot be declared without effects, and every effects shape has a model."""
    for r in RECORDS:
        assert isinstance(r.effects, Effects), f"{r.name}: no effects"
        assert r.effects in MODELS, f"{r.name}: Effects.{r.effects.name} has no model in check/"
    assert set(MODELS) == set(Effects), "every Effects member needs a model (check/models.py, wrappers.py)"


def test_records_carry_their_spec_and_load_lazily() -> None:
    for name in ("cp", "egrep", "zcat", "dir", "rg", "sort"):
        r = registry.BUILTIN_TABLE.lookup(name)
        assert r is not None and name in r.names and isinstance(r.spec, CommandSpec)
    assert registry.BUILTIN_TABLE.lookup("egrep").spec is registry.BUILTIN_TABLE.lookup("grep").spec  # type: ignore[union-attr]
    assert registry.BUILTIN_TABLE.lookup("no-such-command") is None
    assert not registry.BUILTIN_TABLE.known("bash")  # the shells are the interpreter's, not records


@pytest.mark.parametrize(
    ("name", "implementation", "family", "engines"),
    [
        ("egrep", "grep", {"grep", "egrep", "fgrep"}, set()),
        ("grep", "grep", {"grep", "egrep", "fgrep"}, set()),
        ("zcat", "gzip", {"gzip", "gunzip", "zcat"}, set()),
        ("vdir", "ls", {"ls", "dir", "vdir"}, set()),
        ("[", "test", {"test", "["}, set()),
        ("gawk", "awk", {"awk", "gawk", "mawk", "nawk"}, set()),
        ("rg", "rg", {"rg"}, {"grep"}),
        ("tar", "tar", {"tar"}, {"gzip", "bzip2", "xz"}),
        (
            "cksum",
            "cksum",
            {"cksum"},
            {"md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "sum"},
        ),
        ("cat", "cat", {"cat"}, set()),
        ("sh", "bash", {"bash", "sh"}, set()),  # the interpreter's names: not records, one implementation
        ("bash", "bash", {"bash", "sh"}, set()),
    ],
)
def test_policy_identity_comes_from_the_records(
    name: str, implementation: str, family: set[str], engines: set[str]
) -> None:
    assert registry.implementation(name) == implementation
    assert registry.spellings(name) == family
    assert registry.engines(name) == engines


def test_network_and_writers_come_from_the_records() -> None:
    table = registry.BUILTIN_TABLE
    assert {n for n in table.names() if table.needs_network(n)} == {"curl", "wget"}
    from sandbash.check.models import writes_files

    assert writes_files("rm") and writes_files("gunzip") and writes_files("tee")
    assert not writes_files("zcat") and not writes_files("sort") and not writes_files("cat")


def test_declare_checks_names() -> None:
    for bad in ("", "a b", "a/b", "x=1", "$x"):
        with pytest.raises(ValueError):
            declare(bad, effects=Effects.NONE)(lambda ctx: 0)
    with pytest.raises(ValueError):
        CommandRecord((), lambda ctx: 0, Effects.NONE)


def test_echo_hi_imports_no_command_module() -> None:
    """Start-up stays lazy: `sandbash -c 'echo hi'` (python -X importtime) loads the registry and
    its index, but no module that implements a command."""
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "sandbash", "-c", "echo hi"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.stdout == "hi\n", run.stderr[-2000:]
    loaded = {line.rsplit("|", 1)[-1].strip() for line in run.stderr.splitlines() if "|" in line}
    commands = {m for m in loaded if m.startswith("sandbash.commands.")}
    allowed = {
        "sandbash.commands." + m for m in ("registry", "index", "record", "context", "options", "invoke")
    }
    implementing = {r.module for r in RECORDS}
    assert commands & implementing == set(), sorted(commands & implementing)
    assert "sandbash.commands.index" in commands
    assert commands <= allowed | {m for m in commands if m not in implementing}


# ------------------------------------------------------------ one table per Bash


# `spec`: how its arguments parse (no options here), so the check knows the operands are files
@command("rec-shout", effects=Effects.READS, spec=CommandSpec("rec-shout"))
def shout(args: list[str], ctx: Ctx) -> bytes:
    """Upper-case the operands' contents (or stdin)."""
    return b"".join(ctx.read_input(p).upper() for p in args or ["-"])


@command("rec-free")  # no effects: the static check cannot model it
def free(args: list[str], ctx: Ctx) -> str:
    return "free\n"


@command("cat", effects=Effects.READS)
def fake_cat(args: list[str], ctx: Ctx) -> str:
    return "not cat\n"


def test_custom_commands_belong_to_their_bash() -> None:
    mine = Bash(commands=[shout, fake_cat], files={"/d/a": "abc\n"})
    other = Bash(files={"/d/a": "abc\n"})
    assert mine.exec("rec-shout /d/a; echo x | rec-shout; cat /d/a").stdout == "ABC\nX\nnot cat\n"
    r = other.exec("rec-shout /d/a; echo $?; cat /d/a")
    assert r.stdout == "127\nabc\n" and "rec-shout: command not found" in r.stderr
    assert mine.exec("ls /usr/bin | grep -c '^rec-shout$'; type -t rec-shout").stdout == "1\nfile\n"
    assert other.exec("ls /usr/bin | grep -c '^rec-shout$'").stdout == "0\n"
    assert "rec-shout" in mine.commands.names() and "rec-shout" not in other.commands.names()


def test_sub_commands_and_sessions_see_the_same_table() -> None:
    bash = Bash(commands=[shout])
    assert (
        bash.exec("echo a b | xargs -n1 echo | rec-shout; bash -c 'echo c | rec-shout'").stdout == "A\nB\nC\n"
    )
    s = bash.session()
    assert s.exec("f() { echo $1 | rec-shout; }").exit_code == 0
    assert s.exec("f q").stdout == "Q\n"


def test_the_check_reads_the_custom_record() -> None:
    bash = Bash(commands=[shout, free], policy=Policy(paths=["/home/user:rw"]))
    assert bash.check("rec-shout /home/user/a").status == "allowed"
    assert bash.check("rec-shout /etc/passwd").status == "denied"  # its effects: reads its operands
    report = bash.check("rec-free")
    assert report.status == "denied"
    assert [i.code for s in report.sites for i in s.issues] == ["no_check_model"]


def test_a_command_without_a_model_cannot_run_under_a_policy() -> None:
    assert Bash(commands=[free]).exec("rec-free").stdout == "free\n"
    r = Bash(commands=[free], policy=Policy(paths=["/home/user:rw"])).exec("rec-free; echo $?")
    assert r.stdout == "126\n"
    assert (
        r.stderr == "bash: line 1: rec-free: refused by policy: the command declares no effects for "
        "the static check\n"
    )


# ------------------------------------------------------------ the simple callable form and the class form


class Greet(Command):
    name = "rec-greet"
    summary = "say hello"
    effects = Effects.NONE

    def execute(self, args: list[str], ctx: Ctx) -> ExecResult:
        return ExecResult(f"hello {' '.join(args)}\n".encode(), b"greeted\n", 3)


@pytest.mark.parametrize(
    ("returned", "stdout", "status"),
    [
        (None, "", 0),
        (0, "", 0),
        (7, "", 7),
        (256 + 5, "", 5),
        (True, "", 0),
        (False, "", 1),
        ("text\n", "text\n", 0),
        (b"\xffbytes\n", "\ufffdbytes\n", 0),
        (ExecResult(b"o\n", b"", 4), "o\n", 4),
    ],
)
def test_what_a_handler_may_return(returned: Any, stdout: str, status: int) -> None:
    rec = command("rec-ret", effects=Effects.NONE)(lambda args, ctx: returned)
    r = Bash(commands=[rec]).exec('rec-ret; echo "<$?>"')
    assert r.stdout == f"{stdout}<{status}>\n"


def test_the_class_form_is_adapted_to_a_record() -> None:
    for given in (Greet, Greet()):
        r = Bash(commands=[given]).exec("rec-greet a b; echo $?")
        assert (r.stdout, r.stderr) == ("hello a b\n3\n", "greeted\n")
    assert as_record(Greet).summary == "say hello" and as_record(Greet).effects is Effects.NONE
    assert as_record(shout) is shout
    assert shout.summary == "Upper-case the operands' contents (or stdin)."
    with pytest.raises(TypeError):
        as_record(object())
    with pytest.raises(TypeError):
        Bash(commands=[lambda args, ctx: 0])  # type: ignore[list-item]
    with pytest.raises(ValueError):
        command("bad name")(lambda args, ctx: 0)


# ------------------------------------------------------------ one place starts a command


def _raising(exc: BaseException) -> CommandRecord:
    def run(ctx: Ctx) -> int:
        ctx.out("before\n")
        raise exc

    return CommandRecord(("rec-raise",), run, Effects.NONE)


@pytest.mark.parametrize(
    ("exc", "status", "stderr"),
    [
        (CommandExit(4), 4, ""),
        (SigPipe(), 141, ""),
        (FsError(2, "/x/y"), 1, "rec-raise: /x/y: No such file or directory\n"),
        (StreamError(9, "Bad file descriptor"), 1, "rec-raise: write error: Bad file descriptor\n"),
        (ValueError("boom"), 1, "rec-raise: internal error (ValueError: boom)\n"),
        (KeyError("k"), 1, "rec-raise: internal error (KeyError: 'k')\n"),
        (RecursionError("deep"), 1, "rec-raise: internal error (recursion too deep)\n"),
    ],
)
def test_the_shell_and_run_command_start_a_command_the_same_way(
    exc: BaseException, status: int, stderr: str
) -> None:
    rec = _raising(exc)
    direct = run_command(["rec-raise"], commands=[rec])
    assert (direct.stdout, direct.status, direct.stderr.decode()) == (b"before\n", status, stderr)
    shell = Bash(commands=[rec]).exec("rec-raise; echo $?")
    assert shell.stdout == f"before\n{status}\n"
    # the shell adds its own prefix (`bash: line 1: `) to the lines a Python bug produces
    assert shell.stderr.endswith(stderr)


def test_a_memory_error_is_the_memory_limit_in_both() -> None:
    from sandbash.limits import LimitExceeded

    with pytest.raises(LimitExceeded) as e:
        run_command(["rec-raise"], commands=[_raising(MemoryError())])
    assert e.value.limit == "max_memory"


def test_run_command_runs_sub_commands_from_its_table() -> None:
    r = run_command(
        ["xargs", "-n1", "rec-shout"], stdin=b"a b\n", files={"a": "x\n", "b": "y\n"}, commands=[shout]
    )
    assert (r.stdout, r.status) == (b"X\nY\n", 0)
    r = run_command(["rec-nothing"])
    assert (r.status, r.stderr) == (127, b"rec-nothing: command not found\n")


if __name__ == "__main__":
    if sys.argv[1:] == ["--write-index"]:
        INDEX_FILE.write_text(registry.render_index(RECORDS), encoding="utf-8")
        print(f"wrote {INDEX_FILE}")
    else:
        print(registry.render_index(RECORDS), end="")
