"""Decompression and decoding bombs: every decoder works in bounded steps.

gzip/bzip2/xz (and their cat/un- forms), tar -z/-j/-J/-a, unzip, zip, base64 -d,
xxd (-r and dumps), hexdump and curl --compressed meet inputs that expand a
thousandfold or more, claim huge dictionaries, sparse members or offsets. Each row
runs in a forked child (secharness: RLIMIT_AS, peak RSS watched) and must end with a
*named* limit within its timeout plus 2 s with the child's peak resident growth under
max_memory + 150 MB (`verify_bomb`); rows that write a file end with the quota error
instead, and curl refuses what it cannot bound with its own error (exit 61).

The bombs are built here, in the parent, from concatenated members/streams (each
decoder walks every member or stream) so that building them takes well under a
second while they decode to gigabytes.
"""

from __future__ import annotations

import base64
import bz2
import functools
import gzip
import io
import lzma
import random
import struct
import tarfile
import threading
import zipfile
import zlib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from secharness import (
    BOMB_RSS_SLACK,
    BOMB_SLACK,
    Outcome,
    assert_no_secrets,
    batch,
    bomb_problems,
    param,
    pooled,
    verify_bomb,
)

from sandbash import Bash
from sandbash.net import NetworkConfig

MIB = 1 << 20
ZEROS = bytes(16 * MIB)


@functools.cache
def _member(kind: str) -> bytes:
    """One gzip member / xz stream of 16 MiB of zeros, or one bzip2 stream of 10 MiB."""
    if kind == "gzip":
        return gzip.compress(ZEROS, 9)
    if kind == "bzip2":
        return bz2.compress(bytes(10 * MIB), 9)
    return lzma.compress(ZEROS, preset=0)


def _gzip_members(count: int) -> bytes:
    """`count` gzip members of 16 MiB of zeros each (16 KB apiece)."""
    return _member("gzip") * count


def _bzip2_streams(count: int) -> bytes:
    """`count` bzip2 streams of 10 MiB of zeros each (about 50 bytes apiece)."""
    return _member("bzip2") * count


def _xz_streams(count: int) -> bytes:
    return _member("xz") * count


