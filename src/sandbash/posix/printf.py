"""printf's format language (shared by the builtin and /usr/bin/printf).

`format_printf(fmt, args, ...)` returns (output, status, errors). Errors are
reported through a callback so the builtin and the command word them the same.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

from ..expand.quoting import printf_q
from ..syntax.escapes import decode_escapes, decode_raw, locale_escapes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import tzinfo

    from .longdouble import LongDouble

_INT_CONV = "diouxXc"
_ESCAPED_PERCENT = re.compile(r"\\\\|\\(?:[0-7]{1,3}|x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8})")
_FLOAT_CONV = "eEfFgGaA"


def _char_code(arg: str, byte_chars: bool = False) -> int:
    """'X: the code of the character after the quote (`byte_chars`, a C locale: of its first byte)."""
    ch = arg[1:2]
    if not ch:
        return 0
    data = ch.encode("utf-8", "surrogateescape")
    if len(data) == 1 or byte_chars:
        return data[0]
    return ord(ch)


def _c_int(value: int, conv: str, flags: str, width: str, prec: str | None) -> str:
    """C printf's integer conversions: a precision pads the digits with zeros,
    disables the 0 flag, and `.0` prints nothing for zero (`%#.0o` keeps one 0);
    `#` adds 0 (octal) or 0x/0X (non-zero hex); + and space sign signed values."""
    digits = format(abs(value), {"o": "o", "x": "x", "X": "X"}.get(conv, "d"))
    if prec is not None:
        digits = "" if value == 0 and not int(prec or 0) else digits.zfill(int(prec or 0))
    prefix = ""
    if "#" in flags and conv == "o" and not digits.startswith("0"):
        digits = "0" + digits
    elif "#" in flags and conv in "xX" and value != 0:
        prefix = "0" + conv
    if conv in "di":
        prefix = "-" if value < 0 else "+" if "+" in flags else " " if " " in flags else ""
    w = int(width or 0)
    if "-" in flags:
        return (prefix + digits).ljust(w)
    if "0" in flags and prec is None:
        return prefix + digits.zfill(w - len(prefix))
    return (prefix + digits).rjust(w)


def bad_number(arg: str, converted: bool, quote: Callable[[str], str] | None) -> str:
    """What printf says of an argument that is not all a number. `converted`: a number starts it.
    bash's builtin (sh_invalidnum) words it by how the argument starts; coreutils (`quote` given,
    verify_numeric) by whether any of it was converted."""
    if quote is not None:
        return (
            f"{quote(arg)}: {'value not completely converted' if converted else 'expected a numeric value'}"
        )
    if arg[:1] == "0" and arg[1:2] in _DIGITS:
        return f"{arg}: invalid octal number"
    if arg[:2] == "0x":
        return f"{arg}: invalid hex number"
    return f"{arg}: invalid number"


def _out_of_range(arg: str, quote: Callable[[str], str] | None) -> str:
    # (bash's builtin warns and goes on; coreutils fails with the status 1)
    return (
        f"{quote(arg)}: Numerical result out of range"
        if quote
        else f"warning: {arg}: Numerical result out of range"
    )


_DIGITS = frozenset("0123456789")


def parse_int(
    arg: str,
    report: Callable[[str], None],
    unsigned: bool = False,
    byte_chars: bool = False,
    quote: Callable[[str], str] | None = None,
) -> tuple[int, bool]:
    """printf number parsing (strtoimax/strtoumax): decimal, 0octal, 0xhex,
    'c (char code; `byte_chars`: its first byte); leading blanks allowed, out-of-range values clamped.
    `quote`: coreutils' wording (bad_number)."""
    s = arg.lstrip(" \t\n\v\f\r")
    if s[:1] in ("'", '"'):
        return _char_code(s, byte_chars), True
    if not s:
        if arg:  # blanks alone: nothing converted
            report(bad_number(arg, False, quote))
            return 0, False
        return 0, True
    neg = False
    body = s
    if body[0] in "+-":
        neg = body[0] == "-"
        body = body[1:]
    if body[:2].lower() == "0x":
        base, digits, allowed = 16, body[2:], "0123456789abcdefABCDEF"
    elif len(body) > 1 and body[0] == "0":
        base, digits, allowed = 8, body, "01234567"
    else:
        base, digits, allowed = 10, body, "0123456789"
    k = 0
    while k < len(digits) and digits[k] in allowed:
        k += 1
    value = int(digits[:k], base) if k else 0
    if k != len(digits) or not k:
        # the longest valid prefix counts (`0x` alone is the number 0), the rest is an error
        report(bad_number(arg, bool(k) or base == 16, quote))
        return (-value if neg else value), False
    if unsigned:
        if value > (1 << 64) - 1:
            report(_out_of_range(arg, quote))
            return (1 << 64) - 1, True
        return ((-value) % (1 << 64)) if neg else value, True
    value = -value if neg else value
    if value > (1 << 63) - 1 or value < -(1 << 63):
        report(_out_of_range(arg, quote))
        value = (1 << 63) - 1 if value > 0 else -(1 << 63)
    return value, True


