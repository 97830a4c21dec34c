"""The history entry bash makes of a command read over several lines (`set -o history` with the
default `cmdhist`): one line, each newline outside quotes replaced by "; ", or by a blank where a
semicolon could not stand (after `then`, `do`, `{`, `in`, `|`, `&&`, `;`, ...). A newline inside
quotes stays, as bash's history_delimiting_chars keeps it.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .state import ShellState

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


def histsize(value: str | None) -> int | None:
    """HISTSIZE as bash reads it: a decimal number from 0 up (blanks and a `+` allowed, as
    legal_number); anything else (unset, negative, not a number) leaves the list unbounded."""
    from ..posix import number_text  # (only when HISTSIZE is set)

    text = number_text(value or "")
    body = text[1:] if text[:1] in ("+", "-") else text
    return int(text) if body.isdigit() and int(text) >= 0 else None


def stifle(st: ShellState, limit: int | None) -> None:
    """A list longer than HISTSIZE loses its oldest entries; as readline's stifle_history sets
    it, the first number left is then the count dropped."""
    if limit is not None and len(st.history) > limit:
        dropped = len(st.history) - limit
        del st.history[:dropped]
        st.history_base = dropped


def push(st: ShellState, entry: str, limit: int | None, session: bool) -> None:
    """Add one entry (`session`: a line of this shell's own, which `history -a` appends later);
    a list at HISTSIZE entries first drops its oldest (none is kept at HISTSIZE=0)."""
    stifle(st, limit)
    if limit is not None and len(st.history) >= limit:
        if limit == 0:
            return
        del st.history[0]
        st.history_base += 1
    st.history.append(entry)
    if session:
        st.history_saved += 1