def _varint(data: bytes | bytearray, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[pos]
        value |= (byte & 0x7F) << shift
        pos += 1
        if not byte & 0x80:
            return value, pos
        shift += 7


def _xz_claiming_dictionary(bits: int) -> bytes:
    """A valid small .xz whose LZMA2 filter claims a dictionary of props byte `bits`
    (40: 4 GiB), the block header's CRC32 recomputed."""
    data = bytearray(lzma.compress(b"hello\n" * 100, format=lzma.FORMAT_XZ, preset=0))
    size = (data[12] + 1) * 4
    flags = data[13]
    at = 12 + 2
    if flags & 0x40:
        _, at = _varint(data, at)
    if flags & 0x80:
        _, at = _varint(data, at)
    fid, at = _varint(data, at)
    nprops, at = _varint(data, at)
    assert fid == 0x21 and nprops == 1
    data[at] = bits
    struct.pack_into("<I", data, 12 + size - 4, zlib.crc32(bytes(data[12 : 12 + size - 4])))
    return bytes(data)


def _lzma_claiming_dictionary() -> bytes:
    data = bytearray(lzma.compress(b"hello\n" * 100, format=lzma.FORMAT_ALONE, preset=0))
    data[1:5] = struct.pack("<I", 1 << 31)  # 2 GiB (xz takes powers of two as .lzma headers)
    return bytes(data)


def _tar_header(name: bytes, size: int, kind: bytes = b"0", extra: dict[int, bytes] | None = None) -> bytes:
    """One 512-byte GNU tar header (`extra`: raw fields at their offsets)."""
    head = bytearray(512)
    head[0 : len(name)] = name
    head[100:108] = b"0000644\0"
    head[108:116] = b"0001750\0"
    head[116:124] = b"0001750\0"
    head[124:136] = b"%011o\0" % size
    head[136:148] = b"14543023165\0"
    head[156:157] = kind
    head[257:265] = b"ustar  \0"
    for offset, raw in (extra or {}).items():
        head[offset : offset + len(raw)] = raw
    head[148:156] = b"        "
    head[148:156] = b"%06o\0 " % sum(head)
    return bytes(head)


def _tar_gz_huge_member() -> bytes:
    """A tar.gz whose one member is 4 GiB of zeros: a gzip member for the header, then
    256 members of 16 MiB of zeros (the content, then the end-of-archive blocks)."""
    return gzip.compress(_tar_header(b"zeros", 1 << 32)) + _gzip_members(257)


def _tar_bz2_huge_member() -> bytes:
    return bz2.compress(_tar_header(b"zeros", 1 << 30)) + _bzip2_streams(104)


def _tar_xz_huge_member() -> bytes:
    return lzma.compress(_tar_header(b"zeros", 1 << 30), preset=0) + _xz_streams(65)


def _tar_gz_sparse() -> bytes:
    """A GNU sparse member (type S) of 1 TiB holding one real byte at its end."""
    real = 1 << 40
    # numbers past 8 GiB use GNU's base-256 form: a 0x80 byte, then big-endian
    fields = {
        386: b"\x80" + (real - 1).to_bytes(11, "big"),
        398: b"%011o\0" % 1,
        483: b"\x80" + real.to_bytes(11, "big"),
    }
    archive = _tar_header(b"sparse", 1, b"S", fields) + b"z" + bytes(511) + bytes(1024)
    return gzip.compress(archive)


@functools.cache
def _deflate_pieces() -> tuple[bytes, bytes, bytes]:
    """Raw deflate of 16 MiB of zeros: the first piece, a piece that may repeat (fully
    flushed, so it does not depend on what came before), and the final block."""
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = comp.compress(ZEROS) + comp.flush(zlib.Z_FULL_FLUSH)
    again = comp.compress(ZEROS) + comp.flush(zlib.Z_FULL_FLUSH)
    return first, again, comp.flush()


def _raw_deflate_zeros(chunks: int) -> bytes:
    first, again, last = _deflate_pieces()
    return first + again * (chunks - 1) + last


def _zlib_zeros(chunks: int) -> bytes:
    """A zlib stream of `chunks` x 16 MiB of zeros (the Adler-32 of n zeros is n << 16 | 1)."""
    size = chunks * len(ZEROS)
    return b"\x78\xda" + _raw_deflate_zeros(chunks) + struct.pack(">I", (size % 65521) << 16 | 1)


def _zip_huge_member(chunks: int = 128) -> bytes:
    """A zip whose deflated member is `chunks` x 16 MiB of zeros (the CRC is not worked
    out: a run must stop long before it would check it)."""
    raw = _raw_deflate_zeros(chunks)
    size = chunks * len(ZEROS)
    name = b"zeros.bin"
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0x21, 0, len(raw), size, len(name), 0) + name
    central = (
        struct.pack(
            "<IHHHHHHIIIHHHHHII",
            0x02014B50,
            20,
            20,
            0,
            8,
            0,
            0x21,
            0,
            len(raw),
            size,
            len(name),
            0,
            0,
            0,
            0,
            0o644 << 16,
            0,
        )
        + name
    )
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(central), len(local) + len(raw), 0)
    return local + raw + central + end


def _tar_gz_many_members(count: int) -> bytes:
    """A tar.gz of `count` empty members, each behind a pax header with a 3 KB comment
    (tarfile keeps every member it has read, pax headers included, unless told not to)."""
    record = b" comment=" + b"A" * 3000 + b"\n"
    record = b"%d" % (len(record) + 4) + record
    unit = (
        _tar_header(b"././@PaxHeader", len(record), b"x")
        + record
        + bytes(-len(record) % 512)
        + _tar_header(b"f", 0)
    )
    return gzip.compress(unit * 2048, 9) * (count // 2048)


def _zip_many_entries(count: int) -> bytes:
    """A zip of `count` empty stored members named 'f' (78 bytes apiece): zipfile would
    build a 350-byte ZipInfo for each 47-byte central-directory entry in one call."""
    name = b"f"
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 0, 0, 0x21, 0, 0, 0, len(name), 0) + name
    central = (
        struct.pack(
            "<IHHHHHHIIIHHHHHII",
            0x02014B50,
            20,
            20,
            0,
            0,
            0,
            0x21,
            0,
            0,
            0,
            len(name),
            0,
            0,
            0,
            0,
            0o644 << 16,
            0,
        )
        + name
    )
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, len(central) * count, len(local), 0)
    return local + central * count + end


