"""Spec case files: parsing, rendering, and running a case in sandbash or real bash.

A case file (`cases/*.txt`) holds cases like this::

    #### name-of-case
    script line 1
    script line 2
    ## file sub/a.txt
    contents of a file created (relative to the cwd) before the script runs
    ## stdin
    what the script reads on its standard input
    ## stdout
    expected standard output
    ## status: 0
    ## xfail: why sandbash differs from bash (the case is expected to fail)

The script runs from the line after `####` up to the first `## ` section line.
A block section (`## file PATH`, `## stdin`, `## stdout`) holds lines, each ending
in a newline; trailing blank lines are dropped. Text that a block cannot show
(no final newline, a final blank line, control characters, or a line that looks
like a section) is written inline as a Python string literal instead:
`## stdout: 'no newline'`, `## file a.txt: 'x'`, `## stdin: ''`.
Lines before the first case are free comments. `stdout` and `status` are
filled in by `record.py` from real bash; everything else is written by hand.
"""

from __future__ import annotations

import ast
import os
import re
import signal
import subprocess
import sys
import tempfile
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent))  # tests/, for record.py run as a script

import oracle

CASES_DIR = Path(__file__).parent / "cases"
BASH = "/bin/bash"
SANDBOX_HOME = "/home/user"
ENCODING = ("utf-8", "surrogateescape")

_NAME = re.compile(r"[A-Za-z0-9_.+-]+")
_SECTION = re.compile(r"^## (file|stdin|stdout|status|xfail)(?: ([^:\s]+))?(?:(:)(?: (.*))?)?$")


class CaseFileError(ValueError):
    pass


@dataclass
class Case:
    file: str
    name: str
    line: int
    script: str
    files: dict[str, str] = field(default_factory=dict)
    stdin: str | None = None
    stdout: str | None = None
    status: int | None = None
    xfail: str | None = None

    @property
    def id(self) -> str:
        return f"{self.file}/{self.name}"


@dataclass
class CaseFile:
    path: Path
    header: str
    cases: list[Case]


def _block(lines: list[str]) -> str:
    while lines and lines[-1] == "":
        lines.pop()
    return "".join(line + "\n" for line in lines)


def _literal(text: str, where: str) -> str:
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError) as e:
        raise CaseFileError(f"{where}: bad string literal {text!r}") from e
    if not isinstance(value, str):
        raise CaseFileError(f"{where}: expected a string literal")
    return value


def parse(path: Path) -> CaseFile:
    lines = path.read_text(encoding="utf-8").split("\n")
    header: list[str] = []
    cases: list[Case] = []
    case: Case | None = None
    section: tuple[str, str | None] | None = None  # open block: (kind, file path)
    body: list[str] = []

    def close() -> None:
        nonlocal section, body
        if case is not None and section is not None:
            kind, arg = section
            text = _block(body)
            if kind == "script":
                if not text:
                    raise CaseFileError(f"{path}:{case.line}: case {case.name!r} has no script")
                case.script = text
            elif kind == "file":
                case.files[arg or ""] = text
            else:
                setattr(case, kind, text)
        section, body = None, []

    for no, line in enumerate(lines, 1):
        where = f"{path.name}:{no}"
        if line.startswith("#### "):
            close()
            name = line[5:].strip()
            if not _NAME.fullmatch(name):
                raise CaseFileError(f"{where}: bad case name {name!r}")
            if any(c.name == name for c in cases):
                raise CaseFileError(f"{where}: duplicate case name {name!r}")
            case = Case(path.stem, name, no, "")
            cases.append(case)
            section = ("script", None)
            continue
        if case is None:
            header.append(line)
            continue
        m = _SECTION.match(line)
        if m is None:
            if section is None:
                if line.strip():
                    raise CaseFileError(f"{where}: text outside a section")
                continue
            body.append(line)
            continue
        close()
        kind, arg, colon, value = m.groups()
        if (kind == "file") != (arg is not None):
            raise CaseFileError(f"{where}: `## file` takes a path, other sections do not")
        if kind == "file" and arg in case.files:
            raise CaseFileError(f"{where}: file {arg!r} given twice")
        if kind == "status":
            if not colon or value is None or not value.isdigit():
                raise CaseFileError(f"{where}: expected `## status: N`")
            case.status = int(value)
        elif kind == "xfail":
            if not value:
                raise CaseFileError(f"{where}: `## xfail:` needs a reason")
            case.xfail = value
        elif colon:
            text = _literal(value or "", where)
            if kind == "file":
                case.files[arg or ""] = text
            else:
                setattr(case, kind, text)
        else:
            section = (kind, arg)
    close()
    while header and header[-1] == "":
        header.pop()
    return CaseFile(path, "".join(h + "\n" for h in header), cases)


