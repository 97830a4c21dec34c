"""patch: apply unified, context and normal diffs (GNU patch 2.7.6 messages)."""

from __future__ import annotations

import re
from collections.abc import Callable

from ...vfs.errors import FsError, strerror
from ..context import Ctx
from ..fsutil import replace_bytes
from ..options import CommandSpec, Opt
from ..record import Effects, declare
from ..textbasic.common import Out, decode, encode
from .patched import apply_ed, is_ed_script
from .util import parse, usage

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass, field
else:  # the same classes without importing dataclasses and inspect (~6 ms of a first run)
    from ...leanclass import dataclass, field

PATCH_SPEC = CommandSpec(
    name="patch",
    usage="[OPTION]... [ORIGFILE [PATCHFILE]]",
    summary="Apply a diff file to an original.",
    usage_status=2,
    opts=(
        Opt("p", "strip", arg="required", metavar="NUM", help="strip NUM leading components from file names"),
        Opt(
            "i",
            "input",
            arg="required",
            metavar="PATCHFILE",
            help="read patch from PATCHFILE instead of stdin",
        ),
        Opt("R", "reverse", help="assume patches were created with old and new files swapped"),
        Opt("N", "forward", help="ignore patches that seem to be reversed or already applied"),
        Opt(None, "dry-run", help="print the results of applying the patches without changing any files"),
        Opt("o", "output", arg="required", metavar="FILE", help="output patched files to FILE"),
        Opt("b", "backup", help="back up the original contents of each file"),
        Opt("z", "suffix", arg="required", metavar="SUFFIX", help="backup suffix (default .orig)"),
        Opt("F", "fuzz", arg="required", metavar="LINES", help="set the fuzz factor to LINES"),
        Opt("r", "reject-file", arg="required", metavar="FILE", help="output rejects to FILE"),
        Opt("s", "quiet", dest="silent", help="work silently, unless an error occurs"),
        Opt(None, "silent", dest="silent"),
        Opt("f", "force", help="like -t, but ignore bad-Prereq patches, and assume unreversed"),
        Opt("t", "batch", help="ask no questions; skip bad-Prereq patches; assume reversed"),
        Opt("E", "remove-empty-files", help="remove output files that are empty after patching"),
        Opt(
            "d", "directory", arg="required", metavar="DIR", help="change the working directory to DIR first"
        ),
        Opt("e", "ed", help="interpret the patch as an ed script"),
        Opt("u", "unified", help="interpret the patch as a unified diff"),
        Opt("c", "context", help="interpret the patch as a context diff"),
        Opt("n", "normal", help="interpret the patch as a normal diff"),
        Opt("l", "ignore-whitespace", help="ignore white space changes between patch and input"),
        Opt(None, "no-backup-if-mismatch", help="back up mismatches only if otherwise requested"),
        Opt(None, "backup-if-mismatch", help="back up mismatches (the default)"),
        Opt(None, "verbose", help="output extra information about the work being done"),
        Opt(None, "posix", help="conform to the POSIX standard"),
    ),
)


@dataclass
class PHunk:
    old_start: int  # 1-based first old line (0 for an empty old range)
    old: list[bytes] = field(default_factory=list)  # context and removed lines, in order
    new: list[bytes] = field(default_factory=list)  # context and added lines, in order
    kinds_old: list[str] = field(default_factory=list)  # " " or "-"
    kinds_new: list[str] = field(default_factory=list)  # " " or "+"
    text: list[bytes] = field(default_factory=list)  # the hunk as written, for .rej
    new_start: int = 0


@dataclass
class FilePatch:
    old_name: str = ""
    new_name: str = ""
    header: list[bytes] = field(default_factory=list)
    hunks: list[PHunk] = field(default_factory=list)
    fmt: str = "unified"
    line: int = 0  # 1-based line of the first hunk in the patch input


_UNI = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_NORMAL = re.compile(rb"^(\d+)(?:,(\d+))?([acd])(\d+)(?:,(\d+))?\s*$")
_CTX_OLD = re.compile(rb"^\*\*\* (\d+)(?:,(\d+))? \*\*\*\*")
_CTX_NEW = re.compile(rb"^--- (\d+)(?:,(\d+))? ----")


def _name(line: bytes) -> str:
    text = decode(line[4:].rstrip(b"\n"))
    return text.split("\t", 1)[0].strip()