HOME = "/home/user/"
FILES: dict[str, bytes | str] = {
    HOME + "b.bz2": _bzip2_streams(200),  # 2,000 MiB
    HOME + "g.gz": _gzip_members(512),  # 8 GiB (gzip -t reads about 1 GB/s)
    HOME + "x.xz": _xz_streams(128),  # 2 GiB
    HOME + "dict.xz": _xz_claiming_dictionary(40),
    HOME + "dict.lzma": _lzma_claiming_dictionary(),
    HOME + "big.tgz": _tar_gz_huge_member(),
    HOME + "big.tbz": _tar_bz2_huge_member(),
    HOME + "big.txz": _tar_xz_huge_member(),
    HOME + "sparse.tgz": _tar_gz_sparse(),
    HOME + "z.zip": _zip_huge_member(),
    HOME + "new.txt": "new file\n",
}
# archives of many small members, alone (the hardened quota of 16 MB holds them)
MANY: dict[str, bytes | str] = {
    HOME + "many.tgz": _tar_gz_many_members(400_000),  # 1.4 GB of headers in 2 MB
    HOME + "many.zip": _zip_many_entries(160_000),  # 7.5 MB
    HOME + "new.txt": "new file\n",
}
# chained (| wc -c): only the deadline can end them; alone: the output cap comes first
TIME = ("timeout", "max_work")
OUT = ("max_output_size",)


def bomb(case_id: str, script: str, expect: tuple[str, ...], **kw: Any) -> Any:
    kw.setdefault("timeout", 3.0)
    kw.setdefault("profile", "default")
    kw.setdefault("files", FILES)
    return param(case_id, script, expect=expect, **kw)