def parse_float(
    arg: str,
    report: Callable[[str], None],
    byte_chars: bool = False,
    quote: Callable[[str], str] | None = None,
) -> tuple[LongDouble, bool]:
    """A floating-point argument as strtold reads it (a long double); what follows a number is
    reported (bad_number: the number still counts), a value out of range a warning."""
    # (on the first float: longdouble loads decimal and fractions, ~2 ms that echo and %s do not need)
    from .longdouble import LongDouble, parse, scan

    s = arg.lstrip(" \t\n\v\f\r")  # (what follows the number is reported: strtold's end)
    if s[:1] in ("'", '"'):
        return LongDouble.from_int(_char_code(s, byte_chars)), True
    if not s:
        if arg:  # blanks alone: nothing converted
            report(bad_number(arg, False, quote))
            return LongDouble(False), False
        return LongDouble(False), True
    end = scan(s)
    value, out_of_range = parse(s[:end]) if end else (LongDouble(False), False)
    if end < len(s):
        report(bad_number(arg, end > 0, quote))
        return value, False
    if out_of_range:
        report(_out_of_range(arg, quote))
    return value, True


# decoded formats: a script's printf runs the same few formats again and again
_DECODED: dict[tuple[str, bool], tuple[str, tuple[str, ...]]] = {}
_DECODED_MAX = 256


def _decoded_format(text: str, c_locale: bool = False) -> tuple[str, tuple[str, ...]]:
    """decode_format_escapes(text) and its warnings, remembered for a short format."""
    key = (text, c_locale)
    hit = _DECODED.get(key)
    if hit is not None:
        return hit
    if "\\" not in text:
        return text, ()  # nothing to decode (and nothing worth remembering)
    warnings: list[str] = []
    hit = (decode_format_escapes(text, warnings, c_locale), tuple(warnings))
    if len(text) <= 1024:
        if len(_DECODED) >= _DECODED_MAX:
            _DECODED.clear()
        _DECODED[key] = hit
    return hit


def decode_format_escapes(text: str, warnings: list[str] | None = None, c_locale: bool = False) -> str:
    """Escapes in the format string itself (\\NNN octal, not \\0NNN; \\c is no escape here);
    bash's warnings for \\x and \\u without digits go to `warnings` (`c_locale`: codepoint's)."""
    unknown: list[str] = []
    # an escape that makes a `%` (\045, \x25, \u0025) is a literal percent sign: bash decodes
    # escapes while it scans the format, after it has looked for conversions
    text = _ESCAPED_PERCENT.sub(
        lambda m: m.group() if m.group() == "\\\\" or decode_raw(m.group(), "format") != "%" else "%%", text
    )
    out = decode_raw(text, "format", unknown, c_locale)
    if warnings is not None:
        warnings.extend(missing_digits(unknown))
    return out


def missing_digits(unknown: list[str]) -> list[str]:
    """bash's printf words for a \\x, \\u or \\U with no digits (printed, status unchanged)."""
    return [f"missing {'hex' if d == 'x' else 'unicode'} digit for \\{d}" for d in unknown if d in "xuU"]


class FieldTooWide(ValueError):
    """A width or precision larger than the caller's string limit."""


def _too_wide(size: str, limit: int) -> bool:
    try:
        check_field(size, limit)
    except FieldTooWide:
        return True
    return False


def check_field(size: str | int, limit: int) -> None:
    """Raise FieldTooWide when a printf-style width or precision (its digits
    as written, or a number) is over `limit`, so that callers (printf, seq -f,
    awk's printf) refuse it before building a string that wide. Too many
    digits for int() to convert count as over."""
    if isinstance(size, str):
        digits = size.lstrip("0")
        if len(digits) > len(str(limit)) or (digits and int(digits) > limit):
            raise FieldTooWide(size)
    elif size > limit:
        raise FieldTooWide(size)


