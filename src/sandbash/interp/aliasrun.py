"""Aliases inside `$( )`, backquotes, `<( )` and `>( )`, expanded when the substitution runs.

bash reads a substitution's text without aliases when it reads the script (only to find where it
ends: the parser refuses them there, Parser.try_alias) and its child reads the text again when it
runs, with the aliases, expand_aliases and extglob of that moment, one command at a time
(parse_and_execute): an alias the text defines on one line is expanded on the next, not on the
same line. The text read again is the node's `run` (the text as bash prints a `$( )` back, or a
here-document's or backquotes' own text) from its first line, for `$LINENO`. In POSIX mode bash
does the opposite for `$( )` and `<( )`: their aliases are expanded when the script is read and
not again when they run (run_parse gives back the body as read); backquotes are read only when
they run, in either mode.

Shell.command_sub / Shell.process_sub come here only while expand_aliases is on and an alias
exists or the node's text has several lines (whose first may define one): otherwise the
read-time body runs, as it did. Parses are cached per run (Runtime.alias_parses),
keyed on the node and on what the parse depends on (the aliases, by the token their table replaces
at every change, and extglob, posix): any change to them (alias, unalias, BASH_ALIASES[x]=, a
session restored, shopt) is a new key.
The commands parsed here run through the executor as any other: the policy decides on what
really runs after the alias is expanded, and the audit sees it.
"""

from __future__ import annotations

from ..limits import LimitExceeded, LimitKind
from ..syntax import ast as A
from ..syntax.errors import ParseError, ParseLimit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .shell import Shell

    Key = tuple[object, bool, bool, bool]

# the parses a run keeps: bounded by the characters they were read from (an alias value is spliced
# into the source it is used in: a long value used by many substitutions must not pile up)
_MAX_CACHED_CHARS = 1 << 20


class TextRun:
    """A substitution's text of several commands (or one that does not parse), run one command at
    a time in its child (Processes.run_subshell_body): after each, if the command changed the
    aliases or the options the parse depends on, the rest of the text is read again with the new
    ones (Shell.run_text), as bash's child reads it."""

    __slots__ = ("chunks", "error", "key", "rests")

    def __init__(
        self,
        chunks: list[A.CommandList],
        rests: list[tuple[str, int]],
        error: ParseError | None,
        key: Key,
    ) -> None:
        self.chunks = chunks
        self.rests = rests  # after chunk i: the text left and its first line
        self.error = error  # where the text stops parsing, after the chunks
        self.key = key

    def __call__(self, sh: Shell) -> int:
        status = sh.state.last_status
        last = len(self.chunks) - (self.error is None)
        for i, chunk in enumerate(self.chunks):
            status = sh.run_list(chunk)
            if i < last and parse_key(sh) != self.key:
                text, line = self.rests[i]
                return sh.run_text(text, "command substitution", line)
        if self.error is not None:
            sh.syntax_error(self.error, "command substitution")
            sh.state.last_status = 2
            return 2
        return status


def parse_key(sh: Shell) -> Key:
    """What a run-time parse depends on (the aliases by their table's token: state.AliasTable)."""
    st = sh.state
    shopts = st.shopts
    return (
        st.aliases.token,
        bool(shopts["expand_aliases"]),
        bool(shopts["extglob"]),
        bool(st.opts["posix"]),
    )


class ParseCache:
    """A run's parses (Runtime.alias_parses; a subshell shares its parent's): (id(node), Key) ->
    (the node, held so its id is not reused; what it runs)."""

    __slots__ = ("chars", "entries")

    def __init__(self) -> None:
        self.entries: dict[tuple[int, Key], tuple[A.CmdSub | A.ProcSub, A.CommandList | TextRun]] = {}
        self.chars = 0


def run_parse(sh: Shell, sub: A.CmdSub | A.ProcSub) -> A.CommandList | TextRun:
    """What `sub` runs now that aliases are on: its text read again with them (cached)."""
    if sh.state.opts["posix"] and not (isinstance(sub, A.CmdSub) and sub.backtick):
        # POSIX mode: a $( ) or <( ) had its aliases expanded when the script was read (if it
        # was read in POSIX mode: else it has none), and bash's child does not expand them again;
        # backquotes are read only when they run, in either mode
        return sub.body
    run = sub.run
    if not sh.state.aliases and (run is None or "\n" not in run[0]):
        return sub.body  # (no alias, one line: the text reads as it was read; `run` kept a line)
    key = parse_key(sh)
    cache = sh.rt.alias_parses
    if cache is None:
        cache = sh.rt.alias_parses = ParseCache()
    entry = cache.entries.get((id(sub), key))
    if entry is not None and entry[0] is sub:
        return entry[1]
    source, base = run or (sub.text, sub.body.line)
    parsed, size = _parse(sh, source, base, key)
    cache.chars += size
    if cache.chars > _MAX_CACHED_CHARS:
        cache.entries.clear()
        cache.chars = size
    cache.entries[(id(sub), key)] = (sub, parsed)
    return parsed


def _parse(sh: Shell, source: str, base: int, key: Key) -> tuple[A.CommandList | TextRun, int]:
    """`source` read from line `base` one complete command at a time (Parser.parse_next), as
    bash's child reads it; one command is the body itself. The size is that of the text read
    (the alias values spliced in)."""
    parser = sh.make_parser(source, base)
    chunks: list[A.CommandList] = []
    rests: list[tuple[str, int]] = []
    error: ParseError | None = None
    try:
        while (chunk := parser.parse_next()) is not None:
            chunks.append(chunk)
            rests.append((parser.src[parser.pos :], parser.line_at(parser.pos)))
    except ParseLimit as e:
        raise LimitExceeded(LimitKind(e.limit), e.value) from None
    except ParseError as e:
        error = e
    size = len(parser.src)
    if error is None and len(chunks) <= 1:
        return (chunks[0] if chunks else A.CommandList((), base)), size
    return TextRun(chunks, rests, error, key), size