CASES = [
    # bzip2: 200 streams of 10 MiB (the 785-byte bomb held 2.1 GB in `bzip2 -t`)
    bomb("bzip2-test", "bzip2 -t b.bz2", TIME),
    bomb("bzcat-pipe", "bzcat b.bz2 | wc -c", TIME),
    bomb("bzcat", "bzcat b.bz2", OUT),
    bomb("bunzip2-stdout", "bunzip2 -c < b.bz2", OUT),
    bomb("bzip2-d-hardened", "bzip2 -dc b.bz2 | cat | wc -c", TIME, profile="hardened"),
    # gzip: 128 members of 16 MiB
    bomb("gzip-test", "gzip -t g.gz", TIME),
    bomb("gzip-list", "gzip -l g.gz", TIME),
    bomb("zcat-pipe", "zcat g.gz | wc -c", TIME),
    bomb("zcat", "zcat g.gz", OUT),
    bomb("gunzip-stdin", "gunzip < g.gz", OUT, profile="hardened"),
    bomb("gzip-trailing-zeros", "{ gzip -c new.txt; cat /dev/zero; } | gunzip -c | wc -c", TIME),
    # xz: 128 streams of 16 MiB, and headers claiming 4 GiB dictionaries
    bomb("xz-test", "xz -t x.xz", TIME),
    bomb("xzcat-pipe", "xzcat x.xz | wc -c", TIME),
    bomb("xzcat", "xzcat x.xz", OUT),
    bomb("xz-list", "xz -l x.xz", TIME),
    bomb("xz-dictionary", "xzcat dict.xz", ("max_memory",)),
    bomb("lzma-dictionary", "xz -dc --format=lzma dict.lzma", ("max_memory",)),
    bomb("unxz-dictionary", "unxz -k dict.xz", ("max_memory",), profile="hardened"),
    bomb("xz-dictionary-stdin", "cat dict.lzma | xzcat", ("max_memory",)),
    # tar: a 1 GiB member behind each compressor, and a 1 TiB sparse member
    bomb("tar-list-gz", "tar -tzf big.tgz", TIME),
    bomb("tar-list-bz2", "tar -tjf big.tbz", TIME),
    bomb("tar-list-xz", "tar -tJf big.txz", TIME),
    bomb("tar-list-auto", "tar -taf big.tgz", TIME),
    bomb("tar-to-stdout", "tar -xOzf big.tgz", OUT),
    bomb("tar-to-pipe", "tar -xOf big.tgz | wc -c", TIME),
    bomb("tar-from-stdin", "tar -xzO < big.tgz | wc -c", TIME, profile="hardened"),
    bomb("tar-sparse-to-pipe", "tar -xOzf sparse.tgz | wc -c", TIME),
    bomb("tar-sparse-to-stdout", "tar -xOzf sparse.tgz", OUT),
    # 400,000 members, each with a 3 KB pax comment (5 s: the old code held 266 MB by then)
    bomb("tar-many-members", "tar -tzf many.tgz | wc -l", TIME, profile="hardened", timeout=5.0, files=MANY),
    bomb(
        "tar-many-members-extract",
        "tar -xOzf many.tgz | wc -c",
        TIME,
        profile="hardened",
        timeout=5.0,
        files=MANY,
    ),
    # zip: 160,000 central-directory entries, charged before zipfile reads them
    bomb("unzip-many-list", "unzip -l many.zip | wc -l", ("max_memory",), profile="hardened", files=MANY),
    bomb("unzip-many-test", "unzip -tq many.zip", ("max_memory",), profile="hardened", files=MANY),
    bomb("zip-many-test", "zip -T many.zip", ("max_memory",), profile="hardened", files=MANY),
    bomb("zip-many-update", "zip many.zip new.txt", ("max_memory",), profile="hardened", files=MANY),
    # zip: one deflated member of 2 GiB of zeros
    # (1 s: since `wc -c` stopped scanning words, the whole 2 GiB goes through in under 3 s of a fast
    # host's CPU, so the 3 s deadline no longer ended it)
    bomb("unzip-pipe", "unzip -p z.zip | wc -c", TIME, timeout=1.0),
    bomb("unzip-stdout", "unzip -p z.zip", OUT),
    # zip holds the old members while it rebuilds: max_memory at 256 MB, or the deadline on a loaded host
    bomb("zip-update-bomb", "zip z.zip new.txt", ("max_memory", "timeout"), timeout=6.0),
    bomb("zip-update-bomb-hardened", "zip -q z.zip new.txt", ("max_memory",), profile="hardened"),
    # base64 -d, xxd, hexdump over endless or huge input
    bomb("base64-d-pipe", "yes QUFBQUFBQUFB | base64 -d | wc -c", TIME),
    bomb("base64-d", "yes QUFBQUFBQUFB | base64 -d", OUT),
    bomb("base64-d-garbage", "yes '!!!!QUFB' | base64 -di | wc -c", TIME),
    bomb("base32-d", "yes IFAUCQKB | base32 -d | wc -c", TIME),
    bomb("base64-d-padded-units", "yes QUFBQQ== | base64 -d | wc -c", TIME),
    bomb("base64-d-one-line", "tr '\\0' A < /dev/zero | base64 -d | wc -c", TIME),
    bomb("base64-d-one-line-out", "tr '\\0' A < /dev/zero | base64 -d", OUT),
    bomb("basenc-base16-d", "yes 41424344 | basenc --base16 -d | wc -c", TIME),
    bomb("basenc-base2msbf-d", "yes 01000001 | basenc --base2msbf -d | wc -c", TIME),
    bomb("basenc-base2lsbf-d", "yes 10000010 | basenc --base2lsbf -d | wc -c", TIME),
    bomb("basenc-base64url-d", "yes QUF_ | basenc --base64url -d | wc -c", TIME),
    bomb("basenc-base32hex-d", "yes 85048502 | basenc --base32hex -d | wc -c", TIME),
    bomb("basenc-z85-d", "yes HelloWorld | basenc --z85 -d | wc -c", TIME),
    bomb("xxd-r-far-offset", "echo '30000000: 41' | xxd -r", ("max_string_length",)),
    bomb("xxd-r-huge-offset", "echo 'ffffffffffffffff: 41' | xxd -r | wc -c", ("max_string_length",)),
    bomb(
        "xxd-r-stepping",
        "for i in {1..64}; do printf '%x: 41\\n' $((i * 2000000)); done | xxd -r | wc -c",
        ("max_string_length",),
        profile="hardened",
    ),
    bomb("xxd-r-roundtrip", "yes | xxd | xxd -r | wc -c", TIME),
    bomb("xxd-r-seek", "echo '0: 41' | xxd -r -s 0x30000000 | wc -c", ("max_string_length",)),
    bomb("xxd-r-plain-seek", "echo 41 | xxd -r -p -s 0x30000000 | wc -c", ("max_string_length",)),
    bomb("xxd-r-plain", "yes 41 | xxd -r -p | wc -c", TIME),
    bomb("xxd-dump", "yes | xxd | wc -c", TIME),
    bomb("xxd-include", "yes | xxd -i | wc -c", TIME),
    bomb("xxd-plain", "yes | xxd -p -c0 | wc -c", TIME),
    bomb("hexdump", "yes | hexdump -C | wc -c", TIME),
    bomb("od", "yes | od -c | wc -c", TIME),
]


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    return batch(request, "test_decoding_bomb_ends_with_a_named_limit")


