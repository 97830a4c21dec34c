"""History expansion as bash 5.2's `history -p` does it: `!` event designators (`!!`, `!N`,
`!-N`, `!STR`, `!?STR?`, `!#`), word designators (`:0`, `:N`, `:^`, `:$`, `:*`, `:X-Y`, `:X*`,
`:X-`, and `!^ !$ !*` without the colon), modifiers (`:h :t :r :e :p :q :x`, `:s/old/new/`,
`:gs`, `:&`, `:g&`) and the quick substitution `^old^new^`. Text in single quotes and a `!`
after a backslash or before a blank or `=` stay as written.
"""

from __future__ import annotations


class ExpansionFailed(Exception):
    """The reference names no entry, no word, or a substitution that does not apply."""


class _Subst:
    """The last `:s` substitution (what `:&` and an empty old text reuse)."""

    __slots__ = ("old", "new")

    def __init__(self) -> None:
        self.old: str | None = None
        self.new = ""


_OPERATORS = "|&;<>()"


def tokenize(entry: str) -> list[str]:
    """An entry's words as bash's history_tokenize reads them: blanks separate, quotes are kept
    inside a word, and each run of operator characters (`|`, `>`, `;`, ...) is a word of its own."""
    words: list[str] = []
    i = 0
    n = len(entry)
    while i < n:
        if entry[i] in " \t\n":
            i += 1
            continue
        start = i
        if entry[i] in _OPERATORS:
            while i < n and entry[i] in _OPERATORS:
                i += 1
            words.append(entry[start:i])
            continue
        quote = ""
        while i < n and (quote or (entry[i] not in " \t\n" and entry[i] not in _OPERATORS)):
            c = entry[i]
            if c == "\\" and quote != "'" and i + 1 < n:
                i += 2
                continue
            if quote and c == quote:
                quote = ""
            elif not quote and c in "'\"":
                quote = c
            i += 1
        words.append(entry[start:i])
    return words


def _event(hist: list[str], line: str, i: int, sofar: str, base: int) -> tuple[str, int]:
    """The entry the event at line[i] (just after the `!`) names, and where the event ends."""
    if i >= len(line) or line[i] in ":^$*%":
        if not hist:
            raise ExpansionFailed
        return hist[-1], i  # `!:1`, `!$`: the last entry
    c = line[i]
    if c == "!":
        if not hist:
            raise ExpansionFailed
        return hist[-1], i + 1
    if c == "#":
        return sofar, i + 1
    j = i + 1 if c == "-" else i
    while j < len(line) and line[j].isdigit():
        j += 1
    if j > i and line[i:j] != "-":
        n = int(line[i:j])
        index = len(hist) + n if n < 0 else n - base
        if n == 0 or not 0 <= index < len(hist):
            raise ExpansionFailed
        return hist[index], j
    if c == "?":
        end = line.find("?", i + 1)
        needle = line[i + 1 : end if end >= 0 else len(line)]
        found = next((h for h in reversed(hist) if needle and needle in h), None)
        if found is None:
            raise ExpansionFailed
        return found, (end + 1 if end >= 0 else len(line))
    j = i
    while j < len(line) and line[j] not in " \t\n:^$*%":
        j += 1
    prefix = line[i:j]
    found = next((h for h in reversed(hist) if h.startswith(prefix)), None)
    if found is None:
        raise ExpansionFailed
    return found, j


def _number(words: list[str], text: str, i: int) -> tuple[int, int] | None:
    """A word number at text[i] (`^` is 1, `$` the last): (number, end), or None."""
    if i < len(text) and text[i] == "^":
        return 1, i + 1
    if i < len(text) and text[i] == "$":
        return len(words) - 1, i + 1
    j = i
    while j < len(text) and text[j].isdigit():
        j += 1
    return (int(text[i:j]), j) if j > i else None