def _strip_eol(lines: list[bytes], i: int, target: list[bytes]) -> int:
    """Handle a following '\\ No newline at end of file' marker."""
    if i < len(lines) and lines[i].startswith(b"\\ "):
        if target:
            target[-1] = target[-1].rstrip(b"\n")
        return i + 1
    return i


def parse_patch(data: bytes) -> list[FilePatch]:
    lines = data.splitlines(keepends=True)
    patches: list[FilePatch] = []
    cur: FilePatch | None = None
    header: list[bytes] = []
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        if line.startswith(b"--- ") and i + 1 < n and lines[i + 1].startswith(b"+++ "):
            cur = FilePatch(_name(line), _name(lines[i + 1]), header + [line, lines[i + 1]], fmt="unified")
            patches.append(cur)
            header = []
            i += 2
            continue
        if (
            line.startswith(b"*** ")
            and i + 1 < n
            and lines[i + 1].startswith(b"--- ")
            and not _CTX_OLD.match(line)
        ):
            cur = FilePatch(_name(line), _name(lines[i + 1]), header + [line, lines[i + 1]], fmt="context")
            patches.append(cur)
            header = []
            i += 2
            continue
        m = _UNI.match(line)
        if cur is not None and not cur.hunks and (m or line.startswith(b"***************")):
            cur.line = i + 1
        if m and cur is not None:
            i = _parse_unified(lines, i, m, cur)
            continue
        if line.startswith(b"***************") and cur is not None:
            i = _parse_context(lines, i + 1, cur)
            continue
        m2 = _NORMAL.match(line)
        if m2:
            if cur is None or cur.fmt != "normal":
                cur = FilePatch(fmt="normal", header=header, line=i + 1)
                patches.append(cur)
                header = []
            i = _parse_normal(lines, i, m2, cur)
            continue
        header.append(line)
        i += 1
    return patches


def _parse_unified(lines: list[bytes], i: int, m: re.Match[bytes], cur: FilePatch) -> int:
    old_start = int(m.group(1))
    old_len = int(m.group(2)) if m.group(2) is not None else 1
    new_len = int(m.group(4)) if m.group(4) is not None else 1
    h = PHunk(old_start if old_len else old_start + 1, new_start=int(m.group(3)))
    h.text.append(lines[i])
    i += 1
    o = nw = 0
    while i < len(lines) and (o < old_len or nw < new_len):
        line = lines[i]
        tag = line[:1]
        body = line[1:]
        if line in (b"\n",):
            tag, body = b" ", b"\n"
        if tag == b" ":
            h.old.append(body)
            h.new.append(body)
            h.kinds_old.append(" ")
            h.kinds_new.append(" ")
            o += 1
            nw += 1
        elif tag == b"-":
            h.old.append(body)
            h.kinds_old.append("-")
            o += 1
        elif tag == b"+":
            h.new.append(body)
            h.kinds_new.append("+")
            nw += 1
        elif tag == b"\\":
            pass
        else:
            break
        h.text.append(line)
        i += 1
        if i < len(lines) and lines[i].startswith(b"\\ "):
            h.text.append(lines[i])
            if tag in (b" ", b"-") and h.old:
                h.old[-1] = h.old[-1].rstrip(b"\n")
            if tag in (b" ", b"+") and h.new:
                h.new[-1] = h.new[-1].rstrip(b"\n")
            i += 1
    cur.hunks.append(h)
    return i


def _parse_context(lines: list[bytes], i: int, cur: FilePatch) -> int:
    h = PHunk(0)
    h.text.append(b"***************\n")
    m = _CTX_OLD.match(lines[i]) if i < len(lines) else None
    if m is None:
        return i
    a, b = int(m.group(1)), int(m.group(2) or m.group(1))
    h.old_start = a if b >= a and (m.group(2) or a) else a + 1
    h.text.append(lines[i])
    i += 1
    old_section: list[tuple[str, bytes]] = []
    while i < len(lines) and not _CTX_NEW.match(lines[i]):
        line = lines[i]
        h.text.append(line)
        if line.startswith(b"\\ "):
            if old_section:
                k, body = old_section[-1]
                old_section[-1] = (k, body.rstrip(b"\n"))
        else:
            old_section.append((decode(line[:1]), line[2:]))
        i += 1
    if i >= len(lines):
        return i
    m2 = _CTX_NEW.match(lines[i])
    assert m2 is not None
    h.new_start = int(m2.group(1))
    h.text.append(lines[i])
    i += 1
    new_section: list[tuple[str, bytes]] = []
    while (
        i < len(lines)
        and not lines[i].startswith(b"***************")
        and lines[i][:2] in (b"  ", b"+ ", b"! ", b"- ", b"\\ ")
    ):
        line = lines[i]
        h.text.append(line)
        if line.startswith(b"\\ "):
            if new_section:
                k, body = new_section[-1]
                new_section[-1] = (k, body.rstrip(b"\n"))
        else:
            new_section.append((decode(line[:1]), line[2:]))
        i += 1
    if not old_section:  # only additions: the old side is the new side's context
        old_section = [(" ", body) for k, body in new_section if k == " "]
    if not new_section:
        new_section = [(" ", body) for k, body in old_section if k == " "]
    for k, body in old_section:
        h.old.append(body)
        h.kinds_old.append(" " if k == " " else "-")
    for k, body in new_section:
        h.new.append(body)
        h.kinds_new.append(" " if k == " " else "+")
    if not h.old:
        h.old_start = a + 1
    cur.hunks.append(h)
    return i