@pytest.mark.parametrize("case", CASES)
def test_decoding_bomb_ends_with_a_named_limit(case: dict[str, Any], outcomes: dict[str, Outcome]) -> None:
    verify_bomb(case, outcomes[case["id"]])


# ------------------------------------------------------------ file writes end at the quota


def verify_ended(out: Outcome, *, contains: str, status: int | None = None, timeout_ok: bool = False) -> None:
    """A run that must end with a result (an error the command reports; with `timeout_ok`,
    or at the deadline after reporting it), on time, in bounded memory, without a Python
    exception."""
    assert out.kind == "result" or (timeout_ok and out.kind == "limit" and out.limit == "timeout"), (
        out.describe()
    )
    assert contains in out.text, out.describe()
    if status is not None:
        assert out.exit_code == status, out.describe()
    assert out.elapsed <= out.timeout + BOMB_SLACK, out.describe()
    assert out.extra.get("peak_rss", 0) <= out.max_memory + BOMB_RSS_SLACK, out.describe()
    assert "internal error" not in out.text and "Traceback" not in out.text, out.describe()
    assert not out.extra.get("threads_left"), out.describe()
    assert_no_secrets(out)


# Testing an archive member means decoding all of it: a fast host can get through the 2 GiB member
# before the deadline (and report the bad CRC the bomb carries), a slow one stops at the deadline.
# Either way the run must end on time and in bounded memory.
ARCHIVE_TESTS = {"unzip-test": "unzip -t z.zip", "zip-test": "zip -T z.zip"}


@pytest.fixture(scope="module")
def archive_test_outcomes() -> dict[str, Outcome]:
    specs = {
        key: {"script": script, "files": FILES, "overrides": {"timeout": 3.0}, "limits": "default"}
        for key, script in ARCHIVE_TESTS.items()
    }
    return pooled("decode-archive-tests", specs)


@pytest.mark.parametrize("key", sorted(ARCHIVE_TESTS))
def test_archive_test_of_a_bomb_ends_bounded(key: str, archive_test_outcomes: dict[str, Outcome]) -> None:
    out = archive_test_outcomes[key]
    verify_ended(out, contains="bad CRC" if out.kind == "result" else "", timeout_ok=True)


