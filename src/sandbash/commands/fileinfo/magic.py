"""file: identify a file by its type, magic bytes and text encoding.

A small hand-written subset of libmagic 5.44 (Debian 12): the common archive,
image, document and executable signatures, scripts by their `#!` line, JSON,
HTML, XML and C source, and the text encodings with GNU file's annotations
(line terminators, very long lines, escape sequences, overstriking).
"""

from __future__ import annotations

import json
import struct

from ...stdio.streams import StreamError
from ...vfs.base import Stat
from ...vfs.errors import FsError
from ..context import CommandExit, Ctx
from ..fsutil import errmsg, to_datetime, type_char, tz_from_env
from ..options import CommandSpec, Opt
from ..record import Effects, declare

SPEC = CommandSpec(
    name="file",
    usage="[OPTION...] [FILE...]",
    summary="Determine type of FILEs.",
    opts=(
        Opt("b", "brief", help="do not prepend filenames to output lines"),
        Opt("c", "checking-printout", help="print the parsed form of the magic file"),
        Opt("C", "compile", help="compile file specified by -m"),
        Opt("d", "debug", help="print debugging messages"),
        Opt("E", None, dest="E", help="on filesystem errors, issue an error message and exit"),
        Opt(
            "e",
            "exclude",
            arg="required",
            metavar="TEST",
            multi=True,
            help="exclude TEST from the list of tests",
        ),
        Opt(
            None,
            "exclude-quiet",
            arg="required",
            metavar="TEST",
            multi=True,
            help="like exclude, but ignore unknown tests",
        ),
        Opt(None, "extension", help="output a slash-separated list of extensions"),
        Opt(
            "f",
            "files-from",
            arg="required",
            metavar="FILE",
            help="read the filenames to be examined from FILE",
        ),
        Opt(
            "F", "separator", arg="required", metavar="STRING", help="use string as separator instead of `:'"
        ),
        Opt("i", "mime", help="output MIME type strings"),
        Opt(None, "apple", help="output the Apple CREATOR/TYPE"),
        Opt(None, "mime-type", help="output the MIME type"),
        Opt(None, "mime-encoding", help="output the MIME encoding"),
        Opt("k", "keep-going", help="don't stop at the first match"),
        Opt("l", "list", help="list magic strength"),
        Opt("L", "dereference", help="follow symlinks"),
        Opt("h", "no-dereference", help="don't follow symlinks (default)"),
        Opt(
            "m",
            "magic-file",
            arg="required",
            metavar="LIST",
            help="use LIST as a colon-separated list of magic files",
        ),
        Opt("N", "no-pad", help="do not pad output"),
        Opt("n", "no-buffer", help="do not buffer output"),
        Opt("p", "preserve-date", help="preserve access times on files"),
        Opt(
            "P",
            "parameter",
            arg="required",
            metavar="NAME=VALUE",
            multi=True,
            help="set file engine parameter limits",
        ),
        Opt("r", "raw", help="don't translate unprintable chars to \\ooo"),
        Opt("s", "special-files", help="treat special (block/char devices) files as ordinary ones"),
        Opt("S", "no-sandbox", help="disable system call sandboxing"),
        Opt("v", "version", help="output version information and exit"),
        Opt("z", "uncompress", help="try to look inside compressed files"),
        Opt("Z", "uncompress-noreport", help="only print the contents of compressed files"),
        Opt("0", "print0", help="terminate filenames with ASCII NUL"),
    ),
    add_help=False,
)

USAGE = (
    "Usage: file [-bcCdEhikLlNnprsSvzZ0] [--apple] [--extension] [--mime-encoding]\n"
    "            [--mime-type] [-e <testname>] [-F <separator>]  [-f <namefile>]\n"
    "            [-m <magicfiles>] [-P <parameter=value>] [--exclude-quiet]\n"
    "            <file> ...\n"
    "       file -C [-m <magicfiles>]\n"
    "       file [--help]\n"
)

READ_LIMIT = 1 << 20  # libmagic looks at the first megabyte