def format_printf(
    fmt: str,
    args: list[str],
    report: Callable[[str], None],
    now: Callable[[], float] = time.time,
    start_time: float | None = None,
    tz: str | None = None,
    max_field: int = 10 * 1024 * 1024,
    assign: Callable[[str, int], bool] | None = None,
    gnu: bool = False,
    marks: list[int] | None = None,
    byte_chars: bool = False,
    quote: Callable[[str], str] | None = None,
    shell_quote: Callable[[str], str] | None = None,
) -> tuple[str, int]:
    """Render printf FORMAT ARGS... Returns (output, status). Widths and
    precisions above `max_field` raise FieldTooWide before any padding is built.
    `assign(name, count)` stores %n's count of bytes written so far (the builtin's);
    False when the name is not a valid identifier (printf then stops). `gnu`: coreutils'
    wording for a bad conversion (/usr/bin/printf). `marks` receives, for each
    report, the length of the output written before it. `byte_chars`: the locale is C ('X is
    the code of X's first byte, %q writes a byte >= 0x80 as $'\\ooo'). `quote`: coreutils' quoting of a bad number (bad_number).
    `shell_quote`: coreutils' %q (gnulib's shell-escape style, `'a b'` where bash writes `a\\ b`)."""
    if not gnu and (done := plain_printf(fmt, args, max_field)) is not None:
        return done, 0
    stop_at_end = False
    if gnu:  # coreutils ends the whole run at a `\\c` in the format (bash prints it)
        cut = _format_stop(fmt)
        if cut >= 0:
            fmt, stop_at_end = fmt[:cut], True
    fmt, fmt_warnings = _decoded_format(fmt, byte_chars)
    out: list[str] = []
    if marks is not None:
        report = _marking(report, out, marks)
    status = 0
    ai = 0
    nargs = len(args)

    def next_arg() -> str | None:
        nonlocal ai
        if ai < nargs:
            ai += 1
            return args[ai - 1]
        return None

    def bad(msg: str) -> None:
        nonlocal status
        if not msg.startswith("warning: "):
            status = 1
        report(msg)

    while True:
        for warning in fmt_warnings:  # bash decodes the format again on each pass
            report(warning)
        consumed_before = ai
        i = 0
        n = len(fmt)
        while i < n:
            c = fmt[i]
            if c != "%":
                j = fmt.find("%", i)
                if j < 0:
                    j = n
                out.append(fmt[i:j])
                i = j
                continue
            # a conversion: %[flags][width][.prec][conv]
            spec_start = i
            j = i + 1
            if j < n and fmt[j] == "%":
                out.append("%")
                i = j + 1
                continue
            flags = ""
            while j < n and fmt[j] in "-+ #0'":
                flags += fmt[j]
                j += 1
            width = ""
            if j < n and fmt[j] == "*":
                a = next_arg()
                w = _star_arg(a, bad, args[ai] if ai < nargs else None, quote)
                if w is None:
                    return "".join(out), 1
                if w < 0:
                    flags += "-"
                    w = -w
                width = str(w)
                j += 1
            else:
                while j < n and fmt[j].isdigit():
                    width += fmt[j]
                    j += 1
            if width:
                check_field(width, max_field)
            prec: str | None = None
            huge_prec = ""
            prec_star = False  # %.*Q: bash 5.2 quotes the whole argument
            if j < n and fmt[j] == ".":
                j += 1
                if j < n and fmt[j] == "*":
                    a = next_arg()
                    p = _star_arg(a, bad, args[ai] if ai < nargs else None, quote, "precision")
                    if p is None:
                        return "".join(out), 1
                    prec = str(max(p, 0)) if p >= 0 else None
                    prec_star = True
                    j += 1
                else:
                    prec = ""
                    while j < n and fmt[j].isdigit():
                        prec += fmt[j]
                        j += 1
                if prec and _too_wide(prec, max_field):
                    # a precision only builds text for numbers: a string is cut
                    # at it, so a huge one keeps the whole string (as in bash)
                    huge_prec, prec = prec, str(max_field)
            # length modifiers are accepted and ignored (bash 5.2's %ls is %s)
            while j < n and fmt[j] in "hlLjzt":
                j += 1
            # coreutils takes %b and %q only bare: a flag, width or precision makes them unknown
            bare = j == spec_start + 1
            if gnu and (j >= n or fmt[j] not in _INT_CONV + _FLOAT_CONV + "s" + ("bq" if bare else "")):
                # coreutils names the whole specification as written (it has no %(...)T): an
                # escape decoded up front is its backslash
                shown = "\\" if j < n and fmt[j] in "\a\b\f\n\r\t\v\x1b" else fmt[j : j + 1]
                bad(f"{fmt[spec_start:j]}{shown}: invalid conversion specification")
                return "".join(out), 1
            if j < n and fmt[j] == "(":
                close = _time_format_end(fmt, j)
                if close + 1 >= n or fmt[close + 1] != "T":
                    # bash warns, prints the `%` and goes on with the text after it
                    shown = fmt[close + 1] if close < n and close + 1 < n else "\0"
                    report(f"warning: `{shown}': invalid time format specification")
                    out.append("%")
                    i = spec_start + 1
                    continue
                tfmt = fmt[j + 1 : close]
                a = next_arg()
                out.append(_pad(_strftime(tfmt, a, now, start_time, tz, bad), flags, width, prec))
                i = close + 2
                continue
            if j >= n:
                bad(f"`{fmt[i:]}': missing format character")
                return "".join(out), 1
            conv = fmt[j]
            if huge_prec and conv in "diouxX" + _FLOAT_CONV:
                raise FieldTooWide(huge_prec)
            i = j + 1
            arg = next_arg()
            if "-" in flags and "0" in flags:
                flags = flags.replace("0", "")
            if conv == "s":
                s = arg if arg is not None else ""
                out.append(_pad(s, flags, width, prec))
            elif conv == "b":
                unknown: list[str] = []
                s, stop = decode_escapes(arg or "", "printf_b", unknown, byte_chars)
                for warning in missing_digits(unknown):
                    report(warning)
                out.append(_pad(s, flags, width, prec))
                if stop:
                    return "".join(out), status
            elif conv == "q":
                if shell_quote is not None:
                    if arg is not None:  # coreutils prints nothing for a missing argument
                        out.append(shell_quote(arg))
                else:
                    out.append(_pad(printf_q(arg if arg is not None else "", byte_chars), flags, width, prec))
            elif conv == "Q":
                s = arg or ""
                if prec and not prec_star:
                    s = _pad(s, "", "", prec)  # cut in bytes, then quoted
                # a bare `%.Q` keeps bash's empty precision: nothing, not ''
                quoted = "" if prec == "" and not prec_star else printf_q(s, byte_chars)
                out.append(_pad(quoted, flags, width, None))
            elif conv == "c":
                # the first byte of the argument; an empty or missing argument is a NUL
                s = "\0"
                if arg:
                    s = arg.encode("utf-8", "surrogateescape")[:1].decode("utf-8", "surrogateescape")
                out.append(_pad(s, flags, width, None))
            elif conv in "diouxX":
                value, _ = parse_int(arg if arg is not None else "0", bad, conv in "ouxX", byte_chars, quote)
                out.append(_c_int(value, conv, flags, width, prec))
            elif conv == "n" and assign is not None:
                name = arg if arg is not None else ""
                if not assign(name, len("".join(out).encode("utf-8", "surrogateescape"))):
                    bad(f"`{name}': not a valid identifier")
                    return "".join(out), 1  # bash stops at a bad %n name
            elif conv in _FLOAT_CONV:
                from .longdouble import format_long

                fv, _ = parse_float(arg if arg is not None else "0", bad, byte_chars, quote)
                out.append(format_long(fv, conv, flags, width, prec))
            else:
                # escapes are decoded up front; bash names the backslash it saw
                shown = "\\" if conv in "\a\b\f\n\r\t\v\x1b" else conv
                bad(f"`{shown}': invalid format character")
                return "".join(out), 1
        if stop_at_end:
            return "".join(out), 0  # coreutils exits with success there, whatever came before
        if ai == consumed_before or ai >= nargs:
            break
    if gnu and quote is not None and ai < nargs:  # a format that takes no argument
        report(f"warning: ignoring excess arguments, starting with {quote(args[ai])}")
    return "".join(out), status