QUOTA = "No space left on device"
WRITES = {
    "bunzip2-file": "bunzip2 -k b.bz2; echo status=$?; ls",
    "gunzip-file": "gunzip g.gz; echo status=$?; ls",
    "unxz-file": "unxz -k x.xz; echo status=$?; ls",
    "bzcat-redirect": "bzcat b.bz2 > out; echo status=$?",
    "tar-extract-gz": "tar -xzf big.tgz; echo status=$?",
    "tar-extract-sparse": "tar -xzf sparse.tgz; echo status=$?",
    "tar-extract-bz2-hardened": "tar -xjf big.tbz; echo status=$?",
    "unzip-file": "unzip -o z.zip; echo status=$?",
    "xxd-r-to-file": "for i in {1..100}; do printf '%x: 41\\n' $((i * 900000)); done | xxd -r - out; echo status=$?",
}


@pytest.fixture(scope="module")
def write_outcomes() -> dict[str, Outcome]:
    specs = {
        key: {
            "script": script,
            "files": FILES,
            "overrides": {"timeout": 5.0},
            "limits": "hardened" if key.endswith("hardened") else "default",
        }
        for key, script in WRITES.items()
    }
    return pooled("decode-writes", specs)


@pytest.mark.parametrize("key", list(WRITES))
def test_decoding_into_a_file_ends_at_the_quota(key: str, write_outcomes: dict[str, Outcome]) -> None:
    out = write_outcomes[key]
    # tar reads on through the rest of the archive after a failed write, as GNU tar does
    verify_ended(out, contains=QUOTA, timeout_ok=key.startswith("tar-"))
    assert "status=0" not in out.text, out.describe()
    # no half-written output is left beside the archive
    if key.endswith("-file") and "ls" in WRITES[key]:
        listing = out.stdout.decode().split("status=", 1)[1].split("\n", 1)[1]
        assert set(listing.split()) <= {n.rsplit("/", 1)[-1] for n in FILES}, out.describe()


# ------------------------------------------------------------ curl --compressed from a loopback server

INNER = _gzip_members(64)  # 1 GiB in one gzip layer (1 MB on the wire)
BODIES: dict[str, tuple[bytes, str]] = {
    "/gzip-gzip": (gzip.compress(INNER, 9), "gzip, gzip"),  # about 3 KB
    "/gzip": (INNER, "gzip"),
    "/x-gzip": (INNER, "x-gzip"),
    "/deflate": (_zlib_zeros(64), "deflate"),
    "/raw-deflate": (_raw_deflate_zeros(64), "deflate"),
    "/br": (b"\x0b\x02\x80hello\x03", "br"),
    "/gzip-identity-gzip": (gzip.compress(INNER, 9), "gzip, identity, gzip"),
    "/plain": (b"hello\n", "identity"),
}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        body, coding = BODIES[self.path]
        self.send_response(200)
        self.send_header("Content-Encoding", coding)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except OSError:
            pass  # the client gave up (a refused coding, a size limit)


