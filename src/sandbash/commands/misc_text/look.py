"""look (util-linux 2.38): the lines of a sorted file that begin with a string.

look finds its lines by the same binary search over the file's bytes as util-linux, then reads on
line by line, so an unsorted file (or one sorted with other -d/-f than the search's) gives the
same partial answer as the real tool: the search assumes C order, case folded with -f, with only
blanks and alphanumerics compared with -d. util-linux maps the file, so only a non-empty regular
file can be read: an empty one (or /dev/null) is `Invalid argument`, a directory or a pipe `No such
device`, and `-` is a file's name.
"""

from __future__ import annotations

import errno

from ...limits import MemoryHold
from ...vfs.errors import FsError, strerror
from ..context import Ctx, _dev_fd
from ..options import CommandSpec, Opt, help_text
from ..record import Effects, declare
from ..textbasic.common import is_regular, read_held, usage_fail

WORDS = "/usr/share/dict/words"
WORDS_ALT = "/usr/share/dict/web2"

LOOK_SPEC = CommandSpec(
    name="look",
    usage="[options] <string> [<file>...]",
    summary="Display lines beginning with a specified string.",
    add_help=False,
    opts=(
        Opt("a", "alternative", help="use the alternative dictionary"),
        Opt("d", "alphanum", help="compare only blanks and alphanumeric characters"),
        Opt("f", "ignore-case", help="ignore case differences when comparing"),
        Opt("t", "terminate", arg="required", metavar="char", help="define the string-termination character"),
        Opt("h", "help", stop=True),
        Opt("V", "version", stop=True),
    ),
)

EQUAL, GREATER, LESS = 0, 1, -1
_BLANK_OR_ALNUM = frozenset(b"\t 0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


class _Search:
    """The key and the file, with util-linux's compare: the line's first len(key) kept bytes
    (all of them, or only blanks and alphanumerics with -d) against the key, as strncmp (or
    strncasecmp with -f) sees them: a NUL ends the line's part."""

    def __init__(self, data: bytes, key: bytes, dflag: bool, fflag: bool) -> None:
        self.data = data
        self.dflag = dflag
        self.fflag = fflag
        if dflag:
            key = bytes(c for c in key if c in _BLANK_OR_ALNUM)
        self.key = key.lower() if fflag else key

    def compare(self, pos: int, end: int) -> int:
        data, want = self.data, len(self.key)
        stop = data.find(b"\n", pos, end)
        line = data[pos : end if stop < 0 else stop]
        if self.dflag:
            part = bytes(c for c in line if c in _BLANK_OR_ALNUM)[:want]
        else:
            part = line[:want]
        part = part.split(b"\0", 1)[0]
        if self.fflag:
            part = part.lower()
        if part == self.key:
            return EQUAL
        return GREATER if part < self.key else LESS

    def skip_line(self, pos: int, end: int) -> int:
        """The start of the line after the one `pos` is in (SKIP_PAST_NEWLINE), or `end`."""
        nl = self.data.find(b"\n", pos, end)
        return end if nl < 0 else nl + 1

    def first(self, ctx: Ctx) -> int | None:
        """The offset of the first line the search finds, or None: the binary search to a line
        at or before the first match (its compare sees the line cut at the current back), then
        a linear walk."""
        front, back = 0, len(self.data)
        p = self.skip_line(front + (back - front) // 2, back)
        while p < back and back > front:
            ctx.checkpoint()
            if self.compare(p, back) == GREATER:
                front = p
            else:
                back = p
            p = self.skip_line(front + (back - front) // 2, back)
        end = len(self.data)
        while front < end:
            ctx.checkpoint()
            found = self.compare(front, end)
            if found == EQUAL:
                return front
            if found == LESS:
                return None
            front = self.skip_line(front, end)
        return None


def _mapped(ctx: Ctx, path: str, mem: MemoryHold) -> bytes:
    """The file as util-linux's mmap of it sees it: its bytes, or the error open, fstat or mmap
    gives (a zero-length map is EINVAL, a directory or pipe ENODEV)."""
    fd = _dev_fd(path)
    if fd is not None:
        stream = ctx.fds.get(fd)
        if stream is None:
            raise FsError(errno.ENOENT, path)
        regular, _size = is_regular(ctx, path, stream)
        if not regular:
            raise FsError(errno.ENODEV, path)
        path = str(getattr(stream, "path", ""))
    st = ctx.fs.stat(path)
    if st.is_dir:
        raise FsError(errno.ENODEV, path)
    stream = ctx.fs.open(path, "r")
    try:
        data = read_held(ctx, stream, mem)
    finally:
        stream.close()
    if not data:
        raise FsError(errno.EINVAL, path)
    return data


@declare("look", spec=LOOK_SPEC, effects=Effects.READS)
def cmd_look(ctx: Ctx) -> int:
    opts, operands = ctx.parse(LOOK_SPEC)
    if opts.has("help"):
        ctx.out(help_text(LOOK_SPEC))
        return 0
    if opts.has("version"):
        ctx.out("look from util-linux 2.38.1\n")  # (as mount and more: the release it follows)
        return 0
    listed = ctx.env.get("WORDLIST", "")
    # WORDLIST names the dictionary only when it can be read; -a always means the alternative
    path = listed if listed and ctx.fs.access(listed, 4) else WORDS
    if opts.has("alternative"):
        path = WORDS_ALT
    dflag, fflag = opts.has("alphanum"), opts.has("ignore_case")
    if len(operands) == 2:
        key_text, path = operands
    elif len(operands) == 1:
        key_text = operands[0]
        dflag = fflag = True  # the dictionary's own order
    else:
        raise usage_fail(ctx, "bad usage")
    key = key_text.encode("utf-8", "surrogateescape")
    term = opts["terminate"].encode("utf-8", "surrogateescape")[:1] if opts.has("terminate") else b""
    if term and term != b"\0" and term in key:
        key = key[: key.index(term) + 1]
    with ctx.hold_memory() as mem:  # the whole file, held while it is searched
        try:
            data = _mapped(ctx, path, mem)
        except FsError as e:
            ctx.error(f"{path}: {strerror(e.errno or errno.EIO)}")
            return 1
        return _look(ctx, _Search(data, key, dflag, fflag))


def _look(ctx: Ctx, search: _Search) -> int:
    """Print the run of matching lines from the first one the search finds."""
    data = search.data
    front = search.first(ctx)
    if front is None:
        return 1
    end = len(data)
    start = front
    while front < end and search.compare(front, end) == EQUAL:
        ctx.checkpoint()
        front = search.skip_line(front, end)
    ctx.stdout.write(data[start:front])
    return 0