# (description, mime) for each interpreter name in a #! line
_INTERPRETERS: dict[str, tuple[str, str]] = {
    "sh": ("POSIX shell script, {text} executable", "text/x-shellscript"),
    "dash": ("POSIX shell script, {text} executable", "text/x-shellscript"),
    "bash": ("Bourne-Again shell script, {text} executable", "text/x-shellscript"),
    "zsh": ("Paul Falstad's zsh script, {text} executable", "text/x-shellscript"),
    "ksh": ("Korn shell script, {text} executable", "text/x-shellscript"),
    "csh": ("C shell script, {text} executable", "text/x-shellscript"),
    "tcsh": ("Tenex C shell script, {text} executable", "text/x-shellscript"),
    "python": ("Python script, {text} executable", "text/x-script.python"),
    "perl": ("Perl script text executable", "text/x-perl"),
    "ruby": ("Ruby script, {text} executable", "text/x-ruby"),
    "node": ("Node.js script executable, {text}", "application/javascript"),
    "nodejs": ("Node.js script executable, {text}", "application/javascript"),
    "awk": ("awk or perl script, {text} executable", "text/x-awk"),
    "gawk": ("GNU awk script, {text} executable", "text/x-awk"),
    "php": ("PHP script, {text} executable", "text/x-php"),
    "make": ("makefile script, {text} executable", "text/x-makefile"),
    "tclsh": ("Tcl script, {text} executable", "text/x-tcl"),
    "lua": ("Lua script, {text} executable", "text/x-lua"),
}


class Result:
    """One identification: the description and MIME type/encoding."""

    def __init__(self, desc: str, mime: str, encoding: str = "binary") -> None:
        self.desc = desc
        self.mime = mime
        self.encoding = encoding


def _elf(data: bytes) -> Result:
    if len(data) < 20:
        return Result("ELF", "application/octet-stream")
    bits = {1: "32-bit", 2: "64-bit"}.get(data[4], "invalid class")
    little = data[5] == 1
    order = "LSB" if little else "MSB"
    fmt = "<" if little else ">"
    etype, machine = struct.unpack(fmt + "HH", data[16:20])
    kinds = {1: "relocatable", 2: "executable", 3: "shared object", 4: "core file"}
    kind = kinds.get(etype, "unknown type")
    mime = {
        1: "application/x-object",
        2: "application/x-executable",
        3: "application/x-sharedlib",
        4: "application/x-coredump",
    }.get(etype, "application/octet-stream")
    machines = {
        3: "Intel 80386",
        40: "ARM",
        62: "x86-64",
        183: "ARM aarch64",
        243: "UCB RISC-V",
        8: "MIPS",
        20: "PowerPC",
        21: "64-bit PowerPC or cisco 7500",
        2: "SPARC",
        43: "SPARC V9",
    }
    parts = [
        f"ELF {bits} {order} {kind}",
        machines.get(machine, f"*unknown arch {machine:#x}*"),
        f"version {data[6]} (SYSV)",
    ]
    return Result(", ".join(parts), mime)


def _gzip(data: bytes, ctx: Ctx) -> Result:
    if len(data) < 10:
        return Result("data", "application/octet-stream")
    flags = data[3]
    mtime = struct.unpack("<I", data[4:8])[0]
    parts = ["gzip compressed data"]
    if flags & 0x08:
        pos = 10
        if flags & 0x04 and len(data) >= 12:
            pos += 2 + struct.unpack("<H", data[10:12])[0]
        end = data.find(b"\0", pos)
        if end > pos:
            parts.append(f'was "{data[pos:end].decode("latin-1")}"')
    if mtime:
        d = to_datetime(mtime, tz_from_env(ctx.env))
        parts.append("last modified: " + d.strftime("%a %b ") + f"{d.day:2d} " + d.strftime("%H:%M:%S %Y"))
    if data[8] == 2:
        parts.append("max compression")
    elif data[8] == 4:
        parts.append("max speed")
    oses = {0: "FAT filesystem (MS-DOS, OS/2, NT)", 3: "Unix", 7: "Macintosh", 11: "NTFS filesystem (NT)"}
    if data[9] in oses:
        parts.append("from " + oses[data[9]])
    if len(data) >= 18:
        parts.append(f"original size modulo 2^32 {struct.unpack('<I', data[-4:])[0]}")
    return Result(", ".join(parts), "application/gzip")


def _zip(data: bytes) -> Result:
    name_len = struct.unpack("<H", data[26:28])[0] if len(data) >= 30 else 0
    if name_len == 0 or len(data) < 30 + name_len:
        return Result("data", "application/octet-stream")
    version, _flags, method = struct.unpack("<HHH", data[4:10])
    methods = {0: "store", 8: "deflate", 12: "bzip2", 14: "lzma", 93: "zstd", 95: "xz"}
    text = f"Zip archive data, at least v{version // 10}.{version % 10} to extract"
    if method in methods:
        text += f", compression method={methods[method]}"
    return Result(text, "application/zip")