def _parse_normal(lines: list[bytes], i: int, m: re.Match[bytes], cur: FilePatch) -> int:
    a1 = int(m.group(1))
    a2 = int(m.group(2) or m.group(1))
    op = m.group(3)
    h = PHunk(a1 if op != b"a" else a1 + 1)
    # the new side's first line, as GNU reports a hunk's place ("2c2" and "7a8": 2 and 8; "9d8": the
    # line after 8)
    b1 = int(m.group(4))
    h.new_start = b1 + 1 if op == b"d" else b1
    h.text.append(lines[i])
    i += 1
    while i < len(lines) and lines[i].startswith(b"< "):
        h.text.append(lines[i])
        h.old.append(lines[i][2:])
        h.kinds_old.append("-")
        i += 1
        i = _strip_eol(lines, i, h.old)
    if i < len(lines) and lines[i] == b"---\n":
        h.text.append(lines[i])
        i += 1
    while i < len(lines) and lines[i].startswith(b"> "):
        h.text.append(lines[i])
        h.new.append(lines[i][2:])
        h.kinds_new.append("+")
        i += 1
        i = _strip_eol(lines, i, h.new)
    del a2
    cur.hunks.append(h)
    return i


# ------------------------------------------------------------------ applying


def _reverse(h: PHunk) -> PHunk:
    r = PHunk(
        h.new_start if h.new else h.new_start + 1,
        list(h.new),
        list(h.old),
        ["-" if k == "+" else k for k in h.kinds_new],
        ["+" if k == "-" else k for k in h.kinds_old],
        _reversed_text(h.text),
        h.old_start,
    )
    return r


def _uni_range(start: int, count: int) -> bytes:
    return (
        b"%d,0" % (start - 1) if count == 0 else (b"%d" % start if count == 1 else b"%d,%d" % (start, count))
    )


def _reversed_text(text: list[bytes]) -> list[bytes]:
    """A unified hunk as -R reads it (what GNU writes to the .rej): the ranges swapped, and in
    each change its added lines first, as removed, then its removed lines, as added."""
    m = _UNI.match(text[0]) if text else None
    if m is None:
        return text
    old_len = int(m.group(2)) if m.group(2) is not None else 1
    new_len = int(m.group(4)) if m.group(4) is not None else 1
    head = (
        b"@@ -" + _uni_range(int(m.group(3)), new_len) + b" +" + _uni_range(int(m.group(1)), old_len) + b" @@"
    )
    out = [head + text[0][m.end() :]]
    minus: list[bytes] = []
    plus: list[bytes] = []
    for line in text[1:]:
        if line.startswith(rb"\ "):  # (it belongs to the line before it, wherever that goes)
            (plus if plus and not minus else minus if minus else out).append(line)
            continue
        tag = line[:1]
        if tag == b"-":
            plus.append(b"+" + line[1:])
        elif tag == b"+":
            minus.append(b"-" + line[1:])
        else:
            out += minus + plus
            minus, plus = [], []
            out.append(line)
    return out + minus + plus


def _matches(lines: list[bytes], pos: int, want: list[bytes], loose: bool) -> bool:
    if pos < 0 or pos + len(want) > len(lines):
        return False
    if not loose:
        return lines[pos : pos + len(want)] == want
    return all(
        b" ".join(x.split()) == b" ".join(y.split())
        for x, y in zip(lines[pos : pos + len(want)], want, strict=True)
    )