class _Quiet(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    httpd = _Quiet(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


# script (with {url}) -> (how it ends: a limit name or "result", text it must show, exit status)
CURL: dict[str, tuple[str, str, str, int | None]] = {
    "two-layers": ("curl -sS --compressed {url}/gzip-gzip", "result", "curl: (61)", 61),
    "two-layers-with-identity": (
        "curl -sS --compressed {url}/gzip-identity-gzip",
        "result",
        "curl: (61)",
        61,
    ),
    "two-layers-to-file": ("curl -sS --compressed -o out {url}/gzip-gzip; ls", "result", "curl: (61)", None),
    "unknown-coding": ("curl -sS --compressed {url}/br", "result", "curl: (61)", 61),
    "one-layer-piped": ("curl -sS --compressed {url}/gzip | wc -c", "result", "curl: (63)", None),
    "one-layer-x-gzip": ("curl -sS --compressed {url}/x-gzip | wc -c", "result", "curl: (63)", None),
    "one-layer-to-stdout": ("curl -s --compressed {url}/gzip", "max_output_size", "", None),
    "deflate": ("curl -sS --compressed {url}/deflate | wc -c", "result", "curl: (63)", None),
    "raw-deflate": ("curl -sS --compressed {url}/raw-deflate | wc -c", "result", "curl: (63)", None),
    "one-layer-to-file": ("curl -sS --compressed -o out {url}/gzip; ls -l out", "result", "curl: (63)", None),
    "wget-keeps-the-coding": ("wget -q -O - {url}/gzip-gzip | wc -c", "result", "", 0),
    "wget-two-layers-kept": ("wget -q --compression=auto -O - {url}/gzip-gzip | wc -c", "result", "", 0),
    "wget-one-layer-piped": (
        "wget -q --compression=gzip -O - {url}/gzip | wc -c",
        "result",
        "Maximum file size exceeded",
        None,
    ),
    "wget-one-layer-to-file": (
        "wget -q --compression=auto -O out {url}/gzip; echo status=$?",
        "result",
        "status=1",
        None,
    ),
    "wget-one-layer-to-stdout": ("wget -q --compression=auto -O - {url}/gzip", "max_output_size", "", None),
    "plain": ("curl -sS --compressed {url}/plain", "result", "hello", 0),
}


@pytest.fixture(scope="module")
def curl_outcomes(server_url: str) -> dict[str, Outcome]:
    cfg = NetworkConfig(allowed_url_prefixes=[server_url + "/"], deny_private_ranges=False)

    def build() -> Bash:
        return Bash(network=cfg)

    # hardened where the output cap (1 MB) must come before the response limit (5 MB)
    specs = {
        key: {
            "script": script.format(url=server_url),
            "build": build,
            "overrides": {"timeout": 5.0},
            "limits": "hardened" if ending == "max_output_size" else "default",
        }
        for key, (script, ending, _, _) in CURL.items()
    }
    return pooled("decode-curl", specs)


@pytest.mark.parametrize("key", list(CURL))
def test_curl_compressed_is_bounded(key: str, curl_outcomes: dict[str, Outcome]) -> None:
    _, ending, text, status = CURL[key]
    out = curl_outcomes[key]
    if ending == "result":
        verify_ended(out, contains=text, status=status)
    else:
        problems, _ = bomb_problems(out, (ending,))
        assert not problems, "; ".join(problems) + "\n" + out.describe()
    if key.startswith(("wget-keeps", "wget-two")):  # identity asked, or two layers: stored as they came
        assert out.stdout.strip() == str(len(BODIES["/gzip-gzip"][0])).encode(), out.describe()


# ------------------------------------------------------------ damaged input: an answer, never a traceback

TEXT = b"".join(b"line %d of the text\n" % i for i in range(300))


def _small_tar(mode: str) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode, format=tarfile.PAX_FORMAT) as tf:
        for name in ("a.txt", "d/b.txt", "n" * 120):
            info = tarfile.TarInfo(name)
            info.size = len(TEXT)
            tf.addfile(info, io.BytesIO(TEXT))
        link = tarfile.TarInfo("link")
        link.type, link.linkname = tarfile.SYMTYPE, "a.txt"
        tf.addfile(link)
    return buf.getvalue()


def _small_zip(method: int) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as zf:
        zf.writestr("a.txt", TEXT)
        zf.writestr("d/b.txt", TEXT[:400])
    return buf.getvalue()


def _mutations(data: bytes, count: int, seed: int, keep: int = 0) -> list[bytes]:
    """`count` damaged copies (the first `keep` bytes left alone): bytes overwritten, the
    end cut, bytes inserted."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        d = bytearray(data)
        for _ in range(rng.randint(1, 5)):
            op = rng.random()
            if op < 0.5 and len(d) > keep:
                d[rng.randrange(keep, len(d))] = rng.randrange(256)
            elif op < 0.7:
                d = d[: rng.randrange(keep, len(d) + 1)]
            else:
                at = rng.randrange(keep, len(d) + 1)
                d[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        out.append(bytes(d))
    return out


# format -> (a good file, its suffix, commands run on every damaged copy $f); .lzma keeps
# its 13-byte header (a damaged one claims up to 4 GiB of dictionary: max_memory, above)
DAMAGED: dict[str, tuple[bytes, str, str]] = {
    "gzip": (
        gzip.compress(TEXT) + gzip.compress(TEXT[:99]),
        "gz",
        "gzip -t $f; zcat $f | wc -c; gzip -lv $f",
    ),
    "bzip2": (bz2.compress(TEXT) * 2, "bz2", "bzip2 -t $f; bzcat $f | wc -c; bunzip2 -k $f"),
    "xz": (lzma.compress(TEXT) * 2, "xz", "xz -t $f; xzcat $f | wc -c; xz -l $f; unxz -k $f"),
    "lzma": (lzma.compress(TEXT, format=lzma.FORMAT_ALONE), "lzma", "xz -dc --format=lzma $f | wc -c"),
    "tar": (
        _small_tar("w"),
        "tar",
        "tar -tvf $f; tar -xOf $f | wc -c; tar -xf $f -C out; tar -rf $f new.txt",
    ),
    "tar.gz": (_small_tar("w:gz"), "tgz", "tar -tzf $f; tar -xzf $f -C out"),
    "tar.bz2": (_small_tar("w:bz2"), "tbz", "tar -tjf $f; tar -xaf $f -C out"),
    "tar.xz": (_small_tar("w:xz"), "txz", "tar -tJf $f; tar -xOJf $f | wc -c"),
    "zip": (
        _small_zip(zipfile.ZIP_DEFLATED),
        "zip",
        "unzip -l $f; unzip -t $f; unzip -p $f | wc -c; unzip -oq $f -d out; zip -T $f; zip -q $f new.txt",
    ),
    "zip-stored": (_small_zip(zipfile.ZIP_STORED), "zip", "unzip -tq $f; unzip -v $f; zip -q -d $f a.txt"),
    "zip-bzip2": (_small_zip(zipfile.ZIP_BZIP2), "zip", "unzip -tq $f; unzip -p $f | wc -c"),
    "zip-lzma": (_small_zip(zipfile.ZIP_LZMA), "zip", "unzip -tq $f; unzip -p $f | wc -c"),
    "base64": (
        base64.encodebytes(TEXT),
        "b64",
        "base64 -d $f | wc -c; base64 -di $f | wc -c; basenc --base64url -d $f",
    ),
    "xxd": (
        b"".join(b"%08x: %s\n" % (i * 16, TEXT[i * 16 : i * 16 + 16].hex().encode()) for i in range(40)),
        "hex",
        "xxd -r $f | wc -c; xxd -r -s 3 $f | wc -c; xxd -r -p $f | wc -c",
    ),
}


@pytest.fixture(scope="module")
def damaged_outcomes() -> dict[str, Outcome]:
    specs = {}
    for i, (key, (good, suffix, commands)) in enumerate(DAMAGED.items()):
        files: dict[str, bytes | str] = {
            f"{HOME}{n:02d}.{suffix}": data
            for n, data in enumerate(_mutations(good, 24, i, 13 if key == "lzma" else 0))
        }
        files[HOME + "new.txt"] = "new\n"
        script = f"mkdir -p out; for f in *.{suffix}; do {commands}; done 2>&1 | tail -c 2000; echo done"
        specs[key] = {"script": script, "files": files, "overrides": {"timeout": 20.0}, "limits": "hardened"}
    return pooled("decode-damaged", specs)


@pytest.mark.parametrize("key", list(DAMAGED))
def test_damaged_input_gets_the_tools_own_errors(key: str, damaged_outcomes: dict[str, Outcome]) -> None:
    """24 damaged copies of a small file of each format through every decoder: each command
    answers with its own error (or a named limit for a header claiming a huge dictionary or
    offset), never an internal error or a traceback, and the loop goes on to the end."""
    out = damaged_outcomes[key]
    assert out.kind == "result" and out.stdout.endswith(b"done\n"), out.describe()
    assert "internal error" not in out.text and "Traceback" not in out.text, out.describe()
    assert out.extra.get("peak_rss", 0) <= out.max_memory + BOMB_RSS_SLACK, out.describe()
