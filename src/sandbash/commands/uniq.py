"""uniq: report or omit repeated lines, streaming one group at a time."""

from __future__ import annotations

import errno
import re
from collections.abc import Callable
from itertools import chain, compress, groupby
from operator import ne, sub

from ..stdio.streams import Stream, StreamError, StreamReadError
from ..vfs.errors import FsError, strerror
from .context import CommandExit, Ctx
from .options import CommandSpec, Opt
from .record import Effects, declare
from .textbasic.common import Out, argmatch, close_input, quoteaf, quotef, split_records, usage_fail

UNIQ_SPEC = CommandSpec(
    name="uniq",
    usage="[OPTION]... [INPUT [OUTPUT]]",
    summary="Filter adjacent matching lines from INPUT (or standard input), writing to OUTPUT (or standard output).",
    numeric="skip_fields",
    opts=(
        Opt("c", "count", help="prefix lines by the number of occurrences"),
        Opt("d", "repeated", help="only print duplicate lines, one for each group"),
        Opt("D", None, dest="all_repeated_plain", help="print all duplicate lines"),
        Opt(
            None,
            "all-repeated",
            arg="optional",
            metavar="METHOD",
            help="like -D, but allow separating groups with an empty line; METHOD={none(default),prepend,separate}",
        ),
        Opt("f", "skip-fields", arg="required", metavar="N", help="avoid comparing the first N fields"),
        Opt(
            None,
            "group",
            arg="optional",
            metavar="METHOD",
            help="show all items, separating groups with an empty line; METHOD={separate(default),prepend,append,both}",
        ),
        Opt("i", "ignore-case", help="ignore differences in case when comparing"),
        Opt("s", "skip-chars", arg="required", metavar="N", help="avoid comparing the first N characters"),
        Opt("u", "unique", help="only print unique lines"),
        Opt("z", "zero-terminated", help="line delimiter is NUL, not newline"),
        Opt(
            "w", "check-chars", arg="required", metavar="N", help="compare no more than N characters in lines"
        ),
    ),
)