def _run(kinds: list[str]) -> int:
    """How many context lines KINDS starts with."""
    n = 0
    while n < len(kinds) and kinds[n] == " ":
        n += 1
    return n


def _locate(
    lines: list[bytes], h: PHunk, offset: int, max_fuzz: int, loose: bool
) -> tuple[int, int, int, int] | None:
    """(position, fuzz, lines dropped at the top, lines dropped at the bottom) or None."""
    want = h.old
    # the context before the first change and after the last, seen on both sides (an insertion's
    # old side is all context: its new side shows where the change sits)
    top_ctx = min(_run(h.kinds_old), _run(h.kinds_new))
    bot_ctx = min(_run(h.kinds_old[::-1]), _run(h.kinds_new[::-1]))
    # GNU patch's locate_hunk: a hunk with less context on one side than the other is anchored
    # there (less leading context: it starts the file, when it says it does; less trailing: it
    # ends the file); fuzz F lets F lines of the longer context go, and so loosens the anchor
    context = max(top_ctx, bot_ctx)
    for fuzz in range(0, min(max_fuzz, context) + 1):
        drop_top = fuzz + top_ctx - context
        drop_bot = fuzz + bot_ctx - context
        if drop_top < 0 and h.old_start <= 1:
            if drop_bot < 0 and len(want) != len(lines):
                continue  # (the hunk must be the whole file)
            if _matches(lines, 0, want[: len(want) - max(drop_bot, 0)], loose):
                return 0, fuzz, 0, max(drop_bot, 0)
            continue
        drop_top = max(drop_top, 0)
        if drop_bot < 0:
            pos = len(lines) - len(want)
            if _matches(lines, pos + drop_top, want[drop_top:], loose):
                return pos, fuzz, drop_top, 0
            continue
        sub = want[drop_top : len(want) - drop_bot]
        guess = h.old_start - 1 + offset + drop_top
        if not want:
            guess = h.old_start - 1 + offset
        limit = max(len(lines), 1)
        for delta in range(0, limit + 1):
            for pos in (guess + delta, guess - delta) if delta else (guess,):
                if _matches(lines, pos, sub, loose):
                    return pos - drop_top, fuzz, drop_top, drop_bot
    return None


def apply_hunks(
    lines: list[bytes], hunks: list[PHunk], max_fuzz: int, loose: bool
) -> tuple[list[bytes], list[tuple[int, PHunk, int | None, int, int]]]:
    """Apply hunks in order; returns the new lines and per-hunk results
    (number, hunk, reported line or None, fuzz, offset). Offsets are in the
    original file's numbering, as GNU patch reports them."""
    result = list(lines)
    shift = 0  # net lines added by the hunks applied so far
    last_offset = 0
    report: list[tuple[int, PHunk, int | None, int, int]] = []
    for num, h in enumerate(hunks, 1):
        found = _locate(result, h, last_offset + shift, max_fuzz, loose)
        if found is None:
            report.append((num, h, None, 0, 0))
            continue
        pos, fuzz, drop_top, drop_bot = found
        start = pos + drop_top
        end = pos + len(h.old) - drop_bot
        new = h.new[drop_top : len(h.new) - drop_bot] if (drop_top or drop_bot) else h.new
        result[start:end] = new
        off = (pos - shift) - (h.old_start - 1)
        last_offset = off
        shift += len(new) - (end - start)
        report.append((num, h, h.new_start + off, fuzz, off))
    # a line the patch gave no newline ends the file only where it lands last: inside the file
    # (fuzz or an offset moved it there) it gets its newline back, as GNU patch writes it
    for k in range(len(result) - 1):
        if not result[k].endswith(b"\n"):
            result[k] += b"\n"
    return result, report