# Formats of text and %s/%d/%i/%x/%X conversions with no flag but - and 0, no precision and a width
# of up to four digits (`%s\n`, `%05d`, `%s=%s`, `%-8s|`, `%02x`): what format_printf's scan makes
# of them, found once by their text (None remembered too: the scan is not tried again), and
# rendered by plain_printf while every integer argument is a plain decimal (and not negative for
# %x: C's unsigned view; anything else: the general way, which reports). A printf in a loop scanned
# its format at every call (3 us of `printf -v x %s`). A piece: (conversion, flags, width, its
# number, Python's format spec giving C's output for an int there).
if TYPE_CHECKING:
    PlainFormat = tuple[str | tuple[str, str, str, int, str], ...]
_PLAIN: dict[str, PlainFormat | None] = {}
_PLAIN_MAX = 256
_PLAIN_TEXT_MAX = 1024
_ASCII_DIGITS = "0123456789"


def _plain_format(fmt: str) -> PlainFormat | None:
    if fmt in _PLAIN:
        return _PLAIN[fmt]
    found = _scan_plain(fmt)
    if len(_PLAIN) >= _PLAIN_MAX:
        _PLAIN.clear()
    _PLAIN[fmt] = found
    return found


def _scan_plain(fmt: str) -> PlainFormat | None:
    """The pieces of a plain format (literal text, (conversion, flags, width, its number, spec)), or None
    (a \\u or \\U escape too: what it makes depends on the locale, which the general way asks)."""
    if locale_escapes(fmt):
        return None
    text, warnings = _decoded_format(fmt)
    if warnings:
        return None
    pieces: list[str | tuple[str, str, str, int, str]] = []
    i = 0
    n = len(text)
    while i < n:
        j = text.find("%", i)
        if j < 0:
            pieces.append(text[i:])
            break
        if j > i:
            pieces.append(text[i:j])
        if text.startswith("%", j + 1):
            pieces.append("%")
            i = j + 2
            continue
        digits = _run_end(text, j + 1, "-0")
        k = _run_end(text, digits, _ASCII_DIGITS)
        flags, width = text[j + 1 : digits], text[digits:k]
        conv = text[k] if k < n else ""
        if not conv or conv not in "sdixX" or len(width) > 4:
            return None
        if "-" in flags:
            flags = flags.replace("0", "")  # (as format_printf: - wins over 0)
        # (_c_int's output without a precision: - pads on the right, 0 with zeros after the sign)
        align = "<" if "-" in flags else "0" if "0" in flags else ">"
        spec = f"{align}{width}{'d' if conv in 'di' else conv}"
        pieces.append((conv, flags, width, int(width or 0), spec))
        i = k + 1
    return tuple(pieces)