def _words(entry: str, line: str, i: int, colon: bool) -> tuple[str, int]:
    """The word designator at line[i], applied to the entry: (the text it selects, its end)."""
    words = tokenize(entry)
    if not colon and (i >= len(line) or line[i] not in "^$*"):
        return entry, i
    if line[i : i + 1] == "*":
        return " ".join(words[1:]), i + 1
    found = _number(words, line, i)
    if found is not None:
        first, j = found
    elif line[i : i + 1] == "-":
        first, j = 0, i  # `-Y` is `0-Y`
    else:
        raise ExpansionFailed
    last = first
    if line[j : j + 1] == "*":
        last, j = len(words) - 1, j + 1
    elif line[j : j + 1] == "-":
        end = _number(words, line, j + 1)
        last, j = (len(words) - 2, j + 1) if end is None else end
    if first >= len(words) or last >= len(words) or first < 0:
        raise ExpansionFailed
    return " ".join(words[first : last + 1]), j


def _substitute(text: str, line: str, i: int, subst: _Subst, every: bool) -> tuple[str, int]:
    """`:s/old/new/` at line[i] (just after the `s`): `&` in new is old, `\\` quotes."""
    if i >= len(line):
        raise ExpansionFailed
    delim = line[i]
    parts: list[str] = []
    j = i + 1
    for _ in range(2):
        cur: list[str] = []
        while j < len(line) and line[j] != delim:
            if line[j] == "\\" and j + 1 < len(line) and line[j + 1] in (delim, "&", "\\"):
                cur.append("\\&" if line[j + 1] == "&" else line[j + 1])
                j += 2
                continue
            cur.append(line[j])
            j += 1
        parts.append("".join(cur))
        j += 1  # the delimiter (or the end)
    old, new = parts
    if old:
        subst.old = old
    elif subst.old is None:
        raise ExpansionFailed
    subst.new = new
    return _apply(text, subst, every), min(j, len(line))


def _apply(text: str, subst: _Subst, every: bool) -> str:
    old = subst.old
    if not old or old not in text:
        raise ExpansionFailed
    new = subst.new.replace("\\&", "\0").replace("&", old).replace("\0", "&")
    return text.replace(old, new) if every else text.replace(old, new, 1)


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _modifiers(text: str, line: str, i: int, subst: _Subst) -> tuple[str, int]:
    """Each `:X` modifier after the designator, in order."""
    while i + 1 < len(line) and line[i] == ":":
        m = line[i + 1]
        i += 2
        if m == "h":
            text = text.rpartition("/")[0] if "/" in text else text
        elif m == "t":
            text = text.rpartition("/")[2]
        elif m in "re":
            dot = text.rfind(".")
            if dot > text.rfind("/"):
                text = text[:dot] if m == "r" else text[dot:]
            elif m == "e":
                text = ""
        elif m == "q":
            text = _quote(text)
        elif m == "x":
            text = " ".join(_quote(w) for w in text.split())
        elif m == "s":
            text, i = _substitute(text, line, i, subst, False)
        elif m == "&":
            text = _apply(text, subst, False)
        elif m == "g" and i < len(line) and line[i] in "s&":
            i += 1
            if line[i - 1] == "s":
                text, i = _substitute(text, line, i, subst, True)
            else:
                text = _apply(text, subst, True)
        elif m != "p":
            raise ExpansionFailed
    return text, i


def expand(hist: list[str], line: str, base: int = 1) -> str:
    """`line` with its history references replaced (ExpansionFailed when one cannot be); `base`
    is the number of the list's first entry."""
    subst = _Subst()
    if line.startswith("^"):  # ^old^new^ is !!:s^old^new^
        line = "!!:s" + line
    out: list[str] = []
    quote = ""
    i = 0
    while i < len(line):
        c = line[i]
        if quote == "'" or (c == "'" and quote != '"'):
            quote = "" if quote == "'" and c == "'" else "'"
            out.append(c)
            i += 1
            continue
        if c == '"':
            quote = "" if quote == '"' else '"'
        if c == "\\" and line[i + 1 : i + 2] == "!":
            out.append("\\!")
            i += 2
            continue
        if c != "!" or i + 1 >= len(line) or line[i + 1] in " \t\n=":
            out.append(c)
            i += 1
            continue
        entry, j = _event(hist, line, i + 1, "".join(out), base)
        colon = line[j : j + 1] == ":" and line[j + 1 : j + 2] in tuple("0123456789^$*-")
        text, j = _words(entry, line, j + 1 if colon else j, colon)
        text, j = _modifiers(text, line, j, subst)
        out.append(text)
        i = j
    return "".join(out)