def _split(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def _strip_path(name: str, strip: int | None) -> str:
    if strip is None:
        return name.rsplit("/", 1)[-1]
    parts = name.split("/")
    if strip >= len(parts):
        return parts[-1] if strip == 0 else ""
    return "/".join(parts[strip:])


@declare("patch", spec=PATCH_SPEC, effects=Effects.PATCH)
def cmd_patch(ctx: Ctx) -> int:
    opts, operands = parse(ctx, PATCH_SPEC)
    if len(operands) > 2:
        raise usage(ctx, f"{operands[2]}: extra operand")
    strip = int(opts.get("strip")) if opts.get("strip") is not None else None
    source = opts.get("input") or (operands[1] if len(operands) > 1 else "-")
    try:
        data = ctx.read_input(source)
    except FsError as e:
        ctx.error(f"**** Can't open patch file {source} : {strerror(e.errno or 5)}")
        return 2
    if opts.get("directory"):
        ctx.fs = ctx.fs.copy()
        ctx.fs.cwd = ctx.fs.normpath(opts.get("directory"))
    if not data:  # (GNU patch: empty input is nothing to do, not garbage: `git diff | patch -p1`)
        return 0
    out = Out(ctx.stdout)
    if opts.get("ed") or is_ed_script(data):
        return apply_ed(ctx, opts.get, operands, data, out)
    patches = parse_patch(data)
    if not patches or not any(p.hunks for p in patches):
        out.flush()
        ctx.error("**** Only garbage was found in the patch input.")
        return 2
    status = 0
    for p in patches:
        status = max(status, _apply_one(ctx, opts, operands, p, strip, out))
    out.flush()
    return status


def _choose_target(ctx: Ctx, p: FilePatch, strip: int | None) -> tuple[str, bool]:
    """(file to patch, whether it is being created)."""
    names = []
    for raw in (p.old_name, p.new_name):
        if raw and raw != "/dev/null":
            names.append(_strip_path(raw, strip))
    for n in names:
        if n and ctx.fs.exists(n):
            return n, False
    creating = p.old_name == "/dev/null" or (p.hunks and all(not h.old for h in p.hunks))
    return (names[-1] if names else ""), bool(creating)


def _apply_one(ctx: Ctx, opts: object, operands: list[str], p: FilePatch, strip: int | None, out: Out) -> int:
    get = opts.get  # type: ignore[attr-defined]
    dry = bool(get("dry_run"))
    silent = bool(get("silent"))
    if operands:
        target, creating = operands[0], not ctx.fs.exists(operands[0])
    else:
        target, creating = _choose_target(ctx, p, strip)
    if not target or (not creating and not ctx.fs.exists(target)):
        shown = "".join("|" + decode(x) for x in p.header[-2:])
        n = len(p.hunks)
        # (GNU's hint differs once a -p was given)
        hint = "you used the wrong" if strip is not None else "you should have used the"
        out.write(
            encode(
                f"can't find file to patch at input line {p.line}\n"
                f"Perhaps {hint} -p or --strip option?\n"
                "The text leading up to this was:\n--------------------------\n"
                f"{shown}--------------------------\nFile to patch: \nSkip this patch? [y] \n"
                f"Skipping patch.\n{n} out of {n} hunk{'s' if n != 1 else ''} ignored\n"
            )
        )
        return 1
    output = get("output") or target
    if not silent:
        verb = "checking" if dry else "patching"
        read_from = f" (read from {target})" if output != target else ""
        out.write(encode(f"{verb} file {output}{read_from}\n"))
    try:
        original = b"" if creating else ctx.fs.read_bytes(target)
    except FsError as e:
        out.flush()
        ctx.error(f"**** Can't open file {target} : {strerror(e.errno or 5)}")
        return 1
    lines = _split(original)
    hunks = [_reverse(h) for h in p.hunks] if get("reverse") else p.hunks
    max_fuzz = int(get("fuzz")) if get("fuzz") is not None else 2
    loose = bool(get("ignore_whitespace"))
    new_lines, report = apply_hunks(lines, hunks, max_fuzz, loose)
    failed = [r for r in report if r[2] is None]
    assumed_reverse = False
    if failed and len(failed) == len(report) and not get("force"):
        # maybe it was already applied (or the patch is reversed); -f asks nothing and applies as is
        rev = [_reverse(h) for h in hunks]
        _, rrep = apply_hunks(lines, rev, 0, loose)
        if all(r[2] is not None for r in rrep):
            # (with -R given, what it finds is a patch that is not reversed)
            r = bool(get("reverse"))
            out.write(
                b"Unreversed patch detected!  "
                if r
                else b"Reversed (or previously applied) patch detected!  "
            )
            if get("forward"):
                out.write(b"Skipping patch.\n")
            elif get("batch"):
                out.write(b"Ignoring -R.\n" if r else b"Assuming -R.\n")
                hunks = rev
                assumed_reverse = True
                new_lines, report = apply_hunks(lines, hunks, max_fuzz, loose)
                failed = [r for r in report if r[2] is None]
            else:
                out.write(b"Ignore -R? [n] \n" if r else b"Assume -R? [n] \n")
                out.write(b"Apply anyway? [n] \nSkipping patch.\n")
            if not get("batch"):
                return _rejects(ctx, get, out, p, output, report, skipped=True, dry=dry)
    for num, _h, at, fuzz, off in report:
        if at is None:
            if not silent:
                out.write(encode(f"Hunk #{num} FAILED at {_h.old_start}.\n"))
        elif (fuzz or off) and not silent:
            msg = f"Hunk #{num} succeeded at {at}"
            if fuzz:
                msg += f" with fuzz {fuzz}"
            if off:
                msg += f" (offset {off} line{'s' if abs(off) != 1 else ''})"
            out.write(encode(msg + ".\n"))
    if not dry:
        data = b"".join(new_lines)
        try:
            if not creating and (
                get("backup") or (_backs_up_mismatch(ctx, get) and _mismatched(report, assumed_reverse))
            ):
                ctx.fs.write_bytes(target + (get("suffix") or ".orig"), original)
            removing = p.new_name == "/dev/null" or (get("remove_empty_files") and not data)
            if removing and not data and not get("output"):
                ctx.fs.unlink(target)
            else:
                if "/" in output:
                    parent = output.rsplit("/", 1)[0]
                    if parent and not ctx.fs.exists(parent):
                        ctx.fs.mkdir(parent, parents=True)
                replace_bytes(ctx.fs, output, data, prefix=".patch", rng=ctx.rng)  # whole, or not at all
        except FsError as e:
            out.flush()
            ctx.error(f"{output}: {strerror(e.errno or 5)}")
            return 2
    if failed:
        return _rejects(ctx, get, out, p, output, report, skipped=False, dry=dry)
    return 0


def _backs_up_mismatch(ctx: Ctx, get: Callable[[str], object]) -> bool:
    """GNU patch backs up a file its patch did not fit exactly unless told not to, or POSIXLY_CORRECT
    is set (then only --backup-if-mismatch asks for it); not when the result goes elsewhere (-o)."""
    if get("output") or get("no_backup_if_mismatch"):
        return False
    return bool(get("backup_if_mismatch")) or "POSIXLY_CORRECT" not in ctx.env


def _mismatched(report: list[tuple[int, PHunk, int | None, int, int]], reversed_: bool) -> bool:
    """A hunk failed, or needed fuzz or an offset, or the patch applied only reversed (-t)."""
    return reversed_ or any(at is None or fuzz or off for _num, _h, at, fuzz, off in report)


def _rejects(
    ctx: Ctx,
    get: object,
    out: Out,
    p: FilePatch,
    output: str,
    report: list[tuple[int, PHunk, int | None, int, int]],
    skipped: bool,
    dry: bool,
) -> int:
    fetch = get
    failed = [r for r in report if r[2] is None] if not skipped else report
    total = len(report)
    rej = fetch("reject_file") or output + ".rej"  # type: ignore[operator]
    word = "ignored" if skipped else "FAILED"
    if dry:
        out.write(encode(f"{len(failed)} out of {total} hunk{'s' if total != 1 else ''} {word}\n"))
        return 1
    out.write(
        encode(
            f"{len(failed)} out of {total} hunk{'s' if total != 1 else ''} {word} -- saving rejects to "
            f"file {rej}\n"
        )
    )
    # the header's names as -p strips them (a basename without -p), their time stamps kept
    strip = fetch("strip")  # type: ignore[operator]
    depth = int(strip) if strip is not None else None
    body = b"".join(_renamed(line, depth) for line in p.header[-2:]) if p.fmt != "normal" else b""
    for _num, h, _at, _f, _o in failed:
        for line in h.text:
            if line.startswith(b"\\ "):  # (GNU writes the line before it without its newline instead)
                body = body[:-1] if body.endswith(b"\n") else body
                continue
            body += line
    try:
        ctx.fs.write_bytes(rej, body)
    except FsError as e:
        ctx.error(f"{rej}: {strerror(e.errno or 5)}")
    return 1


def _renamed(line: bytes, strip: int | None) -> bytes:
    """A ---/+++/*** header line with its file name stripped as -p STRIP strips it."""
    mark, _, rest = line.partition(b" ")
    name, tab, tail = rest.partition(b"\t")
    short = _strip_path(decode(name.rstrip(b"\n")), strip)
    return mark + b" " + (encode(short) if short else name.rstrip(b"\n")) + (tab + tail if tab else b"\n")
