"""tr: translate, squeeze and delete bytes (GNU tr works on bytes, not characters)."""

from __future__ import annotations

import re

from ..stdio.streams import StreamError
from ..syntax.escapes import decode_pieces
from ..vfs.errors import FsError, strerror
from .context import CommandExit, Ctx
from .options import CommandSpec, Opt
from .record import WRITE_ERROR_TWICE, Effects, declare
from .textbasic.common import Out, quote, read_chunks, usage_fail

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes without importing dataclasses and inspect (~6 ms of a first run)
    from ..leanclass import dataclass

TR_SPEC = CommandSpec(
    name="tr",
    stop_at_operand=True,  # GNU tr stops option parsing at the first operand
    usage="[OPTION]... STRING1 [STRING2]",
    summary="Translate, squeeze, and/or delete characters from standard input, writing to standard output.",
    opts=(
        Opt("c", "complement", dest="complement", help="use the complement of ARRAY1"),
        Opt("C", None, dest="complement"),
        Opt("d", "delete", help="delete characters in ARRAY1, do not translate"),
        Opt(
            "s",
            "squeeze-repeats",
            help="replace each sequence of a repeated character listed in the last "
            "specified ARRAY, with a single occurrence of that character",
        ),
        Opt("t", "truncate-set1", help="first truncate ARRAY1 to length of ARRAY2"),
    ),
)


CLASSES: dict[str, list[int]] = {
    "alnum": [c for c in range(256) if chr(c).isalnum() and c < 128],
    "alpha": [c for c in range(256) if chr(c).isalpha() and c < 128],
    "blank": [9, 32],
    "cntrl": [*range(32), 127],
    "digit": list(range(48, 58)),
    "graph": list(range(33, 127)),
    "lower": list(range(97, 123)),
    "print": list(range(32, 127)),
    "punct": [c for c in range(33, 127) if not chr(c).isalnum()],
    "space": [9, 10, 11, 12, 13, 32],
    "upper": list(range(65, 91)),
    "xdigit": [*range(48, 58), *range(65, 71), *range(97, 103)],
}


@dataclass
class _Elem:
    kind: str  # "char", "range", "class", "equiv", "repeat"
    chars: list[int]
    name: str = ""
    count: int | None = None  # repeat: None = fill


class TrError(Exception):
    pass