def _png(data: bytes) -> Result:
    if len(data) < 29 or data[12:16] != b"IHDR":
        return Result("PNG image data", "image/png")
    w, h, depth, color, _c, _f, interlace = struct.unpack(">IIBBBBB", data[16:29])
    colors = {0: "grayscale", 2: "RGB", 3: "colormap", 4: "gray+alpha", 6: "RGBA"}
    kind = f"{depth}-bit colormap" if color == 3 else f"{depth}-bit/color {colors.get(color, 'unknown')}"
    if color == 0:
        kind = f"{depth}-bit grayscale"
    lace = "interlaced" if interlace else "non-interlaced"
    return Result(f"PNG image data, {w} x {h}, {kind}, {lace}", "image/png")


def _binary_magic(data: bytes, ctx: Ctx) -> Result | None:
    if data.startswith(b"\x7fELF"):
        return _elf(data)
    if data.startswith(b"\x1f\x8b"):
        return _gzip(data, ctx)
    if data.startswith(b"PK\x03\x04"):
        return _zip(data)
    if data.startswith(b"PK\x05\x06"):
        return Result("Zip archive data (empty)", "application/zip")
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return _png(data)
    if data.startswith((b"GIF87a", b"GIF89a")) and len(data) >= 10:
        w, h = struct.unpack("<HH", data[6:10])
        return Result(f"GIF image data, version {data[3:6].decode()}, {w} x {h}", "image/gif")
    if data.startswith(b"\xff\xd8\xff"):
        return Result("JPEG image data", "image/jpeg")
    if data.startswith(b"%PDF-"):
        version = data[5:8].decode("latin-1")
        return Result(f"PDF document, version {version}", "application/pdf")
    if data.startswith(b"BZh") and len(data) > 3 and data[3:4].isdigit():
        return Result(f"bzip2 compressed data, block size = {data[3] - 48}00k", "application/x-bzip2")
    if data.startswith(b"\xfd7zXZ\x00"):
        checks = {0: "none", 1: "CRC32", 4: "CRC64", 10: "SHA-256"}
        check = checks.get(data[7], "") if len(data) > 7 else ""
        return Result(f"XZ compressed data, checksum {check}".rstrip(), "application/x-xz")
    if data.startswith(b"7z\xbc\xaf\x27\x1c"):
        return Result(f"7-zip archive data, version {data[6]}.{data[7]}", "application/x-7z-compressed")
    if data.startswith(b"\x28\xb5\x2f\xfd"):
        return Result("Zstandard compressed data", "application/zstd")
    if len(data) >= 263 and data[257:262] == b"ustar":
        gnu = data[257:265] == b"ustar  \0"
        return Result("POSIX tar archive (GNU)" if gnu else "POSIX tar archive", "application/x-tar")
    if data.startswith(b"SQLite format 3\0"):
        return Result("SQLite 3.x database", "application/vnd.sqlite3")
    if data.startswith(b"\xca\xfe\xba\xbe"):
        return Result("compiled Java class data", "application/x-java-applet")
    if data.startswith(b"\0asm"):
        return Result("WebAssembly (wasm) binary module", "application/wasm")
    if data.startswith(b"RIFF") and data[8:12] == b"WAVE":
        return Result("RIFF (little-endian) data, WAVE audio", "audio/x-wav")
    if data.startswith(b"ID3"):
        return Result("Audio file with ID3 version 2", "audio/mpeg")
    if data.startswith(b"OggS"):
        return Result("Ogg data", "audio/ogg")
    return None


