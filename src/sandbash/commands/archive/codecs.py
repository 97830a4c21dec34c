"""Streaming compressors and decompressors for gzip, bzip2 and xz/lzma.

They work chunk by chunk (zlib, bz2, lzma objects), so a large pipe is
compressed in bounded memory. gzip headers are written by hand, as GNU gzip
writes them (name, mtime, OS=Unix), and concatenated members or streams are
decompressed one after another, as the real tools do.
"""

from __future__ import annotations

import bz2
import lzma
import struct
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass


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
            raw = b""
            while True:
                byte = r.take(1)
                count += 1
                if byte == b"\0":
                    break
                raw += byte
            if is_name:
                info.name = raw.decode("utf-8", "surrogateescape")
    if flags & 0x02:
        r.take(2)
        count += 2
    info.header_bytes += count + 8


def gzip_decompress(chunks: Iterable[bytes], info: GzipInfo | None = None) -> Iterator[bytes]:
    """Every member in turn; `info` gets the first member's name and time."""
    info = info if info is not None else GzipInfo()
    r = _Reader(chunks)
    first = True
    while True:
        if not first:
            if not r.fill(1):
                return
            if not r.fill(2) or r.buf[:2] != b"\x1f\x8b":
                # GNU ignores trailing zeros silently and warns about other garbage
                rest = r.buf + b"".join(r.it)
                info.trailing_garbage = bool(rest.strip(b"\0"))
                return
        saved_name = info.name
        _gzip_member_header(r, info)
        if not first:
            info.name = saved_name
        first = False
        dec = zlib.decompressobj(-15)
        crc = size = 0
        while not dec.eof:
            data = r.chunk()
            if not data:
                raise CodecError("eof")
            try:
                out = dec.decompress(data)
            except zlib.error:
                raise CodecError("corrupt", "invalid compressed data--format violated")
            if out:
                crc = zlib.crc32(out, crc)
                size += len(out)
                yield out
        r.push(dec.unused_data)
        trailer = r.take(8)
        want_crc, want_size = struct.unpack("<II", trailer)
        if want_crc != crc & 0xFFFFFFFF:
            raise CodecError("corrupt", "invalid compressed data--crc error")
        if want_size != size & 0xFFFFFFFF:
            raise CodecError("corrupt", "invalid compressed data--length error")
        info.crc, info.size = want_crc, info.size + size


# ------------------------------------------------------------ bzip2 and xz


def _stream_compress(comp: bz2.BZ2Compressor | lzma.LZMACompressor, chunks: Iterable[bytes]) -> Iterator[bytes]:
    for chunk in chunks:
        out = comp.compress(chunk)
        if out:
            yield out
    yield comp.flush()


def bzip2_compress(chunks: Iterable[bytes], level: int) -> Iterator[bytes]:
    return _stream_compress(bz2.BZ2Compressor(max(1, level)), chunks)


def xz_compress(chunks: Iterable[bytes], level: int, extreme: bool = False, fmt: str = "xz") -> Iterator[bytes]:
    preset = level | (lzma.PRESET_EXTREME if extreme else 0)
    if fmt == "lzma":
        return _stream_compress(lzma.LZMACompressor(lzma.FORMAT_ALONE, preset=preset), chunks)
    return _stream_compress(lzma.LZMACompressor(lzma.FORMAT_XZ, check=lzma.CHECK_CRC64, preset=preset), chunks)


def _stream_decompress(make: Callable[[], bz2.BZ2Decompressor | lzma.LZMADecompressor], magic: tuple[bytes, ...],
                       chunks: Iterable[bytes], errors: tuple[type[Exception], ...]) -> Iterator[bytes]:
    r = _Reader(chunks)
    r.fill(6)
    if not any(r.buf.startswith(m) for m in magic):
        if r.buf and any(m.startswith(r.buf) for m in magic):
            raise CodecError("eof")
        raise CodecError("format")
    first = True
    while True:
        if not first:
            if not r.fill(1):
                return
            if not any(r.buf.startswith(m[:min(len(m), len(r.buf))]) for m in magic):
                return  # trailing data after the last stream is ignored
        first = False
        dec = make()
        while not dec.eof:
            data = r.chunk()
            if not data:
                raise CodecError("eof")
            try:
                out = dec.decompress(data)
            except errors as e:
                raise CodecError("corrupt", str(e))
            if out:
                yield out
        r.push(dec.unused_data)


def bzip2_decompress(chunks: Iterable[bytes]) -> Iterator[bytes]:
    return _stream_decompress(bz2.BZ2Decompressor, (b"BZh",), chunks, (OSError, ValueError))


XZ_MAGIC = b"\xfd7zXZ\x00"
LZMA_MAGIC = (b"\x5d\x00\x00",)


def xz_decompress(chunks: Iterable[bytes]) -> Iterator[bytes]:
    return _stream_decompress(lambda: lzma.LZMADecompressor(lzma.FORMAT_AUTO), (XZ_MAGIC, *LZMA_MAGIC), chunks,
                              (lzma.LZMAError, EOFError))


def sniff(data: bytes) -> str | None:
    """Which compression a buffer starts with (for tar's automatic detection)."""
    if data[:2] == b"\x1f\x8b":
        return "gzip"
    if data[:3] == b"BZh":
        return "bzip2"
    if data[:6] == XZ_MAGIC or data[:3] == LZMA_MAGIC[0]:
        return "xz"
    return None