def _run_end(text: str, k: int, chars: str) -> int:
    """Where the run of `chars` from text[k] ends."""
    n = len(text)
    while k < n and text[k] in chars:
        k += 1
    return k


def plain_printf(fmt: str, args: list[str], max_field: int) -> str | None:
    """What format_printf gives (status 0, nothing reported) for a plain format, or None when the
    format or an argument needs the general way (bash's builtin: coreutils' printf goes that way)."""
    if len(fmt) > _PLAIN_TEXT_MAX:
        return None
    plain = _plain_format(fmt)
    return None if plain is None else _render_plain(plain, args, max_field)


def _render_plain(pieces: PlainFormat, args: list[str], max_field: int) -> str | None:
    """format_printf's output for a plain format (reused while arguments remain, as there), or None
    where the general way must run: an integer argument that is not a plain decimal (or is
    negative, for %x), a width over `max_field`."""
    out: list[str] = []
    ai = 0
    nargs = len(args)
    while True:
        consumed_before = ai
        for piece in pieces:
            if isinstance(piece, str):
                out.append(piece)
                continue
            conv, flags, width, w, spec = piece
            if w > max_field:
                return None
            arg: str | None = None
            if ai < nargs:
                arg = args[ai]
                ai += 1
            if conv == "s":
                out.append(_pad(arg if arg is not None else "", flags, width, None))
                continue
            if arg is None:
                value = 0
            else:
                digits = arg[1:] if arg[:1] == "-" else arg
                if not (
                    digits.isdigit()
                    and digits.isascii()
                    and len(digits) < 19
                    and (digits[0] != "0" or len(digits) == 1)
                ):
                    return None  # (octal, hex, a sign or blank, a quote, a bad number: parse_int's way)
                value = int(arg)
                if value < 0 and conv in "xX":
                    return None  # (C's unsigned view of it: the general way)
            out.append(format(value, spec))
        if ai == consumed_before or ai >= nargs:
            return "".join(out)


def _format_stop(fmt: str) -> int:
    """Where a `\\c` escape starts in a raw format (not the `c` after an escaped backslash), or -1."""
    i = fmt.find("\\")
    n = len(fmt)
    while 0 <= i < n - 1:
        if fmt[i + 1] == "c":
            return i
        i = fmt.find("\\", i + 2)
    return -1


_INT_MAX = (1 << 31) - 1


