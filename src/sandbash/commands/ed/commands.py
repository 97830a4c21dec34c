"""The commands of GNU ed, one function each, dispatched on the command letter after the
addresses. Their defaults, checks and messages are GNU ed 1.19's; lines a command deletes or
replaces (d, c, j, s) go to the cut buffer, as GNU's do."""

from __future__ import annotations

from collections.abc import Callable

from ...regex import Regex
from ...vfs.errors import FsError
from .editor import INV_ADDR, INV_SUFFIX, MODIFIED, NO_FILE, NO_MATCH, EdError, Editor, Line, _Cursor, _Quit

_ESCAPES = {7: "\\a", 8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t", 11: "\\v", 92: "\\\\", 36: "\\$"}
_WINDOW = 22  # z's default page (GNU: the terminal's rows less two; 24 without a terminal)
_LIST_WIDTH = 72  # `l` folds its lines at this many columns, with a `\` at each fold

Handler = Callable[[Editor, _Cursor, list[int], bool], None]


def run_command(ed: Editor, c: _Cursor, addrs: list[int], warned: bool) -> None:
    ch = c.take()
    if not ch:
        _null(ed, addrs)
        return
    handler = _TABLE.get(ch)
    if handler is None:
        raise EdError("Unknown command")
    handler(ed, c, addrs, warned)


# ---------------------------------------------------------------------- shared pieces


def _range(ed: Editor, addrs: list[int], first: int, second: int, lines: bool = True) -> tuple[int, int]:
    """The command's two addresses (the defaults when none is given; one given is both); with
    `lines`, line 0 is refused."""
    if len(addrs) == 1:
        first = second = addrs[0]
    elif addrs:
        first, second = addrs[-2], addrs[-1]
    ed.check(first)
    ed.check(second)
    if first > second or (lines and first < 1):
        raise EdError(INV_ADDR)
    return first, second


def _one(ed: Editor, addrs: list[int], default: int) -> int:
    return addrs[-1] if addrs else ed.check(default)


def _no_address(addrs: list[int]) -> None:
    if addrs:
        raise EdError("Unexpected address")


def _suffix(ed: Editor, c: _Cursor) -> str:
    """The print flags after a command (l, n, p); anything else is an error. In a global
    command's list a line's closing `\\` (the list goes on) is no suffix."""
    flags = ""
    while c.peek() in ("l", "n", "p") and c.peek():
        flags += c.take()
    if c.i < len(c.s) and not (ed.in_global and c.s[c.i :] == "\\"):
        raise EdError(INV_SUFFIX)
    return flags


def _filename(ed: Editor, c: _Cursor) -> str:
    """The file name after e, E, f, r, w or W: a blank first, then the rest of the line."""
    if c.peek() and c.peek() not in (" ", "\t"):
        raise EdError("Unexpected command suffix")
    c.blanks()
    name = c.rest()
    ed.check_name(name)
    return name


def listed(text: str) -> str:
    """A line as `l` shows it: escapes for backslash, `$` and what does not print, folded at
    72 columns, a `$` at the end."""
    out: list[str] = []
    col = 0
    for b in text.encode("utf-8", "surrogateescape"):
        piece = _ESCAPES.get(b) or (chr(b) if 32 <= b < 127 else f"\\{b:03o}")
        if col + len(piece) > _LIST_WIDTH:
            out.append("\\\n")
            col = 0
        out.append(piece)
        col += len(piece)
    return "".join(out) + "$"


def print_lines(ed: Editor, first: int, second: int, flags: str) -> None:
    if first < 1:
        raise EdError(INV_ADDR)
    out: list[str] = []
    for i in range(first, second + 1):
        text = ed.lines[i - 1].text
        if "l" in flags:
            text = listed(text)
        out.append(f"{i}\t{text}\n" if "n" in flags else text + "\n")
        if len(out) >= 256:
            ed.ctx.checkpoint(len(out))
            ed.out("".join(out))
            out.clear()
    ed.out("".join(out))
    ed.cur = second


def _show(ed: Editor, flags: str) -> None:
    if flags:
        print_lines(ed, ed.cur, ed.cur, flags)


def _texts(lines: list[Line]) -> list[str]:
    return [line.text for line in lines]


# ---------------------------------------------------------------------- text entry


def _append(ed: Editor, c: _Cursor, addrs: list[int], warned: bool) -> None:
    addr = _one(ed, addrs, ed.cur)
    flags = _suffix(ed, c)
    ed.insert(addr, ed.read_text())
    _show(ed, flags)


def _insert(ed: Editor, c: _Cursor, addrs: list[int], warned: bool) -> None:
    addr = _one(ed, addrs, ed.cur)
    flags = _suffix(ed, c)
    text = ed.read_text()
    ed.insert(max(addr - 1, 0), text)
    if not text:
        ed.cur = addr
    _show(ed, flags)


def _change(ed: Editor, c: _Cursor, addrs: list[int], warned: bool) -> None:
    first, second = _range(ed, addrs, ed.cur, ed.cur)
    flags = _suffix(ed, c)
    text = ed.read_text()
    ed.cut = _texts(ed.delete(first, second))
    if text:
        ed.insert(first - 1, text)
    _show(ed, flags)


# ---------------------------------------------------------------------- line edits


def _delete(ed: Editor, c: _Cursor, addrs: list[int], warned: bool) -> None:
    first, second = _range(ed, addrs, ed.cur, ed.cur)
    flags = _suffix(ed, c)
    ed.cut = _texts(ed.delete(first, second))
    _show(ed, flags)


def _join(ed: Editor, c: _Cursor, addrs: list[int], warned: bool) -> None:
    first, second = _range(ed, addrs, ed.cur, ed.cur + 1)
    flags = _suffix(ed, c)
    if first < second:
        gone = ed.delete(first, second)
        ed.cut = _texts(gone)
        ed.insert(first - 1, ["".join(ed.cut)])
    _show(ed, flags)


def _destination(ed: Editor, c: _Cursor) -> int:
    dest = ed.term(c)
    return ed.check(ed.cur if dest is None else dest)


def _move(ed: Editor, c: _Cursor, addrs: list[int], warned: bool) -> None:
    first, second = _range(ed, addrs, ed.cur, ed.cur)
    dest = _destination(ed, c)
    if first <= dest < second:
        raise EdError("Invalid destination")
    flags = _suffix(ed, c)
    block = ed.lines[first - 1 : second]
    if dest in (first - 1, second):  # already there
        ed.cur = second if dest == second else dest + len(block)
    else:
        del ed.lines[first - 1 : second]
        if dest > second:
            dest -= len(block)
        ed.lines[dest:dest] = block
        ed.cur = dest + len(block)
        ed.changed = True
    _show(ed, flags)


def _copy(ed: Editor, c: _Cursor, addrs: list[int], warned: bool) -> None:
    first, second = _range(ed, addrs, ed.cur, ed.cur)
    dest = _destination(ed, c)
    flags = _suffix(ed, c)
    ed.insert(dest, _texts(ed.lines[first - 1 : second]))
    _show(ed, flags)


def _mark(ed: Editor, c: _Cursor, addrs: list[int], warned: bool) -> None:
    addr = _one(ed, addrs, ed.cur)
    name = c.take()
    if not name or c.i < len(c.s):
        raise EdError(INV_SUFFIX)
    if not ("a" <= name <= "z"):
        raise EdError("Invalid mark character")
    if addr < 1:
        raise EdError(INV_ADDR)
    ed.marks[name] = ed.lines[addr - 1]


def _yank(ed: Editor, c: _Cursor, addrs: list[int], warned: bool) -> None:
    first, second = _range(ed, addrs, ed.cur, ed.cur)
    flags = _suffix(ed, c)
    ed.cut = _texts(ed.lines[first - 1 : second])
    _show(ed, flags)


def _put(ed: Editor, c: _Cursor, addrs: list[int], warned: bool) -> None:
    addr = _one(ed, addrs, ed.cur)
    flags = _suffix(ed, c)
    if not ed.cut:
        raise EdError("Nothing to put")
    ed.insert(addr, list(ed.cut))
    _show(ed, flags)


def _undo(ed: Editor, c: _Cursor, addrs: list[int], warned: bool) -> None:
    _no_address(addrs)
    flags = _suffix(ed, c)
    if ed.undo is None or ed.in_global:
        raise EdError("Nothing to undo")
    lines, cur, modified = ed.undo
    ed.undo = (ed.lines, ed.cur, ed.modified)
    ed.lines, ed.cur, ed.modified = list(lines), cur, modified
    _show(ed, flags)


# ---------------------------------------------------------------------- printing


def _print(ed: Editor, c: _Cursor, addrs: list[int], warned: bool) -> None:
    first, second = _range(ed, addrs, ed.cur, ed.cur)
    flags = c.s[c.i - 1] + _suffix(ed, c)
    print_lines(ed, first, second, flags)


def _null(ed: Editor, addrs: list[int]) -> None:
    """An empty command prints the addressed line (the next one without an address)."""
    addr = _one(ed, addrs, ed.cur + 1)
    print_lines(ed, addr, addr, "")


def _line_number(ed: Editor, c: _Cursor, addrs: list[int], warned: bool) -> None:
    addr = addrs[-1] if addrs else len(ed.lines)
    flags = _suffix(ed, c)
    ed.out(f"{addr}\n")
    _show(ed, flags)


def _scroll(ed: Editor, c: _Cursor, addrs: list[int], warned: bool) -> None:
    addr = _one(ed, addrs, ed.cur + 1)
    window = c.number() if c.peek().isdigit() and c.peek().isascii() else _WINDOW
    flags = _suffix(ed, c)
    if addr < 1:
        raise EdError(INV_ADDR)
    print_lines(ed, addr, min(addr + window - 1, len(ed.lines)), flags)


def _comment(ed: Editor, c: _Cursor, addrs: list[int], warned: bool) -> None:
    c.rest()


# ---------------------------------------------------------------------- files and the session


def _edit(ed: Editor, c: _Cursor, addrs: list[int], warned: bool) -> None:
    forced = c.s[c.i - 1] == "E"
    _no_address(addrs)
    name = _filename(ed, c) or ed.filename
    if not name:
        raise EdError(NO_FILE)
    if ed.modified and not warned and not forced:
        ed.warned = True
        raise EdError(MODIFIED)
    ed.lines, ed.cur, ed.marks, ed.undo = [], 0, {}, None
    if not name.startswith("!"):
        ed.filename = name
    try:
        ed.read_file(name, 0)
    except FsError:
        raise EdError("Cannot open input file") from None
    finally:
        ed.changed = False
        ed.modified = False


def _file(ed: Editor, c: _Cursor, addrs: list[int], warned: bool) -> None:
    _no_address(addrs)
    name = _filename(ed, c)
    if name.startswith("!"):
        raise EdError("Invalid redirection")
    if name:
        ed.filename = name
    if not ed.filename:
        raise EdError(NO_FILE)
    ed.out(ed.filename + "\n")


def _read(ed: Editor, c: _Cursor, addrs: list[int], warned: bool) -> None:
    addr = _one(ed, addrs, len(ed.lines))
    name = _filename(ed, c) or ed.filename
    if not name:
        raise EdError(NO_FILE)
    if not ed.filename and not name.startswith("!"):
        ed.filename = name
    try:
        ed.read_file(name, addr)
    except FsError:
        raise EdError("Cannot open input file") from None


def _write(ed: Editor, c: _Cursor, addrs: list[int], warned: bool) -> None:
    append = c.s[c.i - 1] == "W"
    quit_after = not append and c.peek() == "q"
    c.i += quit_after
    if addrs:
        first, second = _range(ed, addrs, 1, 1)
    else:
        first, second = (1 if ed.lines else 0), len(ed.lines)
    name = _filename(ed, c) or ed.filename
    if not name:
        raise EdError(NO_FILE)
    if not ed.filename and not name.startswith("!"):
        ed.filename = name
    ed.write_file(name, first, second, append)
    if first <= 1 and second == len(ed.lines) and not name.startswith("!"):
        ed.modified = False
    if quit_after:
        _quit_check(ed, warned, False)
        raise _Quit


def _quit_check(ed: Editor, warned: bool, forced: bool) -> None:
    if ed.modified and not warned and not forced:
        ed.warned = True
        raise EdError(MODIFIED)


def _quit(ed: Editor, c: _Cursor, addrs: list[int], warned: bool) -> None:
    _no_address(addrs)
    forced = c.s[c.i - 1] == "Q"
    if c.i < len(c.s):
        raise EdError(INV_SUFFIX)
    _quit_check(ed, warned, forced)
    raise _Quit


def _help(ed: Editor, c: _Cursor, addrs: list[int], warned: bool) -> None:
    letter = c.s[c.i - 1]
    _no_address(addrs)
    _suffix(ed, c)
    if letter == "H":
        ed.verbose = not ed.verbose
        if not ed.verbose:
            return
    if ed.errmsg:
        ed.out(ed.errmsg + "\n")


def _prompt(ed: Editor, c: _Cursor, addrs: list[int], warned: bool) -> None:
    _no_address(addrs)
    _suffix(ed, c)
    ed.prompt_on = not ed.prompt_on


def _shell(ed: Editor, c: _Cursor, addrs: list[int], warned: bool) -> None:
    _no_address(addrs)
    ed.shell(c.rest())
    if ed.counts:
        ed.out("!\n")


# ---------------------------------------------------------------------- global commands


def _global(ed: Editor, c: _Cursor, addrs: list[int], warned: bool) -> None:
    letter = c.s[c.i - 1]
    if ed.in_global:
        raise EdError("Cannot nest global commands")
    first, second = _range(ed, addrs, 1 if ed.lines else 0, len(ed.lines), lines=False)
    delim = c.take()
    if not delim or delim in (" ", "\n"):
        raise EdError("Invalid pattern delimiter")
    rx = ed.pattern(c, delim)
    todo = [c.rest()]
    while letter in "gv" and todo[-1].endswith("\\"):
        more = ed.read_input()
        if more is None:
            break
        todo.append(more)
    if todo == [""]:
        todo = ["p"] if letter in "gv" else []
    want = letter in "gG"
    chosen = [line for line in ed.lines[max(first, 1) - 1 : second] if bool(rx.search(line.text)) == want]
    ed.in_global = True
    ed.removed = set()
    hint = 0
    try:
        for line in chosen:
            ed.ctx.checkpoint()
            if id(line) in ed.removed:  # deleted by an earlier line's commands
                continue
            try:  # most often at or after the last line's place
                hint = ed.lines.index(line, max(hint - 1, 0))
            except ValueError:  # moved before it
                hint = ed.lines.index(line)
            ed.cur = hint + 1
            if letter in "GV":
                todo = _interactive(ed, todo)
                continue
            ed.queue = list(todo)
            while ed.queue:
                ed.command(_Cursor(ed.queue.pop(0)))
    finally:
        ed.in_global = False
        ed.queue = ed.removed = None


def _interactive(ed: Editor, previous: list[str]) -> list[str]:
    """G and V: show the line, then run the command read for it from the input (nothing for an
    empty line, the previous command again for `&`). The command run is returned."""
    print_lines(ed, ed.cur, ed.cur, "")
    line = ed.read_input()
    if not line:
        if line is None:
            raise EdError("Unexpected end-of-file")
        return previous
    if line == "&":
        if not previous:
            raise EdError("No previous command")
        line = previous[0]
    ed.queue = []  # (no text for a, i or c here)
    try:
        ed.command(_Cursor(line))
    finally:
        ed.queue = None
    return [line]


# ---------------------------------------------------------------------- substitution


def _substitute(ed: Editor, c: _Cursor, addrs: list[int], warned: bool) -> None:
    first, second = _range(ed, addrs, ed.cur, ed.cur)
    delim = c.peek()
    if not delim or delim in " \nlnpgr" or delim.isdigit():
        rx, parts, count, every, flags = _repeat(ed, c)
    else:
        c.i += 1
        text = ed.pattern_text(c, delim, closed=True)
        parts, closed = _replacement(ed, c, delim)
        count, every, flags = _sub_flags(ed, c)
        rx = ed.compile(text, "I" in flags)
        flags = flags.replace("I", "")
        if not closed:
            flags += "p"
        ed.last_sub = (parts, count, every)
        ed.subst_rx = rx
    done = 0
    i = first
    while i <= second:
        ed.ctx.checkpoint()
        text = ed.lines[i - 1].text
        new = _apply(ed, rx, parts, text, count, every)
        if new is None:
            i += 1
            continue
        pieces = new.split("\n")
        ed.cut = [text]
        ed.delete(i, i)
        ed.insert(i - 1, pieces)
        second += len(pieces) - 1
        i += len(pieces)
        done = ed.cur
    if not done:
        if ed.in_global:
            return
        raise EdError(NO_MATCH)
    ed.cur = done
    _show(ed, flags)


def _repeat(ed: Editor, c: _Cursor) -> tuple[Regex, list[tuple[str, str]], int, bool, str]:
    """`s` alone repeats the last substitution; `g` and `p` toggle, N sets the count, `r` uses
    the last search's pattern."""
    if ed.last_sub is None or ed.subst_rx is None:
        raise EdError("No previous substitution")
    parts, count, every = ed.last_sub
    rx = ed.subst_rx
    flags = ""
    while c.i < len(c.s):
        ch = c.take()
        if ch == "g":
            every = not every
        elif ch == "r":
            if ed.last_rx is None:
                raise EdError("No previous pattern")
            rx = ed.last_rx
        elif ch in ("l", "n", "p"):
            flags += ch
        elif ch.isdigit() and ch.isascii():
            c.i -= 1
            count = c.number()
        elif not (ed.in_global and ch == "\\" and c.i == len(c.s)):
            raise EdError(INV_SUFFIX)
    return rx, parts, count, every, flags


def _replacement(ed: Editor, c: _Cursor, delim: str) -> tuple[list[tuple[str, str]], bool]:
    """The replacement up to `delim` as pieces ("lit", text) / ("grp", digit); `\\` at a line's
    end is a newline and the text goes on on the next input line; a lone `%` is the previous
    replacement. Whether the closing delimiter was there."""
    parts: list[tuple[str, str]] = []
    lit: list[str] = []
    start = c.i
    while True:
        ch = c.take()
        if not ch:
            closed = False
            break
        if ch == delim:
            closed = True
            break
        if ch == "&":
            parts += [("lit", "".join(lit)), ("grp", "0")]
            lit = []
        elif ch == "\\":
            nxt = c.take()
            if not nxt:
                more = ed.read_input()
                lit.append("\n")
                if more is None:
                    closed = False
                    break
                c.s, c.i = more, 0
            elif nxt.isdigit() and nxt != "0" and nxt.isascii():
                parts += [("lit", "".join(lit)), ("grp", nxt)]
                lit = []
            else:
                lit.append(nxt)
        else:
            lit.append(ch)
    parts.append(("lit", "".join(lit)))
    if c.s[start : c.i - closed] == "%" and len(parts) == 1:
        if ed.last_sub is None:
            raise EdError("No previous substitution")
        return ed.last_sub[0], closed
    return [p for p in parts if p != ("lit", "")], closed


def _sub_flags(ed: Editor, c: _Cursor) -> tuple[int, bool, str]:
    count, every, flags = 1, False, ""
    seen_count = False
    while c.i < len(c.s):
        ch = c.peek()
        if ch == "g" and not every and not seen_count:
            every = True
            c.i += 1
        elif ch.isdigit() and ch.isascii() and not every and not seen_count:
            count = c.number()
            seen_count = True
            if count < 1:
                raise EdError(INV_SUFFIX)
        elif ch in ("l", "n", "p", "I"):
            flags += c.take()
        elif ed.in_global and c.s[c.i :] == "\\":
            c.i += 1
        else:
            raise EdError(INV_SUFFIX)
    return count, every, flags


def _apply(
    ed: Editor, rx: Regex, parts: list[tuple[str, str]], text: str, count: int, every: bool
) -> str | None:
    """`text` with the count-th match (every match with g) replaced; None when that match is not
    there. GNU searches on from a match's end with `^` no longer matching (the text is searched
    behind a NUL for that); an empty match it would find again at the same place is, with g, an
    endless loop (an error), and without g the count-th match too.
    A line's matches can be millions (`s/a/&&&&/g` grows a line each time, `s/a/b/3000000`
    counts): the searches share one conversion of the line, and every _MATCH_STEP matches the
    time is charged to the deadline and the pieces built so far to max_memory."""
    out: list[str] = []
    last = n = shift = seen = counted = size = 0
    search = rx.searcher("\0" + text)
    m = rx.search(text)
    with ed.ctx.hold_memory() as hold:
        while m is not None:
            seen += 1
            if not seen % _MATCH_STEP:
                ed.ctx.checkpoint(_MATCH_STEP)
                # (a list slot is a pointer: 8 bytes a piece besides its text)
                size += sum(map(len, out[counted:])) + 8 * (len(out) - counted)
                counted = len(out)
                hold.set(size)
            start, end = m.start() - shift, m.end() - shift
            n += 1
            nxt = None if end == len(text) else search(end + 1)
            again = start == end and nxt is not None and nxt.start() == nxt.end() == end + 1
            if again and every:
                raise EdError("Infinite substitution loop")
            if n >= count or again:
                out.append(text[last:start])
                out.extend(value if kind == "lit" else (m.group(int(value)) or "") for kind, value in parts)
                last, n = end, max(n, count)
                if not every:
                    break
            if again:
                break
            m, shift = nxt, 1
        if n < count:
            return None
        out.append(text[last:])
        return "".join(out)


# matches of one substitution between two charges (the deadline, and memory for the pieces built)
_MATCH_STEP = 1 << 12


_TABLE: dict[str, Handler] = {
    "a": _append,
    "i": _insert,
    "c": _change,
    "d": _delete,
    "j": _join,
    "m": _move,
    "t": _copy,
    "k": _mark,
    "y": _yank,
    "x": _put,
    "u": _undo,
    "p": _print,
    "l": _print,
    "n": _print,
    "=": _line_number,
    "z": _scroll,
    "#": _comment,
    "e": _edit,
    "E": _edit,
    "f": _file,
    "r": _read,
    "w": _write,
    "W": _write,
    "q": _quit,
    "Q": _quit,
    "h": _help,
    "H": _help,
    "P": _prompt,
    "!": _shell,
    "g": _global,
    "v": _global,
    "G": _global,
    "V": _global,
    "s": _substitute,
}