def _text_encoding(data: bytes) -> tuple[str, str] | None:
    """(label, MIME charset) of text, or None for binary data."""
    if data.startswith(b"\xef\xbb\xbf"):
        try:
            data[3:].decode("utf-8")
            return "Unicode text, UTF-8 (with BOM) text", "utf-8"
        except UnicodeDecodeError:
            return None
    if data.startswith((b"\xff\xfe", b"\xfe\xff")) and len(data) % 2 == 0:
        endian = "little-endian" if data[:2] == b"\xff\xfe" else "big-endian"
        return f"Unicode text, UTF-16, {endian} text", "utf-16" + ("le" if endian[0] == "l" else "be")
    text_ctrl = set(b"\t\n\r\f\b\x1b\a\v")
    if all(32 <= b < 127 or b in text_ctrl for b in data):
        return "ASCII text", "us-ascii"
    if any(b < 32 and b not in text_ctrl for b in data) or 0x7F in data:
        return None
    try:
        data.decode("utf-8")
        return "Unicode text, UTF-8 text", "utf-8"
    except UnicodeDecodeError:
        pass
    if all(b < 0x80 or b >= 0xA0 for b in data):
        return "ISO-8859 text", "iso-8859-1"
    if all(b < 0x80 or b >= 0x85 for b in data) and b"\x85" in data:
        # NEL (0x85) counts as a line terminator in ASCII text
        return "ASCII text", "us-ascii"
    return "Non-ISO extended-ASCII text", "unknown-8bit"


def _annotations(data: bytes) -> str:
    """GNU file's text annotations (very long lines, line terminators...)."""
    lines = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
    longest = max((len(line) for line in lines), default=0)
    notes: list[str] = []
    if longest > 300:
        notes.append(f"with very long lines ({longest})")
    crlf = data.count(b"\r\n")
    cr = data.count(b"\r") - crlf
    lf = data.count(b"\n") - crlf
    nel = data.count(b"\x85") if not _is_utf8(data) else 0
    if not (crlf or cr or lf or nel) or crlf or cr or nel:
        if not (crlf or cr or lf or nel):
            notes.append("with no line terminators")
        else:
            kinds = [name for name, n in (("CRLF", crlf), ("CR", cr), ("LF", lf), ("NEL", nel)) if n]
            notes.append("with " + ", ".join(kinds) + " line terminators")
    if b"\x1b" in data:
        notes.append("with escape sequences")
    if b"\b" in data:
        notes.append("with overstriking")
    return "".join(", " + n for n in notes)


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def _text_kind(data: bytes, label: str) -> Result:
    """Scripts, JSON, markup and source code among text files."""
    head = data.lstrip()[:512]
    lower = head.lower()
    if data.startswith(b"#!"):
        first = data[2:].split(b"\n", 1)[0].decode("utf-8", "replace").strip().split()
        name = first[0].rsplit("/", 1)[-1] if first else ""
        if name == "env" and len(first) > 1:
            args = [a for a in first[1:] if not a.startswith("-")]
            name = args[0].rsplit("/", 1)[-1] if args else ""
        base = name.rstrip("0123456789.")
        if base in _INTERPRETERS:
            desc, mime = _INTERPRETERS[base]
            return Result(desc.format(text=label), mime)
        return Result(f"a {name or '/'} script, {label} executable", "text/plain")
    stripped = data.strip()
    if stripped[:1] in (b"{", b"[") and stripped[-1:] in (b"}", b"]"):
        try:
            json.loads(data.decode("utf-8"))
            return Result("JSON text data", "application/json")
        except (ValueError, UnicodeDecodeError):
            pass
    if lower.startswith(b"<?xml"):
        if b"<svg" in data[:4096].lower():
            return Result("SVG Scalable Vector Graphics image", "image/svg+xml")
        version = "1.0"
        return Result(f"XML {version} document, {label}", "text/xml")
    if lower.startswith(b"<svg"):
        return Result("SVG Scalable Vector Graphics image", "image/svg+xml")
    if lower.startswith((b"<!doctype html", b"<html", b"<head", b"<body", b"<title")):
        return Result(f"HTML document, {label}", "text/html")
    for line in data[:4096].split(b"\n"):
        s = line.strip()
        if s.startswith((b"#include", b"#define ", b"#ifndef ", b"#pragma ")):
            return Result(f"C source, {label}", "text/x-c")
        if (s.startswith(b"def ") and s.endswith(b":")) or (
            s.startswith((b"import ", b"from ")) and b"import" in s[5:]
        ):
            return Result(f"Python script, {label} executable", "text/x-script.python")
    return Result(label, "text/plain")


