"""The traceback python3 prints for an uncaught exception, from Monty's: the program's frames only
(not the prelude's), named as the program, its source lines as written (Monty ran the rewritten
text), and carets drawn as CPython 3.11 draws them.
"""

from __future__ import annotations

import ast
import re

from .common import Program
from .python_source import rewrite

_FEED_NAME = re.compile(r'File "<python-input-\d+>"')
# the longest expression whose anchors are looked for (the host parses it)
_MAX_SEGMENT = 4096


def program_traceback(display: str, program: Program) -> str:
    """Monty's traceback text as CPython would show it for `program`."""
    shown = _program_frames(display)
    shown = _FEED_NAME.sub(f'File "{program.name}"', shown)
    shown = _original_source(shown, program.name, program.text)
    return _cpython_carets(shown)


def _cpython_carets(traceback: str) -> str:
    """Monty underlines the failing expression with `~`; CPython 3.11 draws `^`, shows none when
    the expression is the whole line, and for a binary operation or a subscript marks the
    operator or the brackets with `^` and the operands with `~`."""
    lines = traceback.split("\n")
    out: list[str] = []
    for i, line in enumerate(lines):
        source = lines[i - 1][4:] if i and lines[i - 1].startswith("    ") else ""
        body = line[4:]
        if not (source and line.startswith("    ") and body.strip() and not body.strip("~ ")):
            out.append(line)
            continue
        start = len(body) - len(body.lstrip())
        end = len(body.rstrip())
        if body[start:end] != "~" * (end - start) or end > len(source):
            out.append(line)  # (not one run under the line: left as Monty drew it)
            continue
        anchors = _anchors(source[start:end])
        if end - start >= len(source.strip()) and not (anchors and anchors[1] > anchors[0]):
            continue  # the whole line: CPython draws nothing
        if anchors is None:
            marks = "^" * (end - start)
        else:
            left, right = anchors
            marks = "~" * left + "^" * (right - left) + "~" * (end - start - right)
        out.append("    " + " " * start + marks)
    return "\n".join(out)


def _anchors(segment: str) -> tuple[int, int] | None:
    """Where CPython 3.11 puts the `^` of a binary operation (its operator) or a subscript (its
    brackets) in `segment`, as character offsets; None for anything else."""
    if len(segment) > _MAX_SEGMENT:
        return None  # (not parsed on the host: drawn as a plain underline)
    try:
        tree = ast.parse(segment)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr):
        return None
    expr = tree.body[0].value
    data = segment.encode("utf-8")

    def char(offset: int | None) -> int:
        return len(data[: offset or 0].decode("utf-8", "replace"))

    if isinstance(expr, ast.BinOp):
        # the operator: past the left operand's blanks; two characters wide when a second one
        # follows it (`**`, `//`; CPython's test, `)` included); then past `)`, blanks and `#`
        left = char(expr.left.end_col_offset)
        between = segment[left : char(expr.right.col_offset)]
        lead = len(between) - len(between.lstrip())
        at = left + lead
        width = 2 if lead + 1 < len(between) and not between[lead + 1].isspace() else 1
        while at < len(segment) and (segment[at].isspace() or segment[at] in ")#"):
            at += 1
        return at, at + width
    if isinstance(expr, ast.Subscript):
        # the brackets: from the `[` after the value to the `]` after the subscript
        left = char(expr.value.end_col_offset)
        while left < len(segment) and segment[left] != "[":
            left += 1
        right = char(expr.slice.end_col_offset) + 1
        while right < len(segment) and segment[right] != "]":
            right += 1
        return left, min(right + 1, len(segment))
    return None


def _original_source(traceback: str, name: str, text: str) -> str:
    """The traceback's source lines as the program wrote them: Monty ran the rewritten text
    (python_source.rewrite keeps every line where it was), whose lines name the prelude's
    stand-ins (`sys = _sb_sys`). A frame whose lines were rewritten loses its carets, which
    pointed into the rewritten text."""
    rewritten = rewrite(text).split("\n")
    if len(rewritten) == text.count("\n") + 1 and rewritten == text.split("\n"):
        return traceback
    original = text.split("\n")
    head = f'  File "{name}", line '
    out: list[str] = []
    line_no = 0  # the program line the next source line of a frame shows (0: not in one)
    changed = False
    for line in traceback.split("\n"):
        if line.startswith("  File "):
            number = line[len(head) :].split(",", 1)[0] if line.startswith(head) else ""
            line_no = int(number) if number.isdigit() else 0
            changed = False
        elif line.startswith("    ") and line_no:
            if not line.strip(" ~^"):
                if changed:
                    continue  # carets under a line that is no longer shown as it ran
            elif 0 < line_no <= len(original) and line_no <= len(rewritten):
                if (
                    original[line_no - 1] != rewritten[line_no - 1]
                    and line.strip() == rewritten[line_no - 1].strip()
                ):
                    indent = line[: len(line) - len(line.lstrip())]
                    line = indent + original[line_no - 1].strip()
                    changed = True
                line_no += 1
        else:
            line_no = 0
        out.append(line)
    return "\n".join(out)


def _program_frames(traceback: str) -> str:
    """Monty's traceback without the prelude's frames (feed 0: input(), sys.exit())."""
    out: list[str] = []
    skipping = False
    for line in traceback.split("\n"):
        if line.startswith("  File "):
            skipping = line.startswith('  File "<python-input-0>"')
        elif not line.startswith("    "):
            skipping = False
        if not skipping:
            out.append(line)
    return "\n".join(out)
