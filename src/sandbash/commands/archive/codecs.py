"""Streaming compressors and decompressors for gzip, bzip2 and xz/lzma.

They work chunk by chunk (zlib, bz2, lzma objects), so a large pipe is
compressed in bounded memory. gzip headers are written by hand, as GNU gzip
writes them (name, mtime, OS=Unix), and concatenated members or streams are
decompressed one after another, as the real tools do.

Decompression never asks a decoder for more than STEP bytes at once (a
785-byte bzip2 stream can expand to gigabytes in one unbounded call): each
step's output is yielded before the next is made, `Bounds` charges the
decoder's state and output buffer to the run's memory budget before the
decoder is made and charges work (and so checks the deadline) per step, and
xz/lzma decoders get a `memlimit` equal to what was charged for them.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable, Iterable, Iterator

from ...limits import LimitExceeded, LimitKind, MemoryHold

TYPE_CHECKING = False
if TYPE_CHECKING:
    import bz2
    import lzma
    from dataclasses import dataclass
else:  # the same classes without importing dataclasses and inspect (~46 M instructions of a first gzip)
    from ...leanclass import dataclass
# (bz2 and lzma, ~6 M instructions together, are imported where bzip2 and xz streams are made)

# the most output one decoder call may produce
STEP = 64 * 1024
# what a decoder holds besides its output buffer: zlib's 32 KiB window and state; bzip2's
# largest block tables (900k blocks: 4 bytes a symbol plus the output block)
ZLIB_STATE = 64 * 1024
BZIP2_STATE = 4 * 1024 * 1024
# liblzma's own tables beside the dictionary, and the dictionary assumed for a stream
# whose header cannot be read in advance (xz -9's)
LZMA_STATE = 1024 * 1024
LZMA_DEFAULT_DICT = 64 * 1024 * 1024


@dataclass
class Bounds:
    """What a decoder may spend: `hold` is charged for each decoder before it is made
    (state plus one STEP of output), `tick` is called with the work of each step
    (`Ctx.checkpoint`, which also checks the deadline)."""

    hold: MemoryHold | None = None
    tick: Callable[[int], None] | None = None

    def decoder(self, state: int) -> None:
        if self.hold is not None:
            self.hold.set(STEP + state)

    def step(self, produced: int) -> None:
        if self.tick is not None:
            self.tick(1 + produced // 4096)

    def limit(self) -> int:
        """The bytes a new decoder may use (the budget not yet held by others)."""
        if self.hold is None:
            return 1 << 62
        budget = self.hold.budget
        return max(0, budget.limits.max_memory - budget.memory + self.hold.held)


def inflate_steps(dec: zlib._Decompress, data: bytes, bounds: Bounds) -> Iterator[bytes]:
    """Feed `data` to a zlib decoder, STEP bytes of output at a time."""
    while True:
        out = dec.decompress(data, STEP)
        bounds.step(len(out))
        if out:
            yield out
        data = dec.unconsumed_tail
        # a full step may leave output pending even when all input was taken
        if dec.eof or (not data and len(out) < STEP):
            return


def stream_steps(
    dec: bz2.BZ2Decompressor | lzma.LZMADecompressor, data: bytes, bounds: Bounds
) -> Iterator[bytes]:
    """Feed `data` to a bz2/lzma decoder, STEP bytes of output at a time."""
    out = dec.decompress(data, STEP)
    while True:
        bounds.step(len(out))
        if out:
            yield out
        if dec.eof or dec.needs_input:
            return
        out = dec.decompress(b"", STEP)


class CodecError(Exception):
    """Bad input: `kind` is "format" (not this format), "eof" (truncated) or "corrupt"."""

    def __init__(self, kind: str, detail: str = "") -> None:
        super().__init__(kind)
        self.kind = kind
        self.detail = detail


@dataclass
class GzipInfo:
    """What a gzip header and trailer say (for gzip -l and -N)."""

    name: str | None = None
    mtime: int = 0
    crc: int = 0
    size: int = 0
    header_bytes: int = 0
    members: int = 0
    trailing_garbage: bool = False


# ------------------------------------------------------------ gzip


def gzip_header(name: str | None, mtime: int, level: int) -> bytes:
    flags = 0x08 if name else 0
    xfl = 2 if level == 9 else 4 if level == 1 else 0
    head = struct.pack("<BBBBIBB", 0x1F, 0x8B, 8, flags, mtime & 0xFFFFFFFF, xfl, 3)
    if name:
        head += name.encode("utf-8", "surrogateescape").replace(b"\0", b"") + b"\0"
    return head


def gzip_compress(chunks: Iterable[bytes], level: int, name: str | None, mtime: int) -> Iterator[bytes]:
    yield gzip_header(name, mtime, level)
    comp = zlib.compressobj(level, zlib.DEFLATED, -15, 8)
    crc = 0
    size = 0
    for chunk in chunks:
        crc = zlib.crc32(chunk, crc)
        size += len(chunk)
        out = comp.compress(chunk)
        if out:
            yield out
    yield comp.flush() + struct.pack("<II", crc & 0xFFFFFFFF, size & 0xFFFFFFFF)


class _Reader:
    """Bytes from chunks with lookahead, for parsing headers."""

    def __init__(self, chunks: Iterable[bytes]) -> None:
        self.it = iter(chunks)
        self.buf = b""
        self.done = False

    def fill(self, n: int) -> bool:
        while len(self.buf) < n and not self.done:
            try:
                self.buf += next(self.it)
            except StopIteration:
                self.done = True
        return len(self.buf) >= n

    def take(self, n: int) -> bytes:
        if not self.fill(n):
            raise CodecError("eof")
        data, self.buf = self.buf[:n], self.buf[n:]
        return data

    def chunk(self) -> bytes:
        if not self.buf:
            self.fill(1)
        data, self.buf = self.buf, b""
        return data

    def push(self, data: bytes) -> None:
        self.buf = data + self.buf

    def take_until_nul(self) -> bytes:
        """Bytes up to a NUL (consumed, not returned); only the first _NAME_MAX are kept."""
        kept = b""
        while True:
            if not self.buf and not self.fill(1):
                raise CodecError("eof")
            end = self.buf.find(b"\0")
            piece = self.buf if end < 0 else self.buf[:end]
            if len(kept) < _NAME_MAX:
                kept += piece[: _NAME_MAX - len(kept)]
            if end >= 0:
                self.buf = self.buf[end + 1 :]
                return kept
            self.buf = b""

    def rest_has_data(self) -> bool:
        """Whether anything but NUL bytes is left (read chunk by chunk, never all at once)."""
        if self.buf.strip(b"\0"):
            return True
        self.buf = b""
        return any(chunk.strip(b"\0") for chunk in self.it)


# a stored gzip name longer than this is cut (the header is still read through)
_NAME_MAX = 4096


def _gzip_member_header(r: _Reader, info: GzipInfo) -> None:
    r.fill(10)
    if len(r.buf) < 2:
        raise CodecError("eof")
    if r.buf[:2] != b"\x1f\x8b":
        raise CodecError("format")
    head = r.take(10)
    if head[2] != 8:
        raise CodecError("corrupt", "unknown method")
    flags = head[3]
    info.mtime = struct.unpack("<I", head[4:8])[0]
    count = 10
    if flags & 0x04:
        (xlen,) = struct.unpack("<H", r.take(2))
        r.take(xlen)
        count += 2 + xlen
    for bit, is_name in ((0x08, True), (0x10, False)):
        if flags & bit:
            raw = r.take_until_nul()
            count += len(raw) + 1
            if is_name:
                info.name = raw[:_NAME_MAX].decode("utf-8", "surrogateescape")
    if flags & 0x02:
        r.take(2)
        count += 2
    info.header_bytes += count + 8


def gzip_decompress(
    chunks: Iterable[bytes], info: GzipInfo | None = None, bounds: Bounds | None = None
) -> Iterator[bytes]:
    """Every member in turn; `info` gets the first member's name and time."""
    info = info if info is not None else GzipInfo()
    bounds = bounds or Bounds()
    r = _Reader(chunks)
    first = True
    while True:
        if not first:
            if not r.fill(1):
                return
            if not r.fill(2) or r.buf[:2] != b"\x1f\x8b":
                # GNU ignores trailing zeros silently and warns about other garbage
                info.trailing_garbage = r.rest_has_data()
                return
        saved_name = info.name
        _gzip_member_header(r, info)
        if not first:
            info.name = saved_name
        first = False
        bounds.decoder(ZLIB_STATE)
        dec = zlib.decompressobj(-15)
        crc = size = 0
        while not dec.eof:
            data = r.chunk()
            if not data:
                raise CodecError("eof")
            try:
                for out in inflate_steps(dec, data, bounds):
                    crc = zlib.crc32(out, crc)
                    size += len(out)
                    yield out
            except zlib.error:
                raise CodecError("corrupt", "invalid compressed data--format violated")
        r.push(dec.unused_data)
        trailer = r.take(8)
        want_crc, want_size = struct.unpack("<II", trailer)
        # GNU reports both when both are wrong (one message a line)
        wrong = [
            f"invalid compressed data--{what} error"
            for what, bad in (
                ("crc", want_crc != crc & 0xFFFFFFFF),
                ("length", want_size != size & 0xFFFFFFFF),
            )
            if bad
        ]
        if wrong:
            raise CodecError("corrupt", "\n".join(wrong))
        # as GNU gzip -l: the last member's trailer, and no header overhead once there are several
        info.crc, info.size = want_crc, want_size
        info.members += 1
        if info.members > 1:
            info.header_bytes = 0


