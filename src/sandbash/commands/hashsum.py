"""md5sum, sha*sum, b2sum, cksum and sum (GNU coreutils 9.1), with --check."""

from __future__ import annotations

import hashlib
import re
import zlib
from collections.abc import Callable

from ..stdio.streams import Stream, StreamReadError
from .context import CommandExit, Ctx
from .options import CommandSpec, Opt, Parsed
from .record import WRITE_ERROR_BARE, Effects, declare
from .textbasic.common import (
    Out,
    argmatch,
    decode,
    encode,
    quote,
    quotef,
    read_chunks,
    usage_fail,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# algorithm -> (hashlib name, BSD tag, hex digest length)
DIGESTS = {
    "md5": ("md5", "MD5", 32),
    "sha1": ("sha1", "SHA1", 40),
    "sha224": ("sha224", "SHA224", 56),
    "sha256": ("sha256", "SHA256", 64),
    "sha384": ("sha384", "SHA384", 96),
    "sha512": ("sha512", "SHA512", 128),
    "blake2b": ("blake2b", "BLAKE2b", 128),
}

_CHECK_OPTS = (
    Opt("b", "binary", help="read in binary mode"),
    Opt("c", "check", help="read checksums from the FILEs and check them"),
    Opt(None, "tag", help="create a BSD-style checksum"),
    Opt("t", "text", help="read in text mode (default)"),
    Opt("z", "zero", help="end each output line with NUL, not newline"),
    Opt(None, "ignore-missing", help="don't fail or report status for missing files"),
    Opt(None, "quiet", help="don't print OK for each successfully verified file"),
    Opt(None, "status", help="don't output anything, status code shows success"),
    Opt(None, "strict", help="exit non-zero for improperly formatted checksum lines"),
    Opt("w", "warn", help="warn about improperly formatted checksum lines"),
)


def _spec(name: str, extra: tuple[Opt, ...] = ()) -> CommandSpec:
    return CommandSpec(name=name, summary="Print or check checksums.", opts=extra + _CHECK_OPTS)


_REV = bytes(int(f"{b:08b}"[::-1], 2) for b in range(256))


def _bitrev32(v: int) -> int:
    return int(f"{v:032b}"[::-1], 2)


class _Crc:
    """POSIX cksum CRC via zlib: the non-reflected CRC of M equals the bit-reversed
    reflected CRC of M with every byte bit-reversed."""

    def __init__(self) -> None:
        self.r = 0xFFFFFFFF  # zlib's running value for a register starting at 0
        self.n = 0

    def update(self, data: bytes) -> None:
        self.r = zlib.crc32(data.translate(_REV), self.r)
        self.n += len(data)

    def value(self) -> int:
        n = self.n
        tail = bytearray()
        while n:
            tail.append(n & 0xFF)
            n >>= 8
        r = zlib.crc32(bytes(tail).translate(_REV), self.r)
        reg = ~r & 0xFFFFFFFF
        return ~_bitrev32(reg) & 0xFFFFFFFF


class _Bsd:
    def __init__(self) -> None:
        self.c = 0
        self.n = 0

    def update(self, data: bytes) -> None:
        c = self.c
        for b in data:
            c = ((c >> 1) + ((c & 1) << 15) + b) & 0xFFFF
        self.c = c
        self.n += len(data)


class _SysV:
    def __init__(self) -> None:
        self.s = 0
        self.n = 0

    def update(self, data: bytes) -> None:
        self.s += sum(data)
        self.n += len(data)

    def value(self) -> int:
        r = (self.s & 0xFFFF) + ((self.s & 0xFFFFFFFF) >> 16)
        return (r & 0xFFFF) + (r >> 16)


def _feed(ctx: Ctx, stream: Stream, update: Callable[[bytes], None]) -> None:
    for chunk in read_chunks(ctx, stream):
        update(chunk)


def _hasher(algo: str, bits: int | None) -> Any:
    if algo == "blake2b":
        return hashlib.blake2b(digest_size=(bits or 512) // 8)
    return hashlib.new(DIGESTS[algo][0])


def _escape_name(name: str) -> tuple[str, str]:
    """GNU escapes backslash and newline in names, marking the line with a leading backslash."""
    if "\\" in name or "\n" in name or "\r" in name:
        return "\\", name.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")
    return "", name


class _Summer:
    def __init__(
        self,
        ctx: Ctx,
        algo: str,
        bits: int | None,
        opts: object,
        tag_default: bool = False,
        detect: bool = False,
    ) -> None:
        self.ctx = ctx
        self.algo = algo
        self.detect = detect  # check: each tagged line names its own algorithm (cksum -c)
        self.bits = bits
        get = opts.get  # type: ignore[attr-defined]
        self.tag = bool(get("tag")) or (tag_default and not get("untagged"))
        self.binary = bool(get("binary"))
        self.eol = b"\0" if get("zero") else b"\n"
        self.opts = opts

    def digest(self, name: str) -> str | None:
        """The digest of one file; None (after naming it on stderr) when it cannot be read."""
        h = _hasher(self.algo, self.bits)
        inputs = self.ctx.inputs([name])
        for _name, stream in inputs:
            with inputs.reading():
                _feed(self.ctx, stream, h.update)
        return None if inputs.status else str(h.hexdigest())

    def tag_name(self) -> str:
        tag = DIGESTS[self.algo][1]
        if self.algo == "blake2b" and self.bits and self.bits != 512:
            tag += f"-{self.bits}"
        return tag

    def line(self, digest: str, name: str) -> bytes:
        esc, shown = ("", name) if self.eol == b"\0" else _escape_name(name)
        if self.tag:
            return encode(f"{esc}{self.tag_name()} ({shown}) = {digest}") + self.eol
        return encode(f"{esc}{digest} {'*' if self.binary else ' '}{shown}") + self.eol

    def run(self, files: list[str]) -> int:
        out = Out(self.ctx.stdout)
        inputs = self.ctx.inputs(files, flush=out.flush)
        for name, stream in inputs:
            h = _hasher(self.algo, self.bits)
            with inputs.reading():
                _feed(self.ctx, stream, h.update)
                out.write(self.line(str(h.hexdigest()), name))
        out.flush()
        return inputs.status

    # -- checking

    def check(self, files: list[str]) -> int:
        ctx = self.ctx
        get = self.opts.get  # type: ignore[attr-defined]
        quiet, status_only = bool(get("quiet")), bool(get("status"))
        out = Out(ctx.stdout)
        result = 0
        hexlen = DIGESTS[self.algo][2] if self.algo != "blake2b" or not self.bits else self.bits // 4
        tags = [DIGESTS[a][1] for a in DIGESTS] if self.detect else [DIGESTS[self.algo][1]]
        bsd = re.compile(rf"(\\?)({'|'.join(map(re.escape, tags))})(?:-(\d+))? \((.*)\) = ([0-9a-fA-F]+)$")
        by_tag = {tag: algo for algo, (_, tag, _) in DIGESTS.items()}
        label = "CRC"  # what --warn names before a tagged line was read (cksum -c without -a)
        gnu = re.compile(r"(\\?)([0-9a-fA-F]+) ([ *])(.*)$")
        # a list that cannot be read is "NAME: read error", stdin named 'standard input'
        inputs = ctx.inputs(files, read_error="{f}: read error")
        inputs.stdin_name = "standard input"
        for list_name, stream in inputs:
            with inputs.reading():
                data = ctx.read_all(stream)
                shown_list = "standard input" if list_name == "-" else list_name
                bad_format = failed = unreadable = matched = proper = 0
                lines = data.split(b"\n")
                if lines and lines[-1] == b"":
                    lines.pop()
                for lineno, raw in enumerate(lines, 1):
                    text = decode(raw).rstrip("\r")
                    if text.startswith("#"):
                        continue
                    m = bsd.match(text)
                    if m and self.detect:
                        self.algo = by_tag[m.group(2)]
                        label = m.group(2)
                        hexlen = DIGESTS[self.algo][2]
                    if m and (m.group(3) is None or self.algo == "blake2b"):
                        esc, expected, name = m.group(1), m.group(5), m.group(4)
                        want_len = int(m.group(3)) // 4 if m.group(3) else hexlen
                    elif self.detect:
                        esc = expected = name = ""  # an untagged line names no digest
                        want_len = hexlen
                    else:
                        m2 = gnu.match(text)
                        if m2 is None:
                            esc = expected = name = ""
                        else:
                            esc, expected, name = m2.group(1), m2.group(2), m2.group(4)
                        want_len = hexlen
                        if self.algo == "blake2b" and len(expected) % 2 == 0 and len(expected) <= 128:
                            want_len = len(expected)  # (b2sum -c: an untagged line's length is its digest's)
                    if not expected or len(expected) != want_len or not name:
                        bad_format += 1
                        if get("warn"):
                            ctx.error(
                                f"{quotef(shown_list) if list_name != '-' else '-'}: {lineno}: improperly formatted "
                                f"{label if self.detect else self._label()} checksum line"
                            )
                        continue
                    proper += 1  # (a missing file --ignore-missing skips is a well-formed line too)
                    if esc:
                        name = name.replace("\\\\", "\0").replace("\\n", "\n").replace("\0", "\\")
                    saved_bits = self.bits
                    if want_len != hexlen and self.algo == "blake2b":
                        self.bits = want_len * 4
                    exists = ctx.fs.exists(name) or name == "-"
                    if not exists and get("ignore_missing"):
                        self.bits = saved_bits
                        continue
                    actual = self.digest(name)
                    self.bits = saved_bits
                    esc_out, shown = _escape_name(name)
                    if actual is None:
                        unreadable += 1
                        if not status_only:
                            out.write(encode(f"{esc_out}{shown}: FAILED open or read\n"))
                        continue
                    matched += 1
                    if actual.lower() == expected.lower():
                        if not quiet and not status_only:
                            out.write(encode(f"{esc_out}{shown}: OK\n"))
                    else:
                        failed += 1
                        if not status_only:
                            out.write(encode(f"{esc_out}{shown}: FAILED\n"))
                out.flush()
                qname = "'standard input'" if list_name == "-" else quotef(list_name)
                if proper == 0:
                    ctx.error(f"{qname}: no properly formatted checksum lines found")
                    result = 1
                    continue
                if not status_only:
                    if bad_format:
                        ctx.error(
                            f"WARNING: {bad_format} line{'s are' if bad_format > 1 else ' is'} improperly formatted"
                        )
                    if unreadable:
                        ctx.error(
                            f"WARNING: {unreadable} listed file{'s' if unreadable > 1 else ''} could not be read"
                        )
                    if failed:
                        ctx.error(
                            f"WARNING: {failed} computed checksum{'s' if failed > 1 else ''} did NOT match"
                        )
                if get("ignore_missing") and matched == 0:
                    ctx.error(f"{qname}: no file was verified")
                    result = 1
                if failed or unreadable or (get("strict") and bad_format):
                    result = 1
        out.flush()
        return max(result, inputs.status)

    def _label(self) -> str:
        return DIGESTS[self.algo][1]


def _check_options(ctx: Ctx, opts: Parsed, cksum: bool = False) -> None:
    """md5sum.c's checks after its option loop, in its order. -b/-t/--tag set one binary mode,
    the last one wins (--tag is binary); --status/--warn/--quiet are one choice, the last wins."""
    check = bool(opts.get("check"))
    binary: bool | None = None
    mode: str | None = None
    for key, _value in opts.order:
        if key in ("binary", "text", "tag"):
            binary = key != "text"
        elif key in ("status", "warn", "quiet"):
            mode = key
    tag = bool(opts.get("tag"))
    if not cksum and tag and binary is False:
        raise usage_fail(ctx, "--tag does not support --text mode")
    if check and opts.get("zero"):
        raise usage_fail(ctx, "the --zero option is not supported when verifying checksums")
    if check and not cksum and tag:
        raise usage_fail(ctx, "the --tag option is meaningless when verifying checksums")
    if check and not cksum and binary is not None:
        raise usage_fail(ctx, "the --binary and --text options are meaningless when verifying checksums")
    if not check:
        for choice in ("ignore_missing", mode, "strict"):
            if choice is not None and opts.get(choice):
                flag = "--" + choice.replace("_", "-")
                raise usage_fail(ctx, f"the {flag} option is meaningful only when verifying checksums")


def _digest_command(ctx: Ctx, algo: str) -> int:
    extra: tuple[Opt, ...] = ()
    if algo == "blake2b":
        extra = (Opt("l", "length", arg="required", metavar="BITS", help="digest length in bits"),)
    opts, files = ctx.parse(_spec(ctx.name, extra))
    bits = _bits(ctx, opts.get("length")) if opts.get("length") is not None else None
    summer = _Summer(ctx, algo, bits, opts)
    _check_options(ctx, opts)
    return summer.check(files) if opts.get("check") else summer.run(files)


def _bits(ctx: Ctx, text: str) -> int:
    try:
        bits = int(text)
    except ValueError:
        ctx.error(f"invalid length: {quote(ctx, text)}")
        raise CommandExit(1)
    if bits % 8 or bits > 512:
        ctx.error(f"invalid length: {quote(ctx, text)}")
        if bits % 8 == 0:
            ctx.error(f"maximum digest length for {quote(ctx, 'BLAKE2b')} is 512 bits")
        else:
            ctx.error("length is not a multiple of 8")
        raise CommandExit(1)
    return bits or 512


@declare("md5sum", effects=Effects.HASHSUM, stdin_close="standard input", write_failure=WRITE_ERROR_BARE)
def cmd_md5sum(ctx: Ctx) -> int:
    return _digest_command(ctx, "md5")


@declare("sha1sum", effects=Effects.HASHSUM, stdin_close="standard input", write_failure=WRITE_ERROR_BARE)
def cmd_sha1sum(ctx: Ctx) -> int:
    return _digest_command(ctx, "sha1")


@declare("sha224sum", effects=Effects.HASHSUM, stdin_close="standard input", write_failure=WRITE_ERROR_BARE)
def cmd_sha224sum(ctx: Ctx) -> int:
    return _digest_command(ctx, "sha224")


@declare("sha256sum", effects=Effects.HASHSUM, stdin_close="standard input", write_failure=WRITE_ERROR_BARE)
def cmd_sha256sum(ctx: Ctx) -> int:
    return _digest_command(ctx, "sha256")


@declare("sha384sum", effects=Effects.HASHSUM, stdin_close="standard input", write_failure=WRITE_ERROR_BARE)
def cmd_sha384sum(ctx: Ctx) -> int:
    return _digest_command(ctx, "sha384")


@declare("sha512sum", effects=Effects.HASHSUM, stdin_close="standard input", write_failure=WRITE_ERROR_BARE)
def cmd_sha512sum(ctx: Ctx) -> int:
    return _digest_command(ctx, "sha512")


@declare("b2sum", effects=Effects.HASHSUM, stdin_close="standard input", write_failure=WRITE_ERROR_BARE)
def cmd_b2sum(ctx: Ctx) -> int:
    return _digest_command(ctx, "blake2b")


# ------------------------------------------------------------------ cksum and sum

CKSUM_SPEC = CommandSpec(
    name="cksum",
    summary="Print or verify checksums. By default use the 32 bit CRC algorithm.",
    opts=(
        Opt("a", "algorithm", arg="required", metavar="TYPE", help="select the digest type to use"),
        Opt("c", "check", help="read checksums from the FILEs and check them"),
        Opt("l", "length", arg="required", metavar="BITS", help="digest length in bits (blake2b)"),
        Opt(None, "tag", help="create a BSD-style checksum (the default)"),
        Opt(None, "untagged", help="create a reversed style checksum, without digest type"),
        Opt("z", "zero", help="end each output line with NUL, not newline"),
        Opt("w", "warn", help="warn about improperly formatted checksum lines"),
        Opt(None, "debug", help="indicate which implementation is used"),
        Opt(None, "ignore-missing", help="don't fail or report status for missing files"),
        Opt(None, "quiet", help="don't print OK for each successfully verified file"),
        Opt(None, "status", help="don't output anything, status code shows success"),
        Opt(None, "strict", help="exit non-zero for improperly formatted checksum lines"),
        # coreutils 9.1's cksum takes -b and -t into its option string and answers them with
        # usage(): the Try line alone, status 1 (unlisted in its --help, as here)
        Opt("b", None, dest="usage_only", stop=True),
        Opt("t", None, dest="usage_only", stop=True),
    ),
)

_ALGOS = [
    ("bsd", "bsd"),
    ("sysv", "sysv"),
    ("crc", "crc"),
    ("md5", "md5"),
    ("sha1", "sha1"),
    ("sha224", "sha224"),
    ("sha256", "sha256"),
    ("sha384", "sha384"),
    ("sha512", "sha512"),
    ("blake2b", "blake2b"),
    ("sm3", "sm3"),
]


def _legacy_sums(ctx: Ctx, files: list[str], kind: str, eol: bytes = b"\n") -> int:
    out = Out(ctx.stdout)
    inputs = ctx.inputs(files, flush=out.flush)
    inputs.dirs_open = kind == "crc"
    for name, stream in inputs:
        with inputs.reading():
            if kind == "crc":
                crc = _Crc()
                try:
                    _feed(ctx, stream, crc.update)
                except StreamReadError:
                    pass  # (GNU's crc loop reads with fread and never asks ferror: a directory sums as empty)
                text = f"{crc.value()} {crc.n}"
            elif kind == "bsd":
                bsd = _Bsd()
                _feed(ctx, stream, bsd.update)
                text = f"{bsd.c:05d} {(bsd.n + 1023) // 1024:5d}"
            else:
                sysv = _SysV()
                _feed(ctx, stream, sysv.update)
                text = f"{sysv.value()} {(sysv.n + 511) // 512}"
            if files:
                text += f" {name}"
            out.write(encode(text) + eol)
    out.flush()
    return inputs.status


@declare(
    "cksum",
    spec=CKSUM_SPEC,
    uses=("b2sum", "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "sum"),
    effects=Effects.READS,
    stdin_close="standard input",
    write_failure=WRITE_ERROR_BARE,
)
def cmd_cksum(ctx: Ctx) -> int:
    opts, files = ctx.parse(CKSUM_SPEC)
    algo = argmatch(ctx, "--algorithm", opts.get("algorithm"), _ALGOS) if opts.get("algorithm") else "crc"
    if opts.has("usage_only"):
        raise ctx.try_help()
    bits = _bits(ctx, opts.get("length")) if opts.get("length") is not None else None
    if opts.get("length") is not None and algo != "blake2b":
        ctx.error("--length is only supported with --algorithm=blake2b")  # (no Try line)
        raise CommandExit(1)
    if opts.get("check") and opts.get("algorithm") and algo in ("crc", "sysv", "bsd"):
        ctx.error("--check is not supported with --algorithm={bsd,sysv,crc}")  # (no Try line)
        return 1
    _check_options(ctx, opts, cksum=True)
    if algo == "sm3":
        ctx.error("the sm3 algorithm is not available in this sandbox")
        return 1
    if opts.get("check") and not opts.get("algorithm"):
        # GNU 9.1: without -a, --check reads tagged lines only, each line's tag naming its digest
        return _Summer(ctx, "md5", None, opts, tag_default=True, detect=True).check(files)
    if algo in ("crc", "sysv", "bsd"):
        return _legacy_sums(ctx, files, algo, b"\0" if opts.get("zero") else b"\n")
    summer = _Summer(ctx, algo, bits, opts, tag_default=True)
    if opts.get("check"):
        return summer.check(files)
    return summer.run(files)


SUM_SPEC = CommandSpec(
    name="sum",
    summary="Print checksum and block counts for each FILE.",
    opts=(
        Opt("r", None, dest="bsd", help="use BSD sum algorithm (the default), use 1K blocks"),
        Opt("s", "sysv", help="use System V sum algorithm, use 512 bytes blocks"),
    ),
)


@declare(
    "sum", spec=SUM_SPEC, effects=Effects.READS, stdin_close="standard input", write_failure=WRITE_ERROR_BARE
)
def cmd_sum(ctx: Ctx) -> int:
    opts, files = ctx.parse(SUM_SPEC)
    kind = "bsd"
    for key, _ in opts.order:
        kind = "sysv" if key == "sysv" else "bsd"
    return _legacy_sums(ctx, files, kind)