def _star_arg(
    arg: str | None,
    bad: Callable[[str], None],
    following: str | None,
    quote: Callable[[str], str] | None = None,
    what: str = "field width",
) -> int | None:
    """A `*` width or precision as bash 5.2's getint makes it: an int. The last
    argument is cut to int as C converts (21474836470 is -10); before another
    one it is clamped with a warning that names that next argument (bash's).
    With `quote` (coreutils): read as a %d argument is, and one outside int's range is
    `invalid field width` / `invalid precision`, fatal (None)."""
    value, _ = parse_int(arg if arg is not None else "0", bad, quote=quote)
    if quote is not None:
        if not -_INT_MAX - 1 <= value <= _INT_MAX:
            bad(f"invalid {what}: {quote(arg or '')}")
            return None
        return value
    if following is None:
        return (value + _INT_MAX + 1) % (1 << 32) - _INT_MAX - 1
    if not -_INT_MAX - 1 <= value <= _INT_MAX:
        bad(f"warning: {following}: Numerical result out of range")
        return _INT_MAX if value > 0 else -_INT_MAX - 1
    return value


def _marking(report: Callable[[str], None], out: list[str], marks: list[int]) -> Callable[[str], None]:
    """`report` that also notes how much output precedes each message (counted
    incrementally: a long run of warnings stays linear)."""
    seen = [0, 0]  # pieces of `out` counted so far, their total length

    def noted(msg: str) -> None:
        count, total = seen
        for k in range(count, len(out)):
            total += len(out[k])
        seen[0], seen[1] = len(out), total
        marks.append(total)
        report(msg)

    return noted


def _time_format_end(fmt: str, open_at: int) -> int:
    """Index of the `)` closing the `(` at `open_at` (nested pairs counted, as
    bash does), or len(fmt) when it is never closed."""
    depth = 0
    for k in range(open_at, len(fmt)):
        if fmt[k] == "(":
            depth += 1
        elif fmt[k] == ")":
            depth -= 1
            if depth == 0:
                return k
    return len(fmt)


def _pad(s: str, flags: str, width: str, prec: str | None) -> str:
    """Apply precision and field width as C's printf does: counted in bytes in
    every locale (a cut may split a multibyte character)."""
    if prec is None and not width:
        return s  # (`%s`: the text as it is)
    data = s.encode("utf-8", "surrogateescape")
    if prec is not None and prec != "":
        data = data[: int(prec)]
    elif prec == "":
        data = data[:0]
    fill = max(int(width) - len(data), 0) if width else 0
    text = data.decode("utf-8", "surrogateescape")
    return text + " " * fill if "-" in flags else " " * fill + text


_EPOCH_DIRECTIVE = re.compile(r"%%|%s")


def _strftime(
    tfmt: str,
    arg: str | None,
    now: Callable[[], float],
    start: float | None,
    tz: str | None,
    bad: Callable[[str], None],
) -> str:
    from datetime import UTC, datetime  # only %(...)T needs it: not imported at start-up

    # bash's getintmax: no argument is -1 (now), an empty one 0; a bad one is reported and its
    # leading number used (`3.5` is 3, `abc` 0), one out of range clamped with a warning
    value = -1 if arg is None else parse_int(arg, bad)[0]
    t = float(value)
    if value == -1:
        t = now()
    elif value == -2:
        t = start if start is not None else now()
    zone = _zone(tz)
    try:
        dt = datetime.fromtimestamp(t, zone or UTC)
    except (OverflowError, OSError, ValueError):
        # bash formats the epoch when localtime fails; here also past the year 9999
        t = 0.0
        dt = datetime.fromtimestamp(t, zone or UTC)
    if not tfmt:
        tfmt = "%X"
    # the C library's %s reads the broken-down time back in the host's zone:
    # the seconds since the epoch are put in here (a `%%` pair stays as it is)
    tfmt = _EPOCH_DIRECTIVE.sub(lambda m: m.group(0) if m.group(0) == "%%" else str(int(t)), tfmt)
    try:
        text = dt.strftime(tfmt)
    except ValueError:
        return tfmt
    # bash formats into a 128-byte buffer: a longer result comes out empty
    return text if len(text.encode("utf-8", "surrogateescape")) < 128 else ""


def _zone(tz: str | None) -> tzinfo | None:
    if not tz:
        return None
    # the same TZ rules as date: zone names and POSIX TZ strings (EST5EDT,M3.2.0,M11.1.0)
    from .zones import zone_from_spec

    return zone_from_spec(tz)