def load_all(directory: Path = CASES_DIR) -> list[Case]:
    cases: list[Case] = []
    for path in sorted(directory.glob("*.txt")):
        cases.extend(parse(path).cases)
    return cases


# ---------------------------------------------------------------- rendering


def _block_safe(text: str) -> bool:
    if not text.endswith("\n") or text.endswith("\n\n") or text == "\n":
        return False
    for line in text[:-1].split("\n"):
        if line.startswith("#### ") or _SECTION.match(line):
            return False
        if any(ch != "\t" and unicodedata.category(ch) in ("Cc", "Cs", "Cf", "Co", "Cn") for ch in line):
            return False
    return True


def _render_section(head: str, text: str) -> str:
    if _block_safe(text):
        return f"{head}\n{text}"
    return f"{head}: {text!r}\n"


def render(cf: CaseFile) -> str:
    out = [cf.header + "\n"] if cf.header else []
    for c in cf.cases:
        parts = [f"#### {c.name}\n", c.script]
        for fpath, content in c.files.items():
            parts.append(_render_section(f"## file {fpath}", content))
        if c.stdin is not None:
            parts.append(_render_section("## stdin", c.stdin))
        if c.stdout is not None:
            parts.append(_render_section("## stdout", c.stdout))
        if c.status is not None:
            parts.append(f"## status: {c.status}\n")
        if c.xfail:
            parts.append(f"## xfail: {c.xfail}\n")
        out.append("".join(parts) + "\n")
    return "".join(out).rstrip("\n") + "\n"


# ---------------------------------------------------------------- running


@dataclass
class Outcome:
    stdout: str
    stderr: str
    status: int


def _default_signals() -> None:
    """Real bash starts with the default signal dispositions the recordings had: a test run
    launched in the background or under nohup ignores SIGINT/SIGQUIT/SIGHUP, and bash would show
    that (`trap` lists them, a job killed by HUP survives)."""
    for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGQUIT):
        signal.signal(sig, signal.SIG_DFL)


def run_real_bash(case: Case, timeout: float = 180.0) -> Outcome:
    """Run the case as `bash -c SCRIPT` in a fresh temporary home directory, inside the oracle
    sandbox (tests/oracle.py: only that directory is writable). The timeout only guards against a
    hang (a loaded CI host is slow); running past it fails this case alone."""
    with tempfile.TemporaryDirectory(prefix="spec") as home:
        for rel, content in case.files.items():
            full = os.path.join(home, rel)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "wb") as f:
                f.write(content.encode(*ENCODING))
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home, "LC_ALL": "C.UTF-8", "TZ": "UTC"}
        try:
            p = oracle.run(
                ["bash", "-c", case.script],
                executable=BASH,
                preexec_fn=_default_signals,
                input=(case.stdin or "").encode(*ENCODING),
                capture_output=True,
                cwd=home,
                env=env,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            return Outcome("", f"real bash ran past {timeout:g}s", -1)
    return Outcome(p.stdout.decode(*ENCODING), p.stderr.decode(*ENCODING), p.returncode)


def run_sandbash(case: Case) -> Outcome:
    from sandbash import Bash

    files = {f"{SANDBOX_HOME}/{rel}": content for rel, content in case.files.items()}
    r = Bash(files=files).exec(case.script, stdin=(case.stdin or "").encode(*ENCODING))
    return Outcome(r.stdout_bytes.decode(*ENCODING), r.stderr_bytes.decode(*ENCODING), r.exit_code)