def identify(ctx: Ctx, path: str, st: Stat, follow: bool) -> Result:
    fs = ctx.fs
    kind = type_char(st.mode)
    if kind == "d":
        return Result("directory", "inode/directory")
    if kind == "l":
        try:
            target = fs.readlink(path)
        except FsError:
            target = ""
        if fs.try_stat(path) is None:
            return Result(f"broken symbolic link to {target}", "inode/symlink")
        return Result(f"symbolic link to {target}", "inode/symlink")
    if kind in ("c", "b"):
        major = (st.rdev >> 8) & 0xFFF
        minor = st.rdev & 0xFF
        word = "character special" if kind == "c" else "block special"
        return Result(f"{word} ({major}/{minor})", "inode/chardevice" if kind == "c" else "inode/blockdevice")
    if kind == "p":
        return Result("fifo (named pipe)", "inode/fifo")
    if kind == "s":
        return Result("socket", "inode/socket")
    if st.size == 0:
        return Result("empty", "inode/x-empty")
    stream = fs.open(path, "r")
    try:
        data = stream.read(READ_LIMIT)
    finally:
        stream.close()
    return identify_data(ctx, data)


def identify_data(ctx: Ctx, data: bytes) -> Result:
    """What the first READ_LIMIT bytes of a file's contents are."""
    if not data:
        return Result("empty", "inode/x-empty")
    found = _binary_magic(data, ctx)
    if found is not None:
        return found
    enc = _text_encoding(data)
    if enc is None:
        return Result("data", "application/octet-stream")
    label, charset = enc
    result = _text_kind(data, label)
    # annotations follow the text label; JSON, SVG and Perl scripts show none
    if not (result.mime == "application/json" or result.desc.startswith(("SVG", "Perl"))):
        result.desc += _annotations(data)
    result.encoding = charset
    return result


def _identify_stdin(ctx: Ctx) -> tuple[Result, bool]:
    """`file -`, and whether its read failed (file's ERROR line, in every mode, and status 1)."""
    try:
        data = ctx.stdin.read(READ_LIMIT)
    except StreamError as e:
        text = f"ERROR: cannot read `/dev/stdin' ({e.strerror})"
        return Result(text, text, text), True
    return identify_data(ctx, data), False


@declare("file", spec=SPEC, effects=Effects.FILE)
def cmd_file(ctx: Ctx) -> int:
    if ctx.args[:1] == ["--help"]:
        ctx.out(USAGE)
        return 0
    if ctx.args[:1] in (["-v"], ["--version"]):
        ctx.out("file-5.44\nmagic file from /etc/magic:/usr/share/misc/magic\n")
        return 0
    opts, operands = ctx.parse(SPEC)
    if opts.has("files_from"):
        try:
            data = ctx.read_input(opts["files_from"])
        except FsError as e:
            ctx.error(f"Cannot open `{opts['files_from']}' ({errmsg(e)})")
            return 1
        operands += [line for line in data.decode("utf-8", "surrogateescape").splitlines() if line]
    if not operands:
        ctx.stderr.write(USAGE.encode())
        raise CommandExit(1)
    follow = opts.has("dereference") and not any(k == "no_dereference" for k, _ in opts.order[-1:])
    sep = opts.get("separator", ":")
    pad = not opts.has("no_pad")
    width = max(len(p) for p in operands) + len(sep) if pad else 0
    out: list[str] = []
    status = 0
    for operand in operands:
        ctx.checkpoint()
        path = operand
        try:
            if operand == "-":  # standard input's contents, labelled as file labels it
                path = "/dev/stdin"
                result, failed = _identify_stdin(ctx)
                status = status or int(failed)
            else:
                st = ctx.fs.stat(path) if follow else ctx.fs.lstat(path)
                result = identify(ctx, path, st, follow)
        except FsError as e:
            if opts.has("E"):
                ctx.error(f"cannot stat `{path}' ({errmsg(e)})")
                status = 1
                continue
            # file 5.44 says so in every mode, -i/--mime-type/--mime-encoding too (no MIME type)
            message = f"cannot open `{path}' ({errmsg(e)})"
            result = Result(message, message, message)
        if opts.has("mime_type"):
            text = result.mime
        elif opts.has("mime_encoding"):
            text = result.encoding
        elif opts.has("mime"):
            text = (
                f"{result.mime}; charset={result.encoding}"
                if result.encoding and result.encoding != result.mime
                else result.mime
            )
        else:
            text = result.desc
        if opts.has("brief"):
            out.append(text + "\n")
        elif opts.has("print0"):
            out.append(f"{path}\0{sep} {text}\n")
        else:
            label = (path + sep).ljust(width) if pad else path + sep
            out.append(f"{label} {text}\n")
    ctx.out("".join(out))
    return status
