"""sort: GNU coreutils sort on bytes.

In-memory sorting decorates each line with its key values once and then runs
one stable C-speed sort per key, last key first (and the last-resort whole-line
comparison before them), so per-key reversal needs no comparison function.
Inputs larger than a run (RUN_BYTES of lines, or RUN_WORK of lines and their
records, whose key values are measured on the first lines) are sorted in runs that
are kept compressed in memory, charged to max_memory, and merged (spill.py):
memory stays bounded by the run size and the compressed runs, and no temporary
file is written."""

from __future__ import annotations

import errno
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import chain
from operator import itemgetter

from ...limits import LimitExceeded, MemoryHold
from ...stdio.streams import STDIO_BLOCK, ClosedStream, Stream, StreamError
from ...vfs.errors import FsError, strerror
from ..context import CommandExit, Ctx
from ..fsutil import FileRewrite, rewrites_in_place
from ..options import CommandSpec, Opt
from ..record import Effects, declare
from ..textbasic.common import (
    Out,
    WriteError,
    close_input,
    decode,
    encode,
    quote,
    quoteaf,
    quotef,
    split_records,
)
from .keys import (
    Key,
    KeySpecError,
    Reversed,
    blank_key_rx,
    key_span,
    make_value,
    numeric_extractor,
    parse_key,
    set_ordering,
    value_cost,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .tempdir import TempDirs

Annotate = Callable[[bytes], bytes]  # --debug: an output line to its marked text
Bulk = Callable[[list[bytes]], Iterable["Any"]]  # a list of lines to their key values, in order

# inputs larger than this are sorted in runs spilled to the temporary directory
RUN_BYTES = 16 << 20
# what one run's sort may hold at most: its lines and their records (a tuple and the key values
# each), so runs of heavy keys (-k2: most of the line again) hold fewer lines
RUN_WORK = 26 << 20
# lines whose keys are measured for what a record costs
_COST_SAMPLE = 256

SORT_SPEC = CommandSpec(
    name="sort",
    summary="Write sorted concatenation of all FILE(s) to standard output.",
    usage_status=2,
    opts=(
        Opt("b", "ignore-leading-blanks", help="ignore leading blanks"),
        Opt("d", "dictionary-order", help="consider only blanks and alphanumeric characters"),
        Opt("f", "ignore-case", help="fold lower case to upper case characters"),
        Opt("g", "general-numeric-sort", help="compare according to general numerical value"),
        Opt("i", "ignore-nonprinting", help="consider only printable characters"),
        Opt("M", "month-sort", help="compare (unknown) < 'JAN' < ... < 'DEC'"),
        Opt("h", "human-numeric-sort", help="compare human readable numbers (e.g., 2K 1G)"),
        Opt("n", "numeric-sort", help="compare according to string numerical value"),
        Opt("R", "random-sort", help="shuffle, but group identical keys"),
        Opt(None, "random-source", arg="required", metavar="FILE", help="get random bytes from FILE"),
        Opt("r", "reverse", help="reverse the result of comparisons"),
        Opt(None, "sort", arg="required", metavar="WORD", help="sort according to WORD"),
        Opt("V", "version-sort", help="natural sort of (version) numbers within text"),
        Opt(None, "batch-size", arg="required", metavar="NMERGE", help="merge at most NMERGE inputs at once"),
        Opt("c", None, dest="check_plain", help="check for sorted input; do not sort"),
        Opt(None, "check", arg="optional", metavar="diagnose-first", help="like -c, or -C with quiet/silent"),
        Opt("C", None, dest="check_quiet", help="like -c, but do not report first bad line"),
        Opt(None, "compress-program", arg="required", metavar="PROG", help="(ignored)"),
        Opt(None, "debug", help="annotate the part of the line used to sort"),
        Opt(
            None, "files0-from", arg="required", metavar="F", help="read input from NUL-terminated names in F"
        ),
        Opt("k", "key", arg="required", multi=True, metavar="KEYDEF", help="sort via a key"),
        Opt("m", "merge", help="merge already sorted files; do not sort"),
        Opt("o", "output", arg="required", multi=True, metavar="FILE", help="write result to FILE"),
        Opt("s", "stable", help="stabilize sort by disabling last-resort comparison"),
        Opt(
            "S",
            "buffer-size",
            arg="required",
            metavar="SIZE",
            help="(accepted; memory use is bounded anyway)",
        ),
        Opt(
            "t",
            "field-separator",
            arg="required",
            multi=True,
            metavar="SEP",
            help="use SEP as field separator",
        ),
        Opt(
            "T",
            "temporary-directory",
            arg="required",
            multi=True,
            metavar="DIR",
            help="use DIR for temporaries",
        ),
        Opt(None, "parallel", arg="required", metavar="N", help="(accepted; sorting is single-threaded)"),
        Opt("u", "unique", help="output only the first of an equal run"),
        Opt("z", "zero-terminated", help="line delimiter is NUL, not newline"),
        Opt("y", None, arg="required", dest="y", help=""),
    ),
)

_KEY_SLICE = 32768
_SORT_WORDS = {
    "general-numeric": "g",
    "human-numeric": "h",
    "month": "M",
    "numeric": "n",
    "random": "R",
    "version": "V",
}
_S_SIZE = re.compile(r"([0-9]+)([kKmMgGtTpPeEzZyYbB%]?)$")


_SALT_BYTES = 16  # GNU sort -R seeds its MD5 state with one digest's worth of random bytes


def _random_salt(ctx: Ctx, source: str) -> bytes:
    """The first 16 bytes of --random-source, all GNU sort reads of it: /dev/zero or an endless pipe
    is a fine source, and with these bytes -R orders lines as GNU does (MD5 of salt + key)."""
    try:
        stream = ctx.open_in("./-" if source == "-" else source)  # (no stdin: GNU opens the name)
    except FsError as e:
        if e.errno == errno.EISDIR:
            raise _die(ctx, f"{quote(ctx, source)}: read error: {strerror(e.errno)}")
        raise _die(ctx, f"open failed: {source}: {strerror(e.errno or 5)}")
    data = b""
    try:
        while len(data) < _SALT_BYTES:
            chunk = stream.read(_SALT_BYTES - len(data))
            if not chunk:
                raise _die(ctx, f"{quote(ctx, source)}: end of file")
            data += chunk
    except (FsError, StreamError) as e:
        raise _die(ctx, f"{quote(ctx, source)}: read error: {strerror(e.errno or 5)}")
    finally:
        if stream is not ctx.stdin and not ctx.names_fd(source):
            stream.close()
    return data


def _collating(env: Mapping[str, str]) -> bool:
    """Whether the collation locale (LC_ALL, LC_COLLATE, LANG: the first set) is one gnulib's
    hard_locale calls hard: anything but C and POSIX."""
    for var in ("LC_ALL", "LC_COLLATE", "LANG"):
        value = env.get(var)
        if value:
            return value not in ("C", "POSIX")
    return False


def _die(ctx: Ctx, message: str, status: int = 2) -> CommandExit:
    ctx.error(message)
    return CommandExit(status)


class Sorter:
    """The comparison GNU sort would make, as key functions."""

    def __init__(
        self,
        keys: list[Key],
        gkey: Key,
        tab: int | None,
        stable: bool,
        unique: bool,
        salt: bytes,
        collating: bool = False,
    ) -> None:
        self.keys = keys
        self.gkey = gkey
        self.tab = tab
        self.stable = stable
        self.unique = unique
        self.reverse = gkey.reverse
        self.last_resort = not (stable or unique)
        self.plain = not keys
        extractors: list[Callable[[bytes], Any]] = []
        bulks: list[Bulk] = []
        for k in keys:
            one, bulk = self._extractor(k, salt, collating)
            extractors.append(one)
            bulks.append(bulk)
        self.extractors = extractors
        self.bulks = bulks
        # bytes a record costs besides its line: its tuple and slot, and the key values (an
        # estimate until measure() sees the input's keys)
        self.per_record = 0 if self.plain else 56 + 64 * len(extractors)
        self.annotate: Annotate | None = None  # --debug's marking of each output line

    def _extractor(self, key: Key, salt: bytes, collating: bool) -> tuple[Callable[[bytes], Any], Bulk]:
        """The key's value of one line, and of a list of lines at once (map()s over C-level
        steps where the key's shape allows: no Python frame per line)."""
        tab = self.tab
        fused = numeric_extractor(key, tab)
        if fused is not None:
            return fused
        value = make_value(key, salt, collating)
        whole = key.sword == 0 and key.schar == 0 and key.eword is None and not key.skipsblanks
        simple_field = (
            tab is not None
            and key.schar == 0
            and key.echar == 0
            and not key.skipsblanks
            and key.eword == key.sword
        )
        rx = blank_key_rx(key) if tab is None and not whole else None
        spans: Bulk
        if whole:
            span: Callable[[bytes], bytes] = _identity
            spans = _identity  # type: ignore[assignment]
        elif simple_field:
            n = key.sword
            sep = bytes([tab]) if tab is not None else b""

            def span(line: bytes) -> bytes:  # (a split with a count is cheaper than a pattern)
                parts = line.split(sep, n + 1)
                return parts[n] if len(parts) > n else b""

            def spans(part: list[bytes]) -> Iterable[Any]:
                return map(span, part)
        elif rx is not None:
            match = rx.match  # (every part of the pattern may be empty: it always matches)
            group1 = itemgetter(1)

            def span(line: bytes) -> bytes:
                return match(line)[1]  # type: ignore[index]

            def spans(part: list[bytes]) -> Iterable[Any]:
                return map(group1, map(match, part))  # type: ignore[arg-type]
        else:

            def span(line: bytes) -> bytes:
                return key_span(line, key, tab)

            def spans(part: list[bytes]) -> Iterable[Any]:
                return map(span, part)

        if value is None:
            return span, spans
        if span is _identity:
            return value, lambda part: map(value, part)
        return lambda line: value(span(line)), lambda part: map(value, spans(part))

    # -- in memory: records are (key values..., line) tuples, or the lines themselves when there
    # is no key; spilled runs keep them (spill.py), so a merge never extracts a key again

    def sort(self, ctx: Ctx, lines: list[bytes]) -> list[bytes]:
        with ctx.hold_memory() as mem:
            mem.charge(self.record_cost(len(lines)))
            return self.lines_of(self.sorted_records(ctx, lines))

    def record_cost(self, n: int) -> int:
        """Bytes `n` records cost besides their lines: a tuple, its slot and the key objects."""
        return n * self.per_record

    def measure(self, lines: list[bytes]) -> None:
        """Set what a record costs from the key values of the first lines (a tuple of n keys and
        the line: 56 + 8n bytes with its slot; each value's own size)."""
        if self.plain or not lines:
            return
        sample = lines[:_COST_SAMPLE]
        values = sum(sum(map(value_cost, bulk(sample))) for bulk in self.bulks)
        self.per_record = 56 + 8 * len(self.bulks) + values // len(sample)

    def sorted_records(self, ctx: Ctx, lines: list[bytes]) -> list[Any]:
        """The lines' records in output order (-u applied)."""
        ctx.checkpoint(len(lines) + 1)
        records = self.decorate(ctx, lines)
        self.order(records)
        return self.unique_records(records) if self.unique else records

    def merge_records(self, ctx: Ctx, records: list[Any]) -> list[Any]:
        """Records laid end to end in sorted pieces, in output order (-u applied)."""
        ctx.checkpoint(len(records) + 1)
        self.order(records, pieces=True)
        return self.unique_records(records) if self.unique else records

    def decorate(self, ctx: Ctx, lines: list[bytes]) -> list[Any]:
        if self.plain:
            return lines
        n = len(self.bulks)
        bulks = self.bulks
        records: list[tuple[Any, ...]] = []
        # keys are computed in slices so that the deadline is seen between them
        for start in range(0, len(lines), _KEY_SLICE):
            part = lines[start : start + _KEY_SLICE]
            if n == 1:
                records.extend(zip(bulks[0](part), part, strict=True))
            else:
                records.extend(zip(*[b(part) for b in bulks], part, strict=True))
            ctx.checkpoint(len(part) * n + 1)
        return records

    def order(self, records: list[Any], pieces: bool = False) -> None:
        """Sort records in place: one stable sort per key, last first, after the last-resort
        comparison (cheaper than one sort comparing tuples). Records in sorted `pieces` laid end
        to end, where every comparison runs one way, take one sort of the records themselves
        (or of their keys, with -s or -u): it only merges the pieces."""
        if self.plain:
            records.sort(reverse=self.reverse)
            return
        n = len(self.extractors)
        if pieces and self.one_way is not None:
            if self.last_resort:
                records.sort(reverse=self.one_way)
            else:
                records.sort(key=self.keys_of, reverse=self.one_way)
            return
        if self.last_resort:
            records.sort(key=itemgetter(n), reverse=self.reverse)
        for i in range(n - 1, -1, -1):
            records.sort(key=itemgetter(i), reverse=self.keys[i].reverse)

    @property
    def one_way(self) -> bool | None:
        """Whether every comparison is reversed (True) or none is (False); None when mixed."""
        ways = {k.reverse for k in self.keys}
        if self.last_resort:
            ways.add(self.reverse)
        return ways.pop() if len(ways) == 1 else None

    @property
    def keys_of(self) -> Callable[[Any], Any]:
        """A record's key values (what -u compares), one value or a tuple."""
        n = len(self.extractors)
        return itemgetter(*range(n)) if n > 1 else itemgetter(0)

    def unique_records(self, records: list[Any]) -> list[Any]:
        if self.plain:
            return _dedupe(records)
        # the first record of each run of equal keys: each key beside the one before it
        keys = list(map(self.keys_of, records))
        before = chain((_NO_KEY,), keys)
        return [rec for rec, k, b in zip(records, keys, before, strict=False) if k != b]

    def text_bytes(self, records: list[Any]) -> int:
        """The length of the records' lines."""
        if self.plain:
            return sum(map(len, records))
        return sum(map(len, map(itemgetter(len(self.extractors)), records)))

    def lines_of(self, records: list[Any]) -> list[bytes]:
        return records if self.plain else list(map(itemgetter(len(self.extractors)), records))

    def record_key(self) -> Callable[[Any], Any]:
        """A record to a value whose natural order is the output order (Reversed wrappers: for
        a few comparisons, not for sorting)."""
        if self.plain:
            return Reversed if self.reverse else _identity
        revs = list(enumerate(k.reverse for k in self.keys))
        last = self.last_resort
        n = len(revs)
        greverse = self.reverse

        def key(rec: tuple[Any, ...]) -> tuple[Any, ...]:
            parts = [Reversed(rec[i]) if r else rec[i] for i, r in revs]
            if last:
                parts.append(Reversed(rec[n]) if greverse else rec[n])
            return tuple(parts)

        return key

    def record_same(self) -> Callable[[Any], Any]:
        """What -u compares of a record."""
        return _identity if self.plain else self.keys_of

    # -- merging and checking: one key with Reversed wrappers

    def merge_key(self) -> Callable[[bytes], Any]:
        ext = self.extractors
        revs = [k.reverse for k in self.keys]
        last = self.last_resort
        greverse = self.reverse
        if self.plain:
            if greverse:
                return Reversed
            return _identity

        def key(line: bytes) -> tuple[Any, ...]:
            parts: list[Any] = []
            for f, r in zip(ext, revs, strict=True):
                v = f(line)
                parts.append(Reversed(v) if r else v)
            if last:
                parts.append(Reversed(line) if greverse else line)
            return tuple(parts)

        return key

    def equal_key(self) -> Callable[[bytes], Any]:
        """What -u compares: the keys without the last resort."""
        if self.plain:
            return _identity
        ext = self.extractors
        return lambda line: tuple(f(line) for f in ext)


_NO_KEY = object()  # unequal to every key


def _identity(line: bytes) -> bytes:
    return line


def _dedupe(lines: list[bytes]) -> list[bytes]:
    out: list[bytes] = []
    prev: bytes | None = None
    for line in lines:
        if line != prev:
            out.append(line)
            prev = line
    return out


# ------------------------------------------------------------------ options


def _parse_keys(ctx: Ctx, opts: Any) -> tuple[list[Key], Key]:
    gkey = Key()
    letters = ""
    for key, value in opts.order:
        if key in ("ignore_leading_blanks",):
            letters += "b"
        elif key == "dictionary_order":
            letters += "d"
        elif key == "ignore_case":
            letters += "f"
        elif key == "general_numeric_sort":
            letters += "g"
        elif key == "ignore_nonprinting":
            letters += "i"
        elif key == "month_sort":
            letters += "M"
        elif key == "human_numeric_sort":
            letters += "h"
        elif key == "numeric_sort":
            letters += "n"
        elif key == "random_sort":
            letters += "R"
        elif key == "reverse":
            letters += "r"
        elif key == "version_sort":
            letters += "V"
        elif key == "sort":
            word = _pick_word(ctx, value)
            letters += _SORT_WORDS[word]
    set_ordering(gkey, letters, False)
    if gkey.skipsblanks:
        gkey.skipeblanks = True
    keys: list[Key] = []
    for spec in opts.get("key") or []:
        k = _key(ctx, spec)
        if k.default_compare() and not k.reverse:
            k.inherit(gkey)
        keys.append(k)
    if not keys and not gkey.default_compare():
        whole = Key()
        whole.inherit(gkey)
        keys.append(whole)
    for k in keys:  # the global options matter only through the keys that use them
        if k.incompatible():
            raise _die(ctx, f"options '-{k.opts_letters()}' are incompatible")
    return keys, gkey


def _key(ctx: Ctx, spec: str) -> Key:
    try:
        return parse_key(spec)
    except KeySpecError as e:
        if "invalid count" in e.message:
            raise _die(ctx, f"{e.message} {quote(ctx, e.spec)}") from None
        raise _die(ctx, f"{e.message}: invalid field specification {quote(ctx, spec)}") from None


def _check_in_order(ctx: Ctx, opts: Any) -> None:
    """GNU sort dies on a bad -k, -t, -S, --parallel or --batch-size as its option loop meets it:
    the first bad one on the command line is the one reported (`-t '\\t' -k0` names the tab)."""
    tabs: list[str] = []
    for key, value in opts.order:
        if key == "key":
            _key(ctx, value)
        elif key == "field_separator":
            tabs.append(value)
            _parse_tab(ctx, tabs)
        elif key in ("buffer_size", "parallel", "batch_size"):
            _validate_misc(ctx, {key: value})


def _pick_word(ctx: Ctx, value: str) -> str:
    matches = [w for w in _SORT_WORDS if w.startswith(value)]
    if value in _SORT_WORDS:
        return value
    if len(matches) == 1:
        return matches[0]
    kind = "ambiguous" if matches else "invalid"
    ctx.error(f"{kind} argument {quote(ctx, value)} for {quote(ctx, '--sort')}")
    valid = "".join(f"  - {quote(ctx, w)}\n" for w in _SORT_WORDS)
    ctx.stderr.write(
        encode("Valid arguments are:\n" + valid + f"Try '{ctx.help_prog} --help' for more information.\n")
    )
    raise CommandExit(1)


def _parse_tab(ctx: Ctx, values: list[str]) -> int | None:
    tab: int | None = None
    for v in values:
        raw = encode(v)
        if not raw:
            raise _die(ctx, "empty tab")
        if len(raw) > 1:
            if raw == b"\\0":
                raw = b"\0"
            else:
                raise _die(ctx, f"multi-character tab {quote(ctx, v)}")
        if tab is not None and tab != raw[0]:
            raise _die(ctx, "incompatible tabs")
        tab = raw[0]
    return tab


def _validate_misc(ctx: Ctx, opts: Any) -> None:
    size = opts.get("buffer_size")
    if size is not None:
        m = _S_SIZE.match(size)
        if not m:
            bad = "invalid suffix in" if re.match(r"[0-9]", size) else "invalid"
            raise _die(ctx, f"{bad} -S argument {quoteaf(size)}")
    par = opts.get("parallel")
    if par is not None:
        if not par.strip().isdigit():
            raise _die(ctx, f"invalid --parallel argument {quoteaf(par)}")
        if int(par) == 0:
            raise _die(ctx, "number in parallel must be nonzero")
    batch = opts.get("batch_size")
    if batch is not None:
        if not batch.isdigit():
            raise _die(ctx, f"invalid --batch-size argument {quoteaf(batch)}")
        if int(batch) < 2:
            ctx.error(f"invalid --batch-size argument {quote(ctx, batch)}")
            raise _die(ctx, f"minimum --batch-size argument is {quote(ctx, '2')}")
    outs = opts.get("output") or []
    if len(set(outs)) > 1:
        raise _die(ctx, "multiple output files specified")


# ------------------------------------------------------------------ reading


def _open_inputs(ctx: Ctx, names: list[str]) -> list[tuple[str, Stream]]:
    opened: list[tuple[str, Stream]] = []
    for name in names:
        try:
            opened.append((name, ctx.open_in(name)))
        except FsError as e:
            for n, s in opened:
                close_input(ctx, n, s)
            if e.errno == errno.EISDIR:
                raise _die(ctx, f"read failed: {quotef(name)}: {strerror(e.errno)}")
            raise _die(ctx, f"cannot read: {quotef(name)}: {strerror(e.errno or 5)}")
    return opened


def _records(ctx: Ctx, name: str, stream: Stream, sep: bytes) -> Iterator[list[bytes]]:
    """Batches of records without separators (`split_records`: a long record is charged to
    max_memory while it is awaited and while it is held); a failed read is sort's `read failed`."""
    try:
        for records, _tail in split_records(ctx, stream, sep):
            yield records
    except (FsError, StreamError) as e:
        raise _die(ctx, f"read failed: {quotef(name)}: {strerror(e.errno or 5)}")
    finally:
        close_input(ctx, name, stream)


def _lines(ctx: Ctx, name: str, stream: Stream, sep: bytes) -> Iterator[bytes]:
    for batch in _records(ctx, name, stream, sep):
        yield from batch


def _files0(ctx: Ctx, source: str, files: list[str]) -> list[str]:
    if files:
        ctx.error(f"extra operand {quote(ctx, files[0])}")
        ctx.stderr.write(b"file operands cannot be combined with --files0-from\n")
        ctx.stderr.write(f"Try '{ctx.help_prog} --help' for more information.\n".encode())
        raise CommandExit(2)
    try:
        data = ctx.read_input(source)
    except FsError as e:
        raise _die(ctx, f"cannot open {quoteaf(source)} for reading: {strerror(e.errno or 5)}")
    names = [decode(n) for n in data.split(b"\0")]
    if names and names[-1] == "":
        names.pop()
    for i, n in enumerate(names):
        if not n:
            raise _die(ctx, f"{quotef(source)}:{i + 1}: invalid zero-length file name")
    if not names:
        raise _die(ctx, f"no input from {quoteaf(source)}")
    return names


# ------------------------------------------------------------------ the command


@declare("sort", spec=SORT_SPEC, effects=Effects.OUTPUTS)
def cmd_sort(ctx: Ctx) -> int:
    opts, files = ctx.parse(SORT_SPEC)
    _check_in_order(ctx, opts)
    keys, gkey = _parse_keys(ctx, opts)
    tab = _parse_tab(ctx, opts.get("field_separator") or [])
    _validate_misc(ctx, opts)
    sep = b"\0" if opts.get("zero_terminated") else b"\n"
    check_mode = None
    if opts.has("check_quiet"):
        check_mode = "quiet"
    if opts.has("check_plain"):
        check_mode = check_mode or "diagnose"
    if opts.has("check"):
        value = opts.get("check")
        if value is None or "diagnose-first".startswith(value):
            check_mode = check_mode or "diagnose"
        elif value and ("quiet".startswith(value) or "silent".startswith(value)):
            check_mode = "quiet"
        else:
            ctx.error(f"invalid argument {quote(ctx, value)} for {quote(ctx, '--check')}")
            ctx.stderr.write(
                encode(
                    f"Valid arguments are:\n  - {quote(ctx, 'quiet')}, {quote(ctx, 'silent')}\n"
                    f"  - {quote(ctx, 'diagnose-first')}\n"
                    f"Try '{ctx.help_prog} --help' for more information.\n"
                )
            )
            return 1
    # (as GNU, --random-source is opened only when a key is random: `sort --random-source=/nonexistent`
    # sorts; and random is imported only then)
    salt = b""
    if any(k.random for k in keys):
        source = opts.get("random_source")
        salt = ctx.rng.randbytes(_SALT_BYTES) if source is None else _random_salt(ctx, source)
    if opts.get("debug"):
        ctx.error(
            "text ordering performed using \u2018C.UTF-8\u2019 sorting rules"
            if "UTF-8" in str(ctx.env.get("LC_ALL", ctx.env.get("LANG", "")))
            else "text ordering performed using simple byte comparison"
        )
        from .debug import warnings

        for line in warnings(
            keys, gkey, tab, not opts.get("key"), bool(opts.get("stable")), bool(opts.get("unique"))
        ):
            ctx.error(line)
    sorter = Sorter(
        keys, gkey, tab, bool(opts.get("stable")), bool(opts.get("unique")), salt, _collating(ctx.env)
    )
    if opts.get("debug") and not opts.get("output"):  # (GNU marks only what goes to standard output)
        from .debug import annotator

        sorter.annotate = annotator(keys, gkey, tab, sorter.stable, sorter.unique)
    f0 = opts.get("files0_from")
    if f0 is not None:
        files = _files0(ctx, f0, files)
    if check_mode is not None:
        if len(files) > 1:
            raise _die(
                ctx,
                f"extra operand {quoteaf(files[1])} not allowed with -{'c' if check_mode != 'quiet' else 'C'}",
            )
        return _check(ctx, sorter, (files or ["-"])[0], sep, check_mode == "quiet")
    names = files or ["-"]
    opened = _open_inputs(ctx, names)
    if not opts.get("merge") and any(isinstance(st, ClosedStream) for _n, st in opened):
        # sorting fstat()s every input first to size its buffer (merging reads them at once)
        for n, st in opened:
            close_input(ctx, n, st)
        raise _die(ctx, f"stat failed: -: {strerror(errno.EBADF)}")
    outs = opts.get("output") or []
    output = outs[0] if outs else None
    try:
        if opts.get("merge"):
            if output is not None and output in names:
                # the output overwrites an input: read everything first
                data = [list(_lines(ctx, n, s, sep)) for n, s in opened]
                result: Iterable[bytes] = _merge(sorter, [iter(d) for d in data])
            else:
                result = _merge(sorter, [_lines(ctx, n, s, sep) for n, s in opened])
            return _emit(ctx, result, output, sep, sorter.annotate)
        from .tempdir import TempDirs

        temps = TempDirs(ctx, opts.get("temporary_directory") or [], opts.get("buffer_size"), opened)
        return _sort_inputs(ctx, sorter, opened, output, sep, temps if temps.buffer else None)
    except WriteError as e:
        # GNU's sort finds a failure of its last, partial buffer as it flushes before exit, and
        # close_stdout then reports its standard output's error again (-o FILE reopens stdout)
        how = "write failed" if e.size >= STDIO_BLOCK else "fflush failed"
        ctx.error(f"{how}: {quotef('standard output' if output is None else output)}: {strerror(e.errno)}")
        ctx.error("write error" + (f": {strerror(e.errno)}" if e.errno == errno.EBADF else ""))
        return 2


def _merge(sorter: Sorter, streams: list[Iterator[bytes]]) -> Iterator[bytes]:
    import heapq  # (sort -m and spilled runs only)

    merged = heapq.merge(*streams, key=sorter.merge_key())
    if not sorter.unique:
        return merged
    return _unique_stream(merged, sorter.equal_key())


def _unique_stream(lines: Iterable[bytes], key: Callable[[bytes], Any]) -> Iterator[bytes]:
    prev: Any = None
    first = True
    for line in lines:
        k = key(line)
        if first or k != prev:
            yield line
            prev = k
            first = False


def _open_output(ctx: Ctx, output: str | None) -> tuple[Stream, FileRewrite | None]:
    """Where -o writes: an existing regular file (which may be one of the inputs) gets its
    new content beside it, swapped in only when complete, so a failure leaves it whole."""
    if output is None:
        return ctx.stdout, None
    try:
        if rewrites_in_place(ctx.fs, output):
            rewrite = FileRewrite(ctx.fs, output, prefix="sort", follow=True, rng=ctx.rng)
            return rewrite.stream, rewrite
        return ctx.open_out(output), None
    except FsError as e:
        raise _die(ctx, f"open failed: {quotef(output)}: {strerror(e.errno or 5)}")


def _close_output(
    ctx: Ctx, output: str | None, stream: Stream, rewrite: FileRewrite | None, ok: bool
) -> None:
    if rewrite is None:
        if output is not None and not output.startswith("/dev/"):
            stream.close()
    elif not ok:
        rewrite.abort()
    else:
        try:
            rewrite.commit()
        except FsError as e:
            raise _die(ctx, f"write failed: {quotef(output or '')}: {strerror(e.errno or 5)}")


def _emit(
    ctx: Ctx, lines: Iterable[bytes], output: str | None, sep: bytes, annotate: Annotate | None = None
) -> int:
    if annotate is not None:  # --debug: each line with its keys marked, ended by a newline (also -z)
        lines, sep = map(annotate, lines), b"\n"
    stream, rewrite = _open_output(ctx, output)
    out = Out(stream)
    n = 0
    batch: list[bytes] = []
    ok = False
    try:
        if isinstance(lines, list):
            for i in range(0, len(lines), 16384):
                part = lines[i : i + 16384]
                ctx.checkpoint(len(part))
                part.append(b"")
                out.write(sep.join(part))
        else:
            for line in lines:
                batch.append(line)
                n += 1
                if n >= 4096:
                    ctx.checkpoint(n)
                    out.write(sep.join(batch) + sep)
                    batch = []
                    n = 0
            if batch:
                out.write(sep.join(batch) + sep)
        out.flush()
        ok = True
    finally:
        _close_output(ctx, output, stream, rewrite, ok)
    return 0


def _sort_inputs(
    ctx: Ctx,
    sorter: Sorter,
    opened: list[tuple[str, Stream]],
    output: str | None,
    sep: bytes,
    temps: TempDirs | None = None,
) -> int:
    from .spill import MemRuns, blocks_of, merge_blocks, per_block

    # with -s and keys, equal-key lines keep their input order: identical lines must not be gathered
    counting = not (sorter.stable and not sorter.plain)
    mem = ctx.hold_memory()
    # a run is a share of the run's memory budget (what sorting it may double)
    share = ctx.limits.max_memory // 4
    acc = _Accumulator(counting, mem, min(RUN_BYTES, share), min(RUN_WORK, share), sorter)
    spilled: MemRuns | None = None
    measured = False
    try:
        for name, stream in opened:
            for batch in _records(ctx, name, stream, sep):
                if temps is not None:
                    temps.read(batch)
                if not measured and batch:
                    sorter.measure(batch)
                    measured = True
                if acc.add(batch):
                    if spilled is None:
                        spilled = MemRuns(ctx, sorter, sep)
                    n = per_block(acc.text_bytes, acc.total)
                    run = _expanded(sorter, acc.sorted(ctx, sorter))
                    acc.lines = []  # (the records hold the lines: stored, they go)
                    if isinstance(run, list) and not spilled.keeps_keys(run):
                        run = sorter.lines_of(run)  # (keys made again as blocks are read go at once)
                        spilled.spill(run, n, lines=True)
                    else:
                        spilled.spill(run, n)
                    del run
                    acc = _Accumulator(counting, mem, acc.limit, acc.work, sorter)
        if temps is not None:
            temps.finish()
        if spilled is None:
            records, counts = acc.sorted(ctx, sorter)
            lines = sorter.lines_of(records)
            del records  # (the keys are not needed to write the lines)
            if sorter.annotate is not None:
                return _emit(ctx, _expanded(None, (lines, counts)), output, sep, sorter.annotate)
            return _emit_counted(ctx, (lines, counts), output, sep)
        n = per_block(acc.text_bytes, acc.total)
        runs = [spilled.reader(i) for i in range(len(spilled.runs))]
        last = _expanded(sorter, acc.sorted(ctx, sorter))
        acc.lines = []  # (the records hold the lines: given to the merge, they go as it goes)
        if isinstance(last, list) and not spilled.keeps_keys(last):
            # keys that spilled runs make again are made again here too, a block at a time,
            # rather than held for the whole merge
            text = sorter.lines_of(last)
            del last
            runs.append(sorter.decorate(ctx, part) for part in blocks_of(text, n))
        else:
            runs.append(blocks_of(last, n))
        merged = merge_blocks(ctx, sorter, runs)
        if sorter.annotate is not None:
            return _emit(ctx, (line for block in merged for line in block), output, sep, sorter.annotate)
        return _emit_blocks(ctx, merged, output, sep)
    finally:
        mem.close()
        if spilled is not None:
            spilled.close()


def _emit_blocks(ctx: Ctx, blocks: Iterable[list[bytes]], output: str | None, sep: bytes) -> int:
    stream, rewrite = _open_output(ctx, output)
    out = Out(stream)
    ok = False
    try:
        for block in blocks:
            ctx.checkpoint(len(block))
            block.append(b"")
            out.write(sep.join(block))
        out.flush()
        ok = True
    finally:
        _close_output(ctx, output, stream, rewrite, ok)
    return 0


# bytes a kept line costs besides its text: the bytes object and its list slot
_LINE_COST = 48
# while at most this share of the lines read are distinct, identical lines are counted, not kept
_DISTINCT_SHARE = 0.5
_COUNT_PROBE = 4096


class _Accumulator:
    """One run's lines. Identical lines sort together and compare equal under
    every key and option, so while the input repeats itself they are kept once
    with a count (hashing is much cheaper than comparing in the sort, and 1 GB
    of a few hundred distinct lines needs no spilling); input that does not
    repeat itself switches to a plain list."""

    def __init__(self, counting: bool, mem: MemoryHold, limit: int, work: int, sorter: Sorter) -> None:
        self.counts: Counter[bytes] | None = Counter() if counting else None
        self.lines: list[bytes] = []
        self.nlines = 0
        self.size = 0
        self.total = 0  # lines and bytes of text taken (a counted line each time it came)
        self.text_bytes = 0
        # the run's lines are charged to the run's memory (set to what is held)
        self.mem = mem
        self.limit = limit  # the lines' share
        self.work = work  # the lines' and their records' (made when the run is sorted)
        self.sorter = sorter
        mem.set(0)

    def add(self, batch: list[bytes]) -> bool:
        """Take a batch; True when the run is full and must be spilled (its size, or its size
        with its records', reached the limit, or the run's memory has no room for more)."""
        counts = self.counts
        nbytes = sum(map(len, batch))
        self.total += len(batch)
        self.text_bytes += nbytes
        if counts is not None:
            before = len(counts)
            counts.update(batch)  # counted in C
            self.nlines += len(batch)
            added = len(counts) - before
            # the new distinct lines, at the batch's average length, and their entries
            self.size += added * (nbytes // len(batch) + _LINE_COST + 80)
            if self.nlines >= _COUNT_PROBE and len(counts) > self.nlines * _DISTINCT_SHARE:
                self.lines = list(_expanded(None, ([line for line in counts], counts)))
                self.counts = None
                self.size = sum(map(len, self.lines)) + len(self.lines) * _LINE_COST
        else:
            self.lines.extend(batch)
            self.size += nbytes + len(batch) * _LINE_COST
        try:
            self.mem.set(self.size)
        except LimitExceeded:
            if self.nlines == 0 and not self.lines:
                raise
            return True  # spill what there is now
        records = len(self.lines) if self.counts is None else len(self.counts)
        return self.size >= self.limit or self.size + self.sorter.record_cost(records) >= self.work

    def sorted(self, ctx: Ctx, sorter: Sorter) -> tuple[list[Any], dict[bytes, int] | None]:
        """The sorted records (Sorter.sorted_records), and the count of each line when they were
        counted. Their keys are charged to the run's memory while the run is held."""
        lines = self.lines if self.counts is None else list(self.counts)
        self.mem.set(self.size + sorter.record_cost(len(lines)))
        records = sorter.sorted_records(ctx, lines)
        if self.counts is None:
            return records, None
        return records, (None if sorter.unique else self.counts)


def _expanded(
    sorter: Sorter | None, run: tuple[list[Any], dict[bytes, int] | None]
) -> list[Any] | Iterator[Any]:
    """The run's records (or lines, without a sorter), each as often as its line was counted:
    given one at a time (a line counted 200 million times would be a list of 200 million slots,
    ~1.6 GB no budget saw)."""
    records, counts = run
    if counts is None:
        return records
    if sorter is None or sorter.plain:
        return (line for line in records for _ in range(counts[line]))
    n = len(sorter.extractors)
    return (rec for rec in records for _ in range(counts[rec[n]]))


def _emit_counted(
    ctx: Ctx, run: tuple[list[bytes], dict[bytes, int] | None], output: str | None, sep: bytes
) -> int:
    lines, counts = run
    if counts is None:
        return _emit(ctx, lines, output, sep)
    stream, rewrite = _open_output(ctx, output)
    out = Out(stream)
    ok = False
    try:
        for i in range(0, len(lines), 4096):
            part = lines[i : i + 4096]
            ctx.checkpoint(len(part))
            for line in part:
                _write_repeated(ctx, out, line + sep, counts[line])
        out.flush()
        ok = True
    finally:
        _close_output(ctx, output, stream, rewrite, ok)
    return 0


# bytes of output a counted line is written in at once
_REPEAT_CHUNK = 1 << 20


def _write_repeated(ctx: Ctx, out: Out, record: bytes, count: int) -> None:
    """`record` `count` times, at most _REPEAT_CHUNK bytes (or one record) made at once: a line
    counted millions of times (`zcat bomb | sort`) must not be one bytes object of all its copies."""
    per = max(1, _REPEAT_CHUNK // len(record))
    while count > 0:
        n = min(per, count)
        out.write(record * n)
        ctx.checkpoint(1 + n * len(record) // 4096)
        count -= n


def _check(ctx: Ctx, sorter: Sorter, name: str, sep: bytes, quiet: bool) -> int:
    opened = _open_inputs(ctx, [name])
    key = sorter.merge_key()
    prev: Any = None
    for n, line in enumerate(_lines(ctx, name, opened[0][1], sep), 1):
        k = key(line)
        if n > 1 and (k < prev or (sorter.unique and not (prev < k))):
            if not quiet:
                shown = decode(line)
                ctx.error(f"{name}:{n}: disorder: {shown}")
            return 1
        prev = k
    return 0
