"""The history entry bash makes of a command read over several lines (`set -o history` with the
default `cmdhist`): one line, each newline outside quotes replaced by "; ", or by a blank where a
semicolon could not stand (after `then`, `do`, `{`, `in`, `|`, `&&`, `;`, ...). A newline inside
quotes stays, as bash's history_delimiting_chars keeps it.
"""

from __future__ import annotations

# words and operators after which bash joins the next line with a blank, not "; "
_OPENERS = frozenset(
    {
        "then",
        "do",
        "else",
        "elif",
        "{",
        "(",
        "in",
        "!",
        "time",
        "|",
        "&&",
        "||",
        "&",
        ";",
        ";;",
        ";&",
        ";;&",
        "|&",
    }
)


_IN_WORDS = frozenset({"case", "for", "select"})


def history_line(text: str) -> str:
    out: list[str] = []
    quote = ""
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and quote != "'":
            out.append(text[i : i + 2])
            i += 2
            continue
        if quote:
            if c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
        elif c == "\n":
            words = "".join(out).split()
            last = words[-1] if words else ""
            # `in` opens a list only as `case WORD in` / `for NAME in` (not `echo in`)
            opener = last in _OPENERS and (last != "in" or (len(words) > 2 and words[-3] in _IN_WORDS))
            joins_blank = not words or opener or last[-1:] in ("|", "&", ";")
            out.append(" " if joins_blank else "; ")
            i += 1
            continue
        out.append(c)
        i += 1
    return "".join(out)