# one field with the blanks before it (isblank: space, tab); matched once per skipped field, so a
# count such as -f 99999999999 never sizes a pattern
_FIELD = re.compile(rb"[ \t]*[^ \t]*")
_FOLD = bytes.maketrans(b"abcdefghijklmnopqrstuvwxyz", b"ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_MAXSIZE = 2**63 - 1


def _size_arg(ctx: Ctx, text: str, what: str) -> int:
    try:
        value = int(text, 10)
    except ValueError:
        value = -1
    if value < 0 or not text.strip().lstrip("+").isdigit():
        ctx.error(f"{text}: invalid number of {what}")
        raise CommandExit(1)
    return min(value, _MAXSIZE)


def _skip_fields(line: bytes, fields: int) -> int:
    """Where the comparison starts once `fields` fields are skipped (stops at the end of the line)."""
    pos, end, match = 0, len(line), _FIELD.match
    while fields and pos < end:
        pos = match(line, pos).end()  # type: ignore[union-attr]  # matches at least one byte here
        fields -= 1
    return pos


def _key_fn(fields: int, chars: int, width: int | None, fold: bool) -> Callable[[bytes], bytes] | None:
    if not fields and not chars and width is None and not fold:
        return None

    def key(line: bytes) -> bytes:
        pos = _skip_fields(line, fields) if fields else 0
        k = line[pos + chars :] if chars else line[pos:]
        if width is not None:
            k = k[:width]
        return k.translate(_FOLD) if fold else k

    return key


def _args(args: list[str]) -> list[str]:
    """GNU's obsolete `+N` (skip N characters)."""
    out: list[str] = []
    for i, a in enumerate(args):
        if a == "--":
            out.extend(args[i:])
            break
        if len(a) > 1 and a[0] == "+" and a[1:].isdigit():
            out.extend(["-s", a[1:]])
        else:
            out.append(a)
    return out


def _read_error(name: str) -> str:
    """GNU uniq's words for an input it opened and could not read (no errno)."""
    return f"error reading {quoteaf(name)}"


@declare("uniq", spec=UNIQ_SPEC, effects=Effects.IN_OUT)
def cmd_uniq(ctx: Ctx) -> int:
    opts, operands = ctx.parse(UNIQ_SPEC, _args(list(ctx.args)))
    if len(operands) > 2:
        from .textbasic.common import quote

        raise usage_fail(ctx, f"extra operand {quote(ctx, operands[2])}")
    fields = chars = 0
    width: int | None = None
    for key, value in opts.order:
        if key == "skip_fields":
            fields = _size_arg(ctx, value, "fields to skip")
        elif key == "skip_chars":
            chars = _size_arg(ctx, value, "bytes to skip")
        elif key == "check_chars":
            width = _size_arg(ctx, value, "bytes to compare")
    count = bool(opts.get("count"))
    repeated = bool(opts.get("repeated"))
    unique = bool(opts.get("unique"))
    all_rep: str | None = None
    for (
        key,
        value,
    ) in opts.order:  # -D and --all-repeated[=METHOD] are one option: the last one sets the method
        if key == "all_repeated_plain" or (key == "all_repeated" and value is None):
            all_rep = "none"
        elif key == "all_repeated":
            all_rep = argmatch(
                ctx,
                "--all-repeated",
                value,
                [("none", "none"), ("prepend", "prepend"), ("separate", "separate")],
            )
    group: str | None = None
    if opts.has("group"):
        v = opts.get("group")
        group = (
            "separate"
            if v is None
            else argmatch(
                ctx,
                "--group",
                v,
                [("prepend", "prepend"), ("append", "append"), ("separate", "separate"), ("both", "both")],
            )
        )
    if group is not None and (count or repeated or unique or all_rep is not None):
        raise usage_fail(ctx, "--group is mutually exclusive with -c/-d/-D/-u")
    if count and all_rep is not None:
        raise usage_fail(ctx, "printing all duplicated lines and repeat counts is meaningless")
    sep = b"\0" if opts.get("zero_terminated") else b"\n"
    keyfn = _key_fn(fields, chars, width, bool(opts.get("ignore_case")))

    in_name = operands[0] if operands else "-"
    try:
        stream = ctx.open_in(in_name)
    except FsError as e:  # (a directory opens in GNU and fails at its first read)
        ctx.error(
            _read_error(in_name)
            if e.errno == errno.EISDIR
            else f"{quotef(in_name)}: {strerror(e.errno or 5)}"
        )
        return 1
    out_stream: Stream = ctx.stdout
    if len(operands) > 1 and operands[1] != "-":
        try:
            out_stream = ctx.open_out(operands[1])
        except FsError as e:
            close_input(ctx, in_name, stream)
            ctx.error(f"{quotef(operands[1])}: {strerror(e.errno or 5)}")
            return 1
    out = Out(out_stream)
    emit = _Emitter(out, sep, count, repeated, unique, all_rep, group)
    try:
        if all_rep is None and group is None:
            _simple(ctx, stream, out, sep, keyfn, count, repeated, unique)
            return 0
        prev: bytes | None = None
        prev_key: bytes | None = None
        for lines, _tail in split_records(ctx, stream, sep):
            for line in lines:
                k = keyfn(line) if keyfn is not None else line
                if prev is not None and k == prev_key:
                    emit.same(line)
                else:
                    emit.new(line)
                    prev_key = k
                prev = line
        emit.finish()
    except StreamReadError:
        ctx.error(_read_error(in_name))
        return 1
    except (FsError, StreamError) as e:
        ctx.error(f"{quotef(in_name)}: {strerror(e.errno or 5)}")
        return 1
    finally:
        close_input(ctx, in_name, stream)
        out.flush()
        if out_stream is not ctx.stdout:
            out_stream.close()
    return 0


def _simple(
    ctx: Ctx,
    stream: Stream,
    out: Out,
    sep: bytes,
    keyfn: Callable[[bytes], bytes] | None,
    count: bool,
    repeated: bool,
    unique: bool,
) -> None:
    """The common modes (plain, -c, -d, -u) without per-line method calls."""
    first: bytes | None = None
    first_key: bytes | None = None
    n = 0

    def flush() -> None:
        if first is None or (n > 1 and unique) or (n == 1 and repeated):
            return
        out.write((b"%7d " % n + first + sep) if count else first + sep)

    with ctx.hold_memory() as mem:
        for lines, _tail in split_records(ctx, stream, sep):
            head = lines[:_SAMPLE_LINES]
            if _short_runs(head if keyfn is None else list(map(keyfn, head))):
                # most lines start a group (unsorted input): the groups of the whole batch at once
                mem.set(_RUN_BYTES * len(lines))
                keys = lines if keyfn is None else list(map(keyfn, lines))
                starts, counts = _runs(keys)
                if first is not None and keys[0] == first_key:
                    counts[0] += n  # the group goes on from the previous batch
                    firsts = [first, *map(lines.__getitem__, starts[1:])]
                else:
                    flush()
                    firsts = list(map(lines.__getitem__, starts))
                # the last group may go on in the next batch: it waits
                first, first_key, n = firsts.pop(), keys[starts[-1]], counts.pop()
                _write_groups(out, sep, firsts, counts, count, repeated, unique)
                mem.set(0)
                continue
            # groupby walks each run of equal keys in C: sorted input has long runs
            for k, run in groupby(lines, keyfn):
                members = list(run)
                if first is not None and k == first_key:
                    n += len(members)  # the run goes on from the previous chunk
                    continue
                flush()
                first, first_key, n = members[0], k, len(members)
    flush()


_SAMPLE_LINES = 256  # lines of a batch looked at to choose how to find its groups
_RUN_BYTES = 160  # bytes per line of the lists _runs and _write_groups make (pointers, indices, output)
_PREFIX = [b"%7d " % i for i in range(256)]  # -c's count column for the common counts


def _short_runs(sample: list[bytes]) -> bool:
    """Whether the batch's groups are short (on average at most 4 lines, judged on the keys of its
    first lines): then comparing every neighbouring pair at once beats groupby's step per group,
    which wins on sorted input's long runs."""
    changes: int = sum(map(ne, sample[1:], sample[:-1]))
    return changes * 4 >= len(sample)


def _runs(keys: list[bytes]) -> tuple[list[int], list[int]]:
    """Where each group of equal neighbouring keys starts, and its length, for a non-empty batch."""
    starts = [0]
    starts += compress(range(1, len(keys)), map(ne, keys[1:], keys[:-1]))
    ends = starts[1:]
    ends.append(len(keys))
    return starts, list(map(sub, ends, starts))


def _write_groups(
    out: Out, sep: bytes, firsts: list[bytes], counts: list[int], count: bool, repeated: bool, unique: bool
) -> None:
    """What `flush` writes for each group, written as one block."""
    if repeated or unique:  # -d: groups of more than one line; -u: of one
        keep = list(map((1).__lt__ if repeated else (1).__eq__, counts))
        firsts = list(compress(firsts, keep))
        counts = list(compress(counts, keep))
        if repeated and unique:
            return  # (-d -u: no group is both)
    if not firsts:
        return
    if not count:
        out.write(sep.join(chain(firsts, (b"",))))  # (no copy of the block to add the last sep)
        return
    # count, line, sep laid out in one list and joined once: no bytes object made per group
    parts = [sep] * (3 * len(firsts))
    if max(counts) < len(_PREFIX):
        parts[0::3] = map(_PREFIX.__getitem__, counts)
    else:
        parts[0::3] = [b"%7d " % c for c in counts]
    parts[1::3] = firsts
    out.write(b"".join(parts))


class _Emitter:
    """Decides what each group prints: the first line, all lines, a count, separators."""

    def __init__(
        self,
        out: Out,
        sep: bytes,
        count: bool,
        repeated: bool,
        unique: bool,
        all_rep: str | None,
        group: str | None,
    ) -> None:
        self.out = out
        self.sep = sep
        self.count = count
        self.repeated = repeated or all_rep is not None
        self.unique = unique
        self.all_rep = all_rep
        self.group = group
        self.first: bytes | None = None
        self.n = 0
        self.groups_out = 0
        self.rest: list[bytes] = []

    def new(self, line: bytes) -> None:
        if self.first is not None:
            self._flush_group()
        self.first = line
        self.n = 1
        self.rest = []
        if self.group is not None:
            if self.group in ("prepend", "both") or (
                self.groups_out and self.group in ("separate", "append")
            ):
                self.out.write(self.sep)
            self.out.write(line + self.sep)
            self.groups_out += 1

    def same(self, line: bytes) -> None:
        self.n += 1
        if self.group is not None:
            self.out.write(line + self.sep)
        elif self.all_rep is not None:
            self.rest.append(line)

    def _flush_group(self) -> None:
        if self.group is not None:
            return
        first = self.first
        assert first is not None
        n = self.n
        if self.all_rep is not None:
            if n < 2:
                return
            if self.all_rep == "prepend" or (self.all_rep == "separate" and self.groups_out):
                self.out.write(self.sep)
            self.groups_out += 1
            lines = [first, *self.rest]
            # GNU writes each line as the next one matches it: with -u the group's last line,
            # the one no line matched after, is left out (it differs when -f/-s/-w/-i match lines
            # that are not the same)
            for line in lines[:-1] if self.unique else lines:
                self.out.write(line + self.sep)
            return
        if (n > 1 and self.unique) or (n == 1 and self.repeated):
            return
        if self.count:
            self.out.write(b"%7d " % n + first + self.sep)
        else:
            self.out.write(first + self.sep)

    def finish(self) -> None:
        if self.first is not None:
            self._flush_group()
        if self.group in ("append", "both") and self.groups_out:
            self.out.write(self.sep)