# ------------------------------------------------------------ bzip2 and xz


def _stream_compress(
    comp: bz2.BZ2Compressor | lzma.LZMACompressor, chunks: Iterable[bytes]
) -> Iterator[bytes]:
    for chunk in chunks:
        out = comp.compress(chunk)
        if out:
            yield out
    yield comp.flush()


def bzip2_compress(chunks: Iterable[bytes], level: int) -> Iterator[bytes]:
    import bz2

    return _stream_compress(bz2.BZ2Compressor(max(1, level)), chunks)


def xz_compress(
    chunks: Iterable[bytes], level: int, extreme: bool = False, fmt: str = "xz"
) -> Iterator[bytes]:
    import lzma

    preset = level | (lzma.PRESET_EXTREME if extreme else 0)
    if fmt == "lzma":
        return _stream_compress(lzma.LZMACompressor(lzma.FORMAT_ALONE, preset=preset), chunks)
    return _stream_compress(
        lzma.LZMACompressor(lzma.FORMAT_XZ, check=lzma.CHECK_CRC64, preset=preset), chunks
    )


def _stream_decompress(
    make: Callable[[_Reader, Bounds], bz2.BZ2Decompressor | lzma.LZMADecompressor],
    magic: tuple[bytes, ...],
    chunks: Iterable[bytes],
    errors: tuple[type[Exception], ...],
    bounds: Bounds | None,
) -> Iterator[bytes]:
    import lzma  # (its error is the one that says a stream needs more than the memlimit)

    bounds = bounds or Bounds()
    r = _Reader(chunks)
    r.fill(6)
    if not any(r.buf.startswith(m) for m in magic):
        # (a prefix of the magic ends early; so does an empty bzip2 input, which bzip2 reads as a
        # stream that ends at once, where xz finds no format)
        if any(m.startswith(r.buf) for m in magic) and (r.buf or magic == (b"BZh",)):
            raise CodecError("eof")
        raise CodecError("format")
    first = True
    while True:
        if not first:
            if not r.fill(1):
                return
            if not any(r.buf.startswith(m[: min(len(m), len(r.buf))]) for m in magic):
                return  # trailing data after the last stream is ignored
        first = False
        dec = make(r, bounds)
        while not dec.eof:
            data = r.chunk()
            if not data:
                raise CodecError("eof")
            try:
                yield from stream_steps(dec, data, bounds)
            except lzma.LZMAError as e:
                if "memory usage limit" in str(e).lower():
                    raise LimitExceeded(
                        LimitKind.MAX_MEMORY, bounds.hold.budget.limits.max_memory if bounds.hold else 0
                    )
                raise CodecError("corrupt", str(e))
            except errors as e:
                raise CodecError("corrupt", str(e))
        r.push(dec.unused_data)


