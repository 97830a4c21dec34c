"""Start-up: `sandbash -c 'echo hi'` imports only what the script needs (issue 23: at most 50 ms of CPU).
The modules below cost milliseconds each and a plain run needs none of them; each test checks the
stand-in that replaced it gives the same answer."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

from sandbash.audit import script_hash
from sandbash.cli.app import _defaults, _parse_ours, _parse_plain, _parser

# what each costs a plain run when imported (Python 3.11): dataclasses with inspect ~6 ms, hashlib
# (OpenSSL) ~2.5 ms, argparse with gettext and locale ~3 ms, signal.py (its enums) ~0.5 ms, typing
# ~2.3 ms (12 M instructions; its names are imported under `TYPE_CHECKING = False`, CONTRIBUTING.md),
# threading ~0.8 ms (locks come from _thread; Thread, Event and Condition are imported by the first use)
NOT_IMPORTED: tuple[str, ...] = (
    "dataclasses",
    "inspect",
    "hashlib",
    "argparse",
    "gettext",
    "locale",
    "signal",
    "typing",
    "threading",
    # contextlib (~1.7 M instructions with its 18 classes): Session takes its turn in a try/finally
    "contextlib",
    # the importlib package with warnings (~1.3 M): builtins, commands and lazy backends load with
    # __import__, the CLI takes PathFinder from _frozen_importlib_external (the same class)
    "importlib",
    "warnings",
)
# and sandbash's own modules a plain run does without (printf's formatter, the function printer)
NOT_IMPORTED += ("sandbash.posix.printf", "sandbash.syntax.bashprint")


def test_echo_hi_imports_none_of_the_costly_modules() -> None:
    code = (
        # (a module the interpreter had before sandbash was imported, by site or a .pth file, is not ours)
        "import sys; before = set(sys.modules); from sandbash.cli import main; rc = main(['-c', 'echo hi']); "
        f"print(sorted(m for m in {NOT_IMPORTED!r} if m in sys.modules and m not in before))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.splitlines() == ["hi", "[]"]


@pytest.mark.parametrize(
    ("script", "output"),
    [
        ("grep -c b f", "1"),
        ("grep -v -n b f", "1:a"),
        ("rg -c a f", "1"),
        ("wc -l f", "2 f"),
        ('awk "NR == 2" f', "b"),
        ("sed -n 1p f", "a"),
        ("sort -r f | tr a-z A-Z | head -1", "B"),
        ("jq -n 1+1", "2"),
        ("ls -R f; find f -type f | wc -l", "f\n1"),
        ("echo f | xargs cat | head -1", "a"),
        ("diff f f && echo same", "same"),
        ("du -s f | cut -f2", "f"),
    ],
)
def test_text_commands_import_no_dataclasses(script: str, output: str) -> None:
    """grep, rg, wc, awk, sed, sort (fsutil), tr, jq, ls, find, xargs, diff and du build their
    classes with leanclass: a first
    grep -c imported dataclasses and inspect (with ast, dis, tokenize: ~6 ms, a quarter of
    grep -c ERROR on a 20 MB log)."""
    code = (
        "import sys; from sandbash import Bash; "
        f"r = Bash().exec('printf \"a\\\\nb\\\\n\" > f; {script}'); print(r.stdout.strip()); "
        "print(sorted(m for m in ('dataclasses', 'inspect', 'typing') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.splitlines() == [*output.splitlines(), "[]"]


# what a first command does not need unless an option asks: dataclasses (~6 ms with inspect), random
# (~3 M instructions: the run's generator is made when a command first reads ctx.rng), datetime (ls -l,
# stat, touch -t), date's parser and zones (touch -d), the importlib package and contextlib; and what a
# pipeline or a subshell does not need (a fork draws no seed from a generator the system would seed; a
# subshell's job table is a shallow copy made without the copy module)
FIRST_COMMAND_SPARES = (
    *("dataclasses", "inspect", "random", "datetime", "zoneinfo", "importlib", "contextlib", "warnings"),
    "copy",
    *("sandbash.commands.date", "sandbash.posix.zones"),
)


@pytest.mark.parametrize(
    ("script", "output"),
    [
        ("cat f", "a\nb"),
        ("grep -c a f", "1"),
        (
            "mkdir -p d/e && cp f d/g && mv d/g d/h && rm d/h && touch d/f && ln -s f d/l && chmod 600 d/f && ls d",
            "e\nf\nl",
        ),
        ("rmdir d 2>/dev/null; wc -l < f", "2"),
        # (a pipeline's stages run in threads: threading, which imports warnings on Python 3.13, is
        # the pipeline's own need, imported here before the count starts)
        ("cat f | wc -l; (echo x); y=$(echo y); echo $y; { echo z; } | cat", "2\nx\ny\nz"),
    ],
)
def test_a_first_command_imports_what_its_options_need_only(script: str, output: str) -> None:
    assert _first_run(script, FIRST_COMMAND_SPARES) == [*output.splitlines(), "[]"]


def _first_run(script: str, names: tuple[str, ...]) -> list[str]:
    """The output lines of `printf 'a\\nb\\n' > f; SCRIPT` in a fresh process, then those of `names`
    (modules or packages) the run imported."""
    code = (
        ("import threading; " if "|" in script else "")
        + "import sys; before = set(sys.modules); from sandbash import Bash; "
        + f"r = Bash().exec('printf \"a\\\\nb\\\\n\" > f; ' + {script!r}); print(r.stdout.strip()); "
        + f"names = {names!r}; "
        + "print(sorted({n for n in names for m in set(sys.modules) - before if m == n or m.startswith(n + '.')}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    return out.stdout.splitlines()


# the commands agents run most, each in its common form, and what that form does without (issue 23:
# a first command's import cost is most of an agent script's time). zoneinfo with sysconfig (~16 M
# instructions) is for a TZ that names a zone; date's command module and parser, and datetime, are
# for date itself, touch -d, find -newermt and jq's time functions
ZONES = ("zoneinfo", "sysconfig")
DATE_PARTS = ("sandbash.commands.date.main", "sandbash.commands.date.parse")


@pytest.mark.parametrize(
    ("script", "output", "spared"),
    [
        # (the regex layer with RE2, ~8 M instructions, and base64 are for the programs that use them;
        # decimal, ~5 M, for a number literal other than a plain integer below 2**53)
        (
            "echo '{\"a\": [1, 2]}' | jq -c '.a | map(. * 2)'",
            "[2,4]",
            (*ZONES, *DATE_PARTS, "datetime", "re2", "sandbash.regex", "base64", "decimal"),
        ),
        ("jq -n '[1, 2.5, 1e3, 10000000000000001] | length'", "4", ("re2", "sandbash.regex", "base64")),
        ("find . -name f", "./f", (*ZONES, *DATE_PARTS)),
        # a pattern a plain string test matches compiles no regex: RE2 is loaded by the first that needs one
        (
            "case f.txt in *.txt) echo y;; esac; [[ ab == a* ]] && find . -name 'f*'",
            "y\n./f",
            ("re2", "sandbash.regex"),
        ),
        ("date -u +%Y | wc -c; date +%Z", "5\nUTC", ZONES),
        # a family's package imports none of its commands: gzip is not tar, zip, bzip2 or xz (nor
        # dataclasses with inspect, ~46 M); tar's --transform brings the regex layer (RE2, ~8 M)
        (
            "gzip -c f | gzip -dc",
            "a\nb",
            ("dataclasses", "typing", "tarfile", "zipfile", "bz2", "lzma", "datetime"),
        ),
        (
            "tar cf t.tar f && tar tf t.tar",
            "f",
            ("dataclasses", "typing", "zipfile", "re2", "sandbash.regex"),
        ),
        ("basename /x/f; dirname /x/f; realpath f", "f\n/x\n/home/user/f", ("json", "struct", "datetime")),
        (
            "paste f f; column -t f | wc -l",
            "a\ta\nb\tb\n2",
            ("json", "typing", "sandbash.commands.columns.pr"),
        ),
        # sort: hashlib (OpenSSL) and random for -R, decimal for -n of fractions, heapq for merging
        (
            "sort -r f | sort -n | uniq -c | sort -rn -k2 | head -1",
            "1 b",
            ("hashlib", "random", "decimal", "heapq"),
        ),
        # awk: datetime for its time functions, shlex for a command line run without a shell; the
        # regex engine with RE2 (~12 M instructions) for a pattern that is not plain text
        (
            "awk '{ print NR\": \"$0 }' f | tail -1",
            "2: b",
            ("datetime", "shlex", "sandbash.commands.date", "re2", "sandbash.regex.engine"),
        ),
        (
            'awk -F, \'/b/ || $0 ~ "x" { n = gsub("b", "c"); split($0, p, "::"); print n, $0 }\' f',
            "1 c",
            ("re2", "sandbash.regex.engine", "sandbash.regex.posix"),
        ),
        # unicodedata is for a text past ASCII (display widths)
        ("wc -L f; ls -C; head -c1 f | cat", "1 f\nf\na", ("unicodedata",)),
        ("base64 f | base64 -d", "a\nb", ("sandbash.commands.encode.od", "sandbash.commands.encode.xxd")),
    ],
)
def test_an_agents_first_command_imports_only_what_its_form_needs(
    script: str, output: str, spared: tuple[str, ...]
) -> None:
    assert _first_run(script, spared) == [*output.splitlines(), "[]"]


# a loop's first compile imports read's fast paths only for a body that reads; the builtins' option
# parser and `exit`/`shift` read numbers without test's expressions (posix.number_text)
LOOP_SPARES = ("sandbash.interp.fastread", "sandbash.posix.readfields", "sandbash.posix.testexpr")


@pytest.mark.parametrize(
    ("script", "output", "spared"),
    [
        ("for i in 1 2; do echo $i; done", "1\n2", LOOP_SPARES),
        ("f() { local v=$1; echo $v; }; f a; export X=1; set -- a b; shift; echo $1", "a\nb", LOOP_SPARES),
        ("while read -r a; do echo $a; done <<< x; exit 3", "x", LOOP_SPARES[2:]),
        # `:`, true and false are a module of their own (truefalse.py): not core.py's other builtins
        # (~60 KB of bytecode) nor the option parser
        (
            "true && ! false && : x && while false; do :; done; until true; do :; done; echo ok",
            "ok",
            (*LOOP_SPARES, "sandbash.builtins.core", "sandbash.builtins.bopts"),
        ),
    ],
)
def test_a_loop_or_a_builtin_imports_only_the_helpers_it_uses(
    script: str, output: str, spared: tuple[str, ...]
) -> None:
    code = (
        "import sys; before = set(sys.modules); from sandbash import Bash; "
        f"r = Bash().exec({script!r}); print(r.stdout.strip()); "
        f"print(sorted(m for m in {spared!r} if m in sys.modules and m not in before))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.splitlines() == [*output.splitlines(), "[]"]


def test_option_defaults_are_argparse_defaults() -> None:
    ours = _defaults()
    theirs = _parser().parse_args([], namespace=SimpleNamespace())
    assert vars(ours) == vars(theirs)
    ours.mount.append("x")  # lists are fresh for every parse, as argparse's are
    assert _defaults().mount == []


# command lines the plain reader takes (argparse is not imported for them) ...
PLAIN_ARGV = [
    ["--limits", "generous"],
    ["--limits=hardened", "--limits", "generous"],  # the last one counts
    ["--mount", "/a:/b:ro", "--mount", "/c:/d", "--cwd", "/b"],
    ["--mount=/a:/b:ro", "--mount", "/c:/d=e", "--cwd=/b=c"],  # only the first = splits
    ["--json", "--timeout", "2.5", "--limit", "timeout=2m"],
    ["--timeout=1e1", "--timeout", " 3 ", "--json", "--json"],
    ["--timeout", "inf"],
    ["--host", "--host-path", "/var/log:ro", "--allow-url", "https://x/"],
    ["--root", ".", "--store", "s.db", "--policy", "p.toml", "--check", "--remote-policy", "r.toml"],
    ["--limit", "max_memory=1GB", "--limit=timeout=5", "--allow-url=http://a/", "--allow-url", "b"],
]
# ... and those it leaves to argparse (its rules for values like options, empty values, prefixes)
ARGPARSE_ARGV = [
    ["--timeout", "-1"],
    ["--cwd=-x"],
    ["--limits="],
    ["--mount", "/a:/b", "--cwd=", "--json"],
]


@pytest.mark.parametrize("argv", [[], *PLAIN_ARGV, *ARGPARSE_ARGV])
def test_parse_ours_is_argparse_with_or_without_options(argv: list[str]) -> None:
    want = vars(_parser().parse_args(argv, namespace=SimpleNamespace()))
    assert vars(_parse_ours(argv)) == want


@pytest.mark.parametrize("argv", PLAIN_ARGV)
def test_plain_command_lines_do_without_argparse(argv: list[str]) -> None:
    assert _parse_plain(argv) is not None


@pytest.mark.parametrize(
    "argv",
    [
        *ARGPARSE_ARGV,
        ["--timeout", "x"],  # argparse's 'invalid float value'
        ["--json=yes"],  # 'ignored explicit argument'
        ["--cwd"],  # 'expected one argument'
        ["--limits", "--json"],
        ["--nope"],
        ["--lim", "generous"],  # (no abbreviations: split_args must know which options take a value)
        ["--limits", "generous", "-h"],
        ["--version"],
    ],
)
def test_other_command_lines_are_left_to_argparse(argv: list[str]) -> None:
    assert _parse_plain(argv) is None


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--timeout", "x"], "argument --timeout: invalid float value: 'x'"),
        (["--json=yes"], "argument --json: ignored explicit argument 'yes'"),
        (["--cwd"], "argument --cwd: expected one argument"),
        (["--limits", "--json"], "argument --limits: expected one argument"),
        (["--nope"], "unrecognized arguments: --nope"),
        (["--lim", "generous"], "unrecognized arguments: --lim"),
    ],
)
def test_argparse_reports_what_the_plain_reader_refuses(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        _parse_ours(argv)
    assert stop.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("script", ["", "echo hi", "é\udcff" * 50, "x" * 100_000])
def test_script_hash_is_sha256(script: str) -> None:
    digest = hashlib.sha256(script.encode("utf-8", "surrogateescape")).hexdigest()
    assert script_hash(script) == "sha256:" + digest


def test_only_a_process_of_its_own_freezes_the_imported_objects() -> None:
    """main() as the program (no argv) moves the import-time objects out of the collector's way
    (gc.freeze); called with argv, as an embedding program or a test does, it leaves gc alone.
    (Counted from the interpreter's own start: Python 3.12 begins with objects frozen.)"""
    code = (
        "import gc, sys; start = gc.get_freeze_count(); from sandbash.cli import main; "
        "before = gc.get_freeze_count(); main(['-c', 'true']); after_argv = gc.get_freeze_count(); "
        "sys.argv = ['sandbash', '-c', 'true']; main(); "
        "print(before == after_argv == start, gc.get_freeze_count() > start, gc.isenabled())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.split() == ["True", "True", "True"]


# program() (the `sandbash` script and `python -m sandbash`) ends the process with os._exit when the
# interpreter's teardown has nothing to do: each case prints what the process wrote and its status
_PROGRAM = "{before}import sys\nsys.argv = ['sandbash', '-c', {script!r}]\nfrom sandbash.cli import program\nprogram()\n"
# (os._exit wrapped: it says when it is used)
_FAST = "import os\nreal_exit = os._exit\nos._exit = lambda s: (os.write(1, b'fast\\n'), real_exit(s))\n"


@pytest.mark.parametrize(
    ("before", "script", "out", "err", "status"),
    [
        # nothing left: main's output flushed (a pipe is block-buffered), its status, no teardown
        (_FAST, "echo hi; echo err >&2; exit 7", "hi\nfast\n", "err\n", 7),
        (_FAST, "printf 'a%.0s' {1..5000}; exit 300", "a" * 5000 + "fast\n", "", 44),
        ("", "echo hi", "hi\n", "", 0),
        # an atexit callback or a thread still running: the usual exit (callbacks run, threads waited)
        ("import atexit\natexit.register(print, 'bye')\n", "echo hi; exit 3", "hi\nbye\n", "", 3),
        (_FAST + "import atexit\natexit.register(print, 'bye')\n", "echo hi", "hi\nbye\n", "", 0),
        (
            _FAST
            # (the thread prints once the main thread is done, however slow a loaded host makes it:
            # a fixed sleep printed before a slow run's output)
            + "import threading, time\ndef late():\n    while threading.main_thread().is_alive():\n"
            + "        time.sleep(0.01)\n    print('late')\nthreading.Thread(target=late).start()\n",
            "echo hi",
            "hi\nlate\n",
            "",
            0,
        ),
    ],
)
def test_program_ends_the_process_without_a_teardown_it_does_not_need(
    before: str, script: str, out: str, err: str, status: int
) -> None:
    code = _PROGRAM.format(script=script, before=before)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert (got.stdout, got.stderr, got.returncode) == (out, err, status)


def test_program_is_the_entry_point() -> None:
    """`python -m sandbash` runs program(); the `sandbash` script's entry point names it."""
    import tomllib
    from pathlib import Path

    project = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    assert project["project"]["scripts"]["sandbash"] == "sandbash.cli:program"
    got = subprocess.run(
        [sys.executable, "-m", "sandbash", "-c", "echo hi; exit 5"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (got.stdout, got.returncode) == ("hi\n", 5)


def test_signal_handlers_are_installed_and_given_back() -> None:
    """The CLI's SIGINT/SIGTERM handlers (through the C module) replace the program's and put them back."""
    import signal

    from sandbash.cli.app import _Stopper

    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    stop = _Stopper()
    stop.install()
    try:
        assert signal.getsignal(signal.SIGINT) == stop._handle
        assert signal.getsignal(signal.SIGTERM) == stop._handle
    finally:
        stop.uninstall()
    assert {s: signal.getsignal(s) for s in before} == before


# what `Bash().exec('echo hi')` must not import (a name stands for the module and everything under it):
# the costly standard modules above and others a plain run has no use for, and sandbash's parts that
# only some scripts, options or embedders need (policy, network, static check, agent, box, host mode,
# runtimes, sessions, the regex engines, arithmetic's code generator, [[ ]], printf, prompts, commands)
NOT_IMPORTED_BY_A_RUN: tuple[str, ...] = (
    *NOT_IMPORTED,
    *("tomllib", "json", "decimal", "fractions", "shutil", "tempfile", "subprocess", "socket", "ssl"),
    *("asyncio", "sqlite3", "pathlib", "datetime", "zlib", "unicodedata", "textwrap", "struct", "logging"),
    *("ast", "dis", "tokenize", "importlib.metadata", "queue", "heapq", "fnmatch", "pickle", "concurrent"),
    *("re2", "regex", "copy", "weakref"),
    *("sandbash.policy", "sandbash.net", "sandbash.check", "sandbash.agent", "sandbash.box"),
    *("sandbash.host", "sandbash.runtimes", "sandbash.sessions", "sandbash.regex", "sandbash.cli"),
    *("sandbash.tool", "sandbash.expand.arithgen", "sandbash.interp.conds", "sandbash.interp.prompt"),
    *("sandbash.syntax.unparse", "sandbash.posix.longdouble", "sandbash.vfs.host", "sandbash.vfs.overlay"),
    *("sandbash.builtins.varcmds", "sandbash.builtins.dirs"),
    # letter case of declare -u/-l/-c values, and `set -o history`'s list
    *("sandbash.expand.casemap", "sandbash.interp.histline"),
    *(
        "sandbash.posix.testexpr",
        "sandbash.interp.bashcmd",
        "sandbash.interp.timefmt",
        "sandbash.builtins.synopsis",
    ),
    *("sandbash.commands.grep", "sandbash.commands.awk", "sandbash.commands.sed", "sandbash.commands.jq"),
    # random.py (with math, bisect, _sha512: ~3 M instructions): the generators are made on first use;
    # a command's record, context and invoker: a run of builtins alone needs none of them
    *("random", "sandbash.commands.record", "sandbash.commands.context", "sandbash.commands.invoke"),
    # echo is a module of its own: printf, read and mapfile (io.py) and the option parser they share
    *("sandbash.builtins.io", "sandbash.builtins.bopts", "sandbash.commands.options"),
)


def test_a_plain_run_imports_only_what_it_needs() -> None:
    """A fresh interpreter's `Bash().exec('echo hi')`: none of NOT_IMPORTED_BY_A_RUN is loaded after
    it (which modules, not how long: a module moved back onto this path fails here by name)."""
    code = (
        "import sys; before = set(sys.modules); from sandbash import Bash; r = Bash().exec('echo hi'); "
        "print(r.stdout.strip()); "
        f"names = {NOT_IMPORTED_BY_A_RUN!r}; "
        "print(sorted({n for n in names for m in set(sys.modules) - before if m == n or m.startswith(n + '.')}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.splitlines() == ["hi", "[]"]


# the fixed patterns `echo hi` compiles (the lexer's plain runs outside and inside "...", a name, the
# arithmetic test): each is 0.3-0.6 M instructions, so one only some scripts need is compiled on first
# use (default IFS's splitter, the lexer's `name=` head of a word holding a `=`)
ECHO_HI_PATTERNS = 4


@pytest.mark.parametrize(
    ("script", "output", "splitter"),
    [
        ("echo hi", "hi", False),
        ('x="a  b\tc"; set -- $x; echo $#', "3", True),  # default IFS: the splitter is made now
        ('x=" a b "; for w in $x; do echo "[$w]"; done', "[a]\n[b]", True),
        ('IFS=:; x="a::b"; set -- $x; echo $#', "3", False),  # another IFS: its own delimiter
        (
            "a=~/x b+=~; echo $a $b x=~:~ y+=~",
            "/home/user/x /home/user x=/home/user:/home/user y+=/home/user",
            False,
        ),
        ("echo a=~ 'b'=~ =~ 1a=~", "a=/home/user b=~ =~ 1a=~", False),
    ],
)
def test_a_plain_run_compiles_only_the_lexers_patterns(script: str, output: str, splitter: bool) -> None:
    """Patterns are counted as `re` compiles them (its cache misses, from the import on); default IFS's splitter
    (fields.ws_split) is compiled by the first value split at blanks, not by every start-up."""
    code = (
        "import re, sys; made = []; compile_ = re._compile\n"
        "def spy(p, flags):\n"
        "    if (type(p), p, flags) not in re._cache: made.append(p)\n"
        "    return compile_(p, flags)\n"
        "re._compile = spy\n"
        "from sandbash import Bash; from sandbash.expand import fields\n"
        "r = Bash().exec(sys.argv[1]); print(r.stdout, end='')\n"
        "print(len([p for p in made if p != '[ \\t\\n]+']), fields.ws_split.cache_info().currsize)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, script], capture_output=True, text=True, timeout=120, check=True
    )
    *printed, counts = out.stdout.splitlines()
    assert printed == output.split("\n")
    compiled, made = map(int, counts.split())
    assert made == int(splitter)
    if script == "echo hi":
        assert compiled <= ECHO_HI_PATTERNS


@pytest.mark.parametrize(
    ("before", "expected"),
    [
        ("", "True False"),  # collecting: on again after the import, nothing left frozen
        ("gc.disable(); ", "False False"),  # a program that turned the collector off keeps it off
        ("gc.freeze(); ", "True True"),  # ... and one that froze objects keeps them frozen (not unfrozen)
    ],
)
def test_the_import_gives_the_collector_back_as_it_was(before: str, expected: str) -> None:
    """The package import pauses the collector and moves what it made to the oldest generation
    (sandbash/__init__.py); the program's own collector setting and frozen objects are left as they were.
    (Python 3.12 starts with objects of its own frozen: the import then leaves them, and its own, as they are.)"""
    code = (
        f"import gc; start = gc.get_freeze_count(); {before}import sandbash; "
        "print(gc.isenabled(), gc.get_freeze_count() > start)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.split() == expected.split()


# each script first reads a random generator after a plain run (the generator made late must be the
# one it would have been made early): $RANDOM, a $( )'s fork, /dev/urandom, a command's Ctx.rng (shuf)
LATE_RANDOM = [
    "echo $RANDOM $RANDOM",
    "x=$(echo $RANDOM); y=$(echo $RANDOM); echo $x $y $RANDOM",
    "head -c 6 /dev/urandom | od -An -tx1",
    "shuf -e a b c d e f g | tr -d '\\n'",
    "(echo $RANDOM) & wait; echo $SRANDOM",
]


@pytest.mark.parametrize("script", LATE_RANDOM)
def test_random_is_made_on_first_use_and_seeded_runs_repeat(script: str) -> None:
    """A fresh interpreter: `echo hi` imports no random; the script then works; with a seed its output
    is the same whether or not an earlier run of the Bash made a generator, and another seed gives
    another output."""
    code = f"""
import sys
from sandbash import Bash
script = {script!r}
plain = Bash()
print(plain.exec('echo hi').stdout.strip(), 'random' in sys.modules)
first = plain.exec(script)
print(first.exit_code, bool(first.stdout.strip()), 'random' in sys.modules)
b = Bash(seed=11)  # (a seeded Bash makes its generator at once)
b.exec('echo hi')
late = b.exec(script)
early = Bash(seed=11)
early.exec('echo $RANDOM >/dev/null; head -c 1 /dev/urandom >/dev/null')  # generators made at once
print(early.exec(script).stdout == late.stdout)
print(Bash(seed=12).exec('echo hi; ' + script).stdout != Bash(seed=11).exec('echo hi; ' + script).stdout)
print(Bash().exec(script).exit_code)
"""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.split() == ["hi", "False", "0", "True", "True", "True", "True", "0"], out.stderr


def test_lazy_generators_are_each_their_own() -> None:
    """The first read makes the generator and every later read (any thread) gets that one; a run's
    filesystem has its own, never the shared one's (T-TEN-6); a fork's draws differ from its parent's."""
    import threading

    from sandbash.interp.state import ShellState
    from sandbash.vfs.facade import Vfs

    vfs = Vfs()
    seen: list[object] = []
    start = threading.Barrier(4)

    def read() -> None:
        start.wait()
        seen.append(vfs.rng)

    threads = [threading.Thread(target=read) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({id(r) for r in seen}) == 1 and seen[0] is vfs.rng
    run = vfs.bind(None, None)
    assert run.rng is not vfs.rng and run.rng is run.rng
    assert vfs.bind(None, None).rng is not run.rng
    seeded = Vfs(seed=3)
    assert Vfs(seed=3).bind(None, None).rng.random() == seeded.bind(None, None).rng.random()
    state = ShellState(vfs.view(), {})
    assert state.rng is state.rng
    child = state.fork(lazy=True)
    assert child.rng is not state.rng and child.rng is child.rng
    again = state.fork(lazy=False)
    assert again.rng is not state.rng and again.rng.random() != child.rng.random()


# the benchmarks' prelude (export, cd) and builtins given no option: the option parser, the operators
# of ${x op ...} (paramops.py), `select` (read only when the script reads the CLI's stdin), let's
# evaluation and the function attributes (varcmds loads them by their first call) stay out
NOT_IMPORTED_BY_A_PRELUDE = (
    "sandbash.commands.options",
    "sandbash.expand.paramops",
    "select",
    "sandbash.interp.fastbuiltins",
    "sandbash.builtins.funcattrs",
)


def test_builtins_without_options_load_no_option_parser() -> None:
    script = "export LC_ALL=C A=1 B; cd /tmp; pwd; local_v=2; readonly R=1; unset B; shift; echo $A $PWD $R"
    code = (
        "import sys; before = set(sys.modules); from sandbash.cli import main; "
        f"main(['-c', {script!r}]); names = {NOT_IMPORTED_BY_A_PRELUDE!r}; "
        "print(sorted(n for n in names if n in sys.modules and n not in before))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.splitlines() == ["/tmp", "1 /tmp 1", "[]"]


# each word shape a builtin may be given first: the words without a leading - or + are operands
# without asking the parser; the others still go to it (options, --, -, +x in plus mode, errors)
BUILTIN_ARGV = [
    ["export"],
    ["export", "A=1", "-n", "B"],
    ["export", ""],
    ["export", "-n", "A"],
    ["export", "--", "-A"],
    ["cd", "dir", "-L"],
    ["cd", "-"],
    ["cd", "-P", "/"],
    ["cd", "-Z"],
    ["declare", "+x", "v"],
    ["declare", "x=-1"],
    ["readonly", "r", "+x"],
    ["unset", "-v", "x"],
]


class _ErrorsOnly:
    """What the option parser's error path asks of the shell."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def builtin_error(self, name: str, message: str) -> None:
        self.errors.append(f"{name}: {message}")

    def write_err(self, text: str) -> None:
        self.errors.append(text)


@pytest.mark.parametrize("argv", BUILTIN_ARGV)
@pytest.mark.parametrize("letters", ["aAfnp", "LPe", "+aAfFgilnprtuxcI", ""])
def test_builtin_operands_are_what_the_parser_gives(argv: list[str], letters: str) -> None:
    from sandbash.builtins.bopts import BuiltinOpts, builtin_spec, parse_builtin_status
    from sandbash.commands.options import UsageError, parse_args

    sh = _ErrorsOnly()
    got = parse_builtin_status(sh, argv, letters)  # type: ignore[arg-type]
    try:
        parsed, args = parse_args(builtin_spec(argv[0], letters), argv[1:])
    except UsageError:
        assert got == 2 and sh.errors
        return
    items = [(k, v, sign) for (k, v), sign in zip(parsed.order, parsed.signs, strict=True)]
    assert isinstance(got, BuiltinOpts) and (got.items, got.args) == (items, args) and not sh.errors
