"""tar --transform / --xform: sed-like `s/REGEX/REPLACEMENT/FLAGS` expressions that rename members.

GNU tar reads one or more expressions per option, separated by `;`. The delimiter is the character
after `s`; the regex is POSIX basic unless the `x` flag asks for extended. Flags: `g` (every match),
a number N (the Nth match), `i` (ignore case), `x`, and the scope letters `r`/`R` (member names),
`s`/`S` (symlink targets), `h`/`H` (hard link targets), all three on by default. The replacement
takes `&`, `\\1`..`\\9` and `\\L \\U \\l \\u \\E` as in sed. Names are transformed when an archive
is created and when it is extracted; a listing shows the names as stored."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass

    from ...regex.engine import Regex
else:  # the same class without importing dataclasses and inspect
    from ...leanclass import dataclass

REGULAR, SYMLINK, HARDLINK = "r", "s", "h"


@dataclass
class Xform:
    rx: Regex
    repl: list[str | int]  # literal text, a group number, or a case escape ("\\L" ...) kept as text
    every: bool
    nth: int
    scopes: frozenset[str]

    def apply(self, name: str) -> str:
        out: list[str] = []
        pos = 0  # end of the text already copied
        count = 0
        search_at = 0
        while search_at <= len(name):
            m = self.rx.search(name, search_at)
            if m is None:
                break
            st, en = m.span()
            count += 1
            if count >= self.nth:
                out.append(name[pos:st])
                out.append(self._expand(m))
                pos = en
                if not self.every:
                    break
            # an empty match moves one character on, so `s/x*/-/g` ends
            search_at = en if en > st else en + 1
        out.append(name[pos:])
        return "".join(out)

    def _expand(self, m: object) -> str:
        parts: list[str] = []
        case = ""  # "L"/"U": the rest in that case until \E; "l"/"u": the next character only
        one = ""
        for item in self.repl:
            if isinstance(item, int):
                text = m.group(item) or ""  # type: ignore[attr-defined]
            elif item in ("\\L", "\\U", "\\E"):
                case = item[1] if item != "\\E" else ""
                one = ""
                continue
            elif item in ("\\l", "\\u"):
                one = item[1]
                continue
            else:
                text = item
            if case == "L":
                text = text.lower()
            elif case == "U":
                text = text.upper()
            if one and text:
                text = (text[0].lower() if one == "l" else text[0].upper()) + text[1:]
                one = ""
            parts.append(text)
        return "".join(parts)


class XformError(Exception):
    """A malformed --transform expression; tar_args reports it as a usage error (status 2). Its own
    class, so this module needs nothing of tar_args (which imports it lazily)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _bad(message: str = "Invalid transform expression") -> XformError:
    return XformError(message)


def _until(text: str, i: int, delim: str) -> tuple[str, int]:
    """The part of `text` from i to the next unescaped delimiter (an escaped delimiter loses its
    backslash), and the index just past that delimiter."""
    out: list[str] = []
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            out.append(nxt if nxt == delim else c + nxt)
            i += 2
            continue
        if c == delim:
            return "".join(out), i + 1
        out.append(c)
        i += 1
    raise _bad()


def _replacement(text: str, groups: int) -> list[str | int]:
    parts: list[str | int] = []
    lit: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "&":
            parts.extend(["".join(lit), 0])
            lit = []
        elif c == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            i += 1
            if nxt.isdigit():
                if int(nxt) > groups:
                    raise _bad("Invalid transform replacement: back reference out of range")
                parts.extend(["".join(lit), int(nxt)])
                lit = []
            elif nxt in "LUElu":
                parts.extend(["".join(lit), "\\" + nxt])
                lit = []
            else:
                lit.append({"n": "\n", "t": "\t"}.get(nxt, nxt))
        else:
            lit.append(c)
        i += 1
    parts.append("".join(lit))
    return [p for p in parts if p != ""]


def parse_xforms(text: str) -> list[Xform]:
    """Every expression in one --transform argument; XformError for a malformed one (tar's usage error)."""
    # (here: the regex layer with RE2 is ~8 M instructions a tar without --transform spares)
    from ...regex.engine import compile_regex
    from ...regex.errors import RegexError

    out: list[Xform] = []
    i = 0
    while i < len(text):
        if text[i] in "; \t":
            i += 1
            continue
        if text[i] != "s" or i + 1 >= len(text):
            raise _bad()
        delim = text[i + 1]
        pattern, i = _until(text, i + 2, delim)
        repl_text, i = _until(text, i, delim)
        every, nth, icase, extended = False, 1, False, False
        scopes = {REGULAR, SYMLINK, HARDLINK}
        digits = ""
        while i < len(text) and text[i] != ";":
            f = text[i]
            if f.isdigit():
                digits += f
            elif f == "g":
                every = True
            elif f == "i":
                icase = True
            elif f == "x":
                extended = True
            elif f in "rsh":
                scopes.add(f)
            elif f in "RSH":
                scopes.discard(f.lower())
            else:
                raise _bad("Unknown flag in transform expression: " + f)
            i += 1
        if digits:
            nth = int(digits)
        try:
            rx = compile_regex(pattern, "ere" if extended else "bre", icase)
        except RegexError as e:
            raise _bad(f"Invalid transform expression: {e}") from None
        out.append(Xform(rx, _replacement(repl_text, rx.groups), every, nth, frozenset(scopes)))
    return out


def transform(xforms: list[Xform], name: str, scope: str = REGULAR) -> str:
    for xf in xforms:
        if scope in xf.scopes:
            name = xf.apply(name)
    return name