def _make_bzip2(r: _Reader, bounds: Bounds) -> bz2.BZ2Decompressor:
    import bz2

    bounds.decoder(BZIP2_STATE)
    return bz2.BZ2Decompressor()


def bzip2_decompress(chunks: Iterable[bytes], bounds: Bounds | None = None) -> Iterator[bytes]:
    return _stream_decompress(_make_bzip2, (b"BZh",), chunks, (OSError, ValueError), bounds)


XZ_MAGIC = b"\xfd7zXZ\x00"
LZMA_MAGIC = (b"\x5d\x00\x00",)


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while pos < len(data) and shift < 63:
        byte = data[pos]
        value |= (byte & 0x7F) << shift
        pos += 1
        if not byte & 0x80:
            return value, pos
        shift += 7
    raise ValueError("bad varint")


def xz_dict_size(head: bytes) -> int | None:
    """The dictionary the first block of an xz (or .lzma) stream declares, or None
    when the header does not say (a filter chain without LZMA, a cut header)."""
    try:
        if head[:6] != XZ_MAGIC:
            return int.from_bytes(head[1:5], "little") if len(head) >= 5 else None
        pos = 12
        size = (head[pos] + 1) * 4
        flags = head[pos + 1]
        block = head[pos : pos + size]
        if head[pos] == 0 or len(block) < size:
            return None  # an empty stream (index first) or a cut header
        at = 2
        if flags & 0x40:
            _, at = _varint(block, at)
        if flags & 0x80:
            _, at = _varint(block, at)
        for _ in range((flags & 0x03) + 1):
            fid, at = _varint(block, at)
            nprops, at = _varint(block, at)
            props = block[at : at + nprops]
            at += nprops
            if fid == 0x21 and props:
                bits = props[0] & 0x3F
                return 0xFFFFFFFF if bits >= 40 else (2 | (bits & 1)) << (bits // 2 + 11)
    except (IndexError, ValueError):
        return None
    return None


def _make_xz(r: _Reader, bounds: Bounds) -> lzma.LZMADecompressor:
    # the dictionary is the bulk of an lzma decoder's memory: charge it before the decoder
    # exists and let liblzma refuse anything bigger (a header may claim up to 4 GiB)
    r.fill(12 + 1024)
    declared = xz_dict_size(r.buf)
    # a header that does not say (cut, damaged, another filter chain): half of what is left
    # of the budget (pipes and other stages need the rest), up to xz -9's dictionary;
    # liblzma's memlimit refuses the stream if it needs more
    need = (
        min(LZMA_DEFAULT_DICT + LZMA_STATE, (bounds.limit() - STEP) // 2)
        if declared is None
        else declared + LZMA_STATE
    )
    if need > bounds.limit():
        raise LimitExceeded(LimitKind.MAX_MEMORY, bounds.hold.budget.limits.max_memory if bounds.hold else 0)
    bounds.decoder(need)
    import lzma

    return lzma.LZMADecompressor(lzma.FORMAT_AUTO, memlimit=max(need, 1 << 20))


def xz_decompress(chunks: Iterable[bytes], bounds: Bounds | None = None) -> Iterator[bytes]:
    import lzma

    return _stream_decompress(_make_xz, (XZ_MAGIC, *LZMA_MAGIC), chunks, (lzma.LZMAError, EOFError), bounds)


def decompress(kind: str, chunks: Iterable[bytes], bounds: Bounds | None = None) -> Iterator[bytes]:
    """Decode a `sniff` kind ("gzip", "bzip2", "xz") in bounded steps."""
    if kind == "gzip":
        return gzip_decompress(chunks, None, bounds)
    if kind == "bzip2":
        return bzip2_decompress(chunks, bounds)
    return xz_decompress(chunks, bounds)


def sniff(data: bytes) -> str | None:
    """Which compression a buffer starts with (for tar's automatic detection)."""
    if data[:2] == b"\x1f\x8b":
        return "gzip"
    if data[:3] == b"BZh":
        return "bzip2"
    if data[:6] == XZ_MAGIC or data[:3] == LZMA_MAGIC[0]:
        return "xz"
    return None