def _printable(text: bytes) -> str:
    """GNU tr's make_printable_str: C escapes for controls, octal for other unprintable bytes."""
    escapes = {7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r"}
    return "".join(escapes.get(b) or (chr(b) if 32 <= b < 127 else f"\\{b:03o}") for b in text)


def _unescape(ctx: Ctx, text: str) -> list[tuple[int, bool]]:
    """Bytes of a SET with backslash escapes resolved: (byte, was_escaped)."""
    notes: list[str] = []
    out = [
        (b, escaped)
        for piece, escaped in decode_pieces(text, "tr", notes)
        for b in piece.encode("utf-8", "surrogateescape")
    ]
    for note in notes:
        if note.startswith("\\"):  # \NNN past 255: GNU reads two digits and a plain one
            ctx.error(
                f"warning: the ambiguous octal escape {note} is being\n\tinterpreted as the 2-byte sequence "
                f"\\0{note[1:3]}, {note[3]}"
            )
    if (len(text) - len(text.rstrip("\\"))) % 2:
        ctx.error("warning: an unescaped backslash at end of string is not portable")
        out[-1] = (0x5C, True)
    return out


def parse_set(ctx: Ctx, text: str, second: bool) -> list[_Elem]:
    chars = _unescape(ctx, text)
    elems: list[_Elem] = []
    i = 0
    n = len(chars)
    while i < n:
        c, esc = chars[i]
        if c == 0x5B and not esc and i + 1 < n:  # '['
            nxt = chars[i + 1][0]
            if nxt in (0x3A, 0x3D) and not chars[i + 1][1]:  # [: or [=
                end = _find_close(chars, i + 2, nxt)
                if end is not None:
                    body = bytes(b for b, _ in chars[i + 2 : end])
                    if nxt == 0x3A:
                        name = body.decode("latin-1")
                        if name not in CLASSES:
                            ctx.error(f"invalid character class {quote(ctx, name)}")
                            raise CommandExit(1)
                        elems.append(_Elem("class", CLASSES[name], name))
                    else:
                        if len(body) != 1:
                            ctx.error(
                                f"{_printable(body)}: equivalence class operand must be a single character"
                            )
                            raise CommandExit(1)
                        elems.append(_Elem("equiv", [body[0]]))
                    i = end + 2
                    continue
            # [c*n] / [c*]
            if i + 2 < n and chars[i + 2] == (0x2A, False):
                j = i + 3
                while j < n and chars[j][0] != 0x5D:
                    j += 1
                if j < n:
                    count_text = bytes(b for b, _ in chars[i + 3 : j]).decode("latin-1")
                    count: int | None = None
                    if count_text:
                        try:
                            count = int(count_text, 8 if count_text.startswith("0") else 10)
                        except ValueError:
                            ctx.error(f"invalid repeat count {quote(ctx, count_text)} in [c*n] construct")
                            raise CommandExit(1)
                        if count == 0:
                            count = None
                    elems.append(_Elem("repeat", [nxt], count=count))
                    i = j + 1
                    continue
        if i + 2 < n and chars[i + 1] == (0x2D, False):
            hi = chars[i + 2][0]
            if hi < c:
                a, b = _show(c), _show(hi)
                ctx.error(f"range-endpoints of '{a}-{b}' are in reverse collating sequence order")
                raise CommandExit(1)
            elems.append(_Elem("range", list(range(c, hi + 1))))
            i += 3
            continue
        elems.append(_Elem("char", [c]))
        i += 1
    return elems


def _show(c: int) -> str:
    """A range endpoint as GNU prints it: octal escapes for unprintable bytes."""
    return chr(c) if 32 <= c < 127 else f"\\{c:03o}"


def _find_close(chars: list[tuple[int, bool]], start: int, mark: int) -> int | None:
    for j in range(start, len(chars) - 1):
        if chars[j][0] == mark and chars[j + 1][0] == 0x5D:
            return j if j > start else None
    return None


def _expand(elems: list[_Elem], fill_to: int = 0) -> list[int]:
    fixed = sum(len(e.chars) * (e.count or 0) if e.kind == "repeat" else len(e.chars) for e in elems)
    out: list[int] = []
    for e in elems:
        if e.kind == "repeat":
            count = e.count if e.count is not None else max(fill_to - fixed, 0)
            out.extend(e.chars * count)
        else:
            out.extend(e.chars)
    return out


def _offsets(elems: list[_Elem]) -> list[tuple[int, _Elem]]:
    pos = 0
    out = []
    for e in elems:
        out.append((pos, e))
        pos += len(e.chars) * (e.count or 1) if e.kind == "repeat" else len(e.chars)
    return out


@declare("tr", spec=TR_SPEC, effects=Effects.NONE, write_failure=WRITE_ERROR_TWICE)
def cmd_tr(ctx: Ctx) -> int:
    opts, sets = ctx.parse(TR_SPEC)
    comp = bool(opts.get("complement"))
    delete = bool(opts.get("delete"))
    squeeze = bool(opts.get("squeeze_repeats"))
    truncate = bool(opts.get("truncate_set1"))
    translating = not delete and len(sets) == 2
    lo = 1 + (delete == squeeze)
    hi = 1 + (delete <= squeeze)
    if len(sets) < lo:
        if not sets:
            raise usage_fail(ctx, "missing operand")
        extra = (
            "Two strings must be given when both deleting and squeezing repeats."
            if squeeze
            else "Two strings must be given when translating."
        )
        raise usage_fail(ctx, f"missing operand after {quote(ctx, sets[-1])}\n{extra}")
    if len(sets) > hi:
        extra = (
            "\nOnly one string may be given when deleting without squeezing repeats."
            if len(sets) == 2
            else ""
        )
        raise usage_fail(ctx, f"extra operand {quote(ctx, sets[hi])}{extra}")
    elems1 = parse_set(ctx, sets[0], False)
    elems2 = parse_set(ctx, sets[1], True) if len(sets) > 1 else None
    if any(e.kind == "repeat" and e.count is None for e in elems1):
        raise _tr_die(ctx, "the [c*] repeat construct may not appear in string1")
    set1 = _expand(elems1)
    if comp:
        present = set(set1)
        set1 = [c for c in range(256) if c not in present]
    table: bytes | None = None
    used2: list[int] = []
    if elems2 is not None:
        if sum(1 for e in elems2 if e.kind == "repeat" and e.count is None) > 1:
            raise _tr_die(ctx, "only one [c*] repeat construct may appear in string2")
        if not translating and any(e.kind == "repeat" and e.count is None for e in elems2):
            raise _tr_die(ctx, "the [c*] construct may appear in string2 only when translating")
    if translating:
        assert elems2 is not None
        table, used2 = _translation(ctx, set1, elems1, elems2, truncate, comp)
    delete_bytes = bytes(sorted(set(set1))) if delete else None
    squeeze_set: list[int] = []
    if squeeze:
        if translating:
            squeeze_set = used2
        elif elems2 is not None and delete:
            squeeze_set = _expand(elems2)
        else:
            squeeze_set = set1
    return _run(ctx, table, delete_bytes, squeeze_set)


def _tr_die(ctx: Ctx, message: str) -> CommandExit:
    ctx.error(message)
    return CommandExit(1)


def _translation(
    ctx: Ctx, set1: list[int], elems1: list[_Elem], elems2: list[_Elem], truncate: bool, comp: bool
) -> tuple[bytes, list[int]]:
    """The translation table and the string2 characters as used (for -s)."""
    if any(e.kind == "equiv" for e in elems2):
        raise _tr_die(ctx, "[=c=] expressions may not appear in string2 when translating")
    for e in elems2:
        if e.kind == "class" and e.name not in ("upper", "lower"):
            ctx.error(
                "when translating, the only character classes that may appear in\n"
                "string2 are 'upper' and 'lower'"
            )
            raise CommandExit(1)
    starts1 = {pos: e for pos, e in _offsets(elems1)}
    len1 = len(_expand(elems1))
    for pos, e in _offsets(elems2):
        if pos > len1:
            break  # GNU stops checking once string1 has run out
        if e.kind == "class":
            other = starts1.get(pos)
            if comp or other is None or other.kind != "class" or other.name not in ("upper", "lower"):
                if comp:
                    break
                ctx.error("misaligned [:upper:] and/or [:lower:] construct")
                raise CommandExit(1)
    set2 = _expand(elems2, len(set1))
    if not set2:
        if truncate or not set1:
            return bytes(range(256)), []
        ctx.error("when not truncating set1, string2 must be non-empty")
        raise CommandExit(1)
    if len(set2) < len(set1):
        if truncate:
            set1 = set1[: len(set2)]
        else:
            if elems2 and elems2[-1].kind == "class":
                ctx.error(
                    "when translating with string1 longer than string2,\n"
                    "the latter string must not end with a character class"
                )
                raise CommandExit(1)
            set2 = set2 + [set2[-1]] * (len(set1) - len(set2))
    if (
        comp
        and any(e.kind == "class" for e in elems1)
        and not (len(set2) == len(set1) and len(set(set2)) <= 1)
    ):
        raise _tr_die(
            ctx,
            "when translating with complemented character classes,\n"
            "string2 must map all characters in the domain to one",
        )
    table = bytearray(range(256))
    for a, b in zip(set1, set2, strict=False):
        table[a] = b
    return bytes(table), set2


def _run(ctx: Ctx, table: bytes | None, delete: bytes | None, squeeze: list[int]) -> int:
    out = Out(ctx.stdout)
    squeeze_rx = None
    if squeeze:
        squeeze_rx = re.compile(b"([" + re.escape(bytes(sorted(set(squeeze)))) + b"])\\1+")
        squeezable = set(squeeze)
    last = -1
    try:
        for chunk in read_chunks(ctx, ctx.stdin):
            if table is not None or delete is not None:
                chunk = chunk.translate(table, delete) if delete is not None else chunk.translate(table)
            if squeeze_rx is not None and chunk:
                chunk = squeeze_rx.sub(rb"\1", chunk)
                # a run may continue across the chunk boundary
                if last in squeezable:
                    k = 0
                    while k < len(chunk) and chunk[k] == last:
                        k += 1
                    chunk = chunk[k:]
                if chunk:
                    last = chunk[-1]
            out.write(chunk)
    except (FsError, StreamError) as e:
        out.flush()
        ctx.error(f"read error: {strerror(e.errno or 5)}")
        return 1
    out.flush()
    return 0
