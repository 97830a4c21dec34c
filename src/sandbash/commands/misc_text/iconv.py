"""iconv: character set conversion through Python's codecs (glibc iconv's names and messages)."""

from __future__ import annotations

import codecs
import unicodedata

from ...vfs.errors import FsError, strerror
from ..context import Ctx
from ..options import CommandSpec, Opt
from ..record import Effects, declare
from ..textbasic.common import Out, encode

ICONV_SPEC = CommandSpec(
    name="iconv",
    usage="[OPTION...] [FILE...]",
    summary="Convert encoding of given files from one encoding to another.",
    opts=(
        Opt("f", "from-code", arg="required", metavar="NAME", help="encoding of original text"),
        Opt("t", "to-code", arg="required", metavar="NAME", help="encoding for output"),
        Opt("l", "list", help="list all known coded character sets"),
        Opt("c", None, dest="omit", help="omit invalid characters from output"),
        Opt("o", "output", arg="required", metavar="FILE", help="output file"),
        Opt("s", "silent", help="suppress warnings"),
        Opt(None, "verbose", help="print progress information"),
    ),
)

# glibc names -> Python codec names
_ALIASES = {
    "UTF8": "utf-8",
    "UTF-8": "utf-8",
    "ASCII": "ascii",
    "US-ASCII": "ascii",
    "ANSI_X3.4-1968": "ascii",
    "LATIN1": "latin-1",
    "ISO-8859-1": "latin-1",
    "ISO8859-1": "latin-1",
    "ISO_8859-1": "latin-1",
    "L1": "latin-1",
    "LATIN2": "iso8859-2",
    "ISO-8859-2": "iso8859-2",
    "ISO-8859-15": "iso8859-15",
    "LATIN-9": "iso8859-15",
    "UTF-16": "utf-16",
    "UTF16": "utf-16",
    "UTF-16LE": "utf-16-le",
    "UTF-16BE": "utf-16-be",
    "UTF-32": "utf-32",
    "UTF32": "utf-32",
    "UTF-32LE": "utf-32-le",
    "UTF-32BE": "utf-32-be",
    "UCS-2": "utf-16-le",
    "UCS-2LE": "utf-16-le",
    "UCS-2BE": "utf-16-be",
    "UCS-4": "utf-32-be",
    "UCS-4LE": "utf-32-le",
    "UCS-4BE": "utf-32-be",
    "CP1252": "cp1252",
    "WINDOWS-1252": "cp1252",
    "CP1251": "cp1251",
    "WINDOWS-1251": "cp1251",
    "CP1250": "cp1250",
    "CP437": "cp437",
    "CP850": "cp850",
    "KOI8-R": "koi8-r",
    "KOI8-U": "koi8-u",
    "SHIFT_JIS": "shift_jis",
    "SJIS": "shift_jis",
    "EUC-JP": "euc-jp",
    "EUC-KR": "euc-kr",
    "GB2312": "gb2312",
    "GBK": "gbk",
    "GB18030": "gb18030",
    "BIG5": "big5",
    "MACINTOSH": "mac-roman",
    "UTF-7": "utf-7",
    "CP932": "cp932",
    "CP936": "gbk",
}
_TRANSLIT = {
    "\u2018": "'",
    "\u2019": "'",
    "\u201c": '"',
    "\u201d": '"',
    "\u2013": "-",
    "\u2014": "-",
    "\u2026": "...",
    "\u00a0": " ",
    "\u00df": "ss",
    "\u00e6": "ae",
    "\u00c6": "AE",
    "\u0153": "oe",
    "\u0152": "OE",
    "\u00f8": "o",
    "\u00d8": "O",
    "\u20ac": "EUR",
    "\u00a9": "(C)",
    "\u00ae": "(R)",
    "\u2122": "(TM)",
    "\u00ab": "<<",
    "\u00bb": ">>",
}


def _codec(name: str) -> tuple[str, bool, bool] | None:
    """(python codec, //TRANSLIT, //IGNORE) for a glibc encoding name, or None."""
    upper = name.upper()
    translit = "//TRANSLIT" in upper
    ignore = "//IGNORE" in upper
    base = upper.split("//", 1)[0]
    if not base:
        base = "UTF-8"
    py = _ALIASES.get(base)
    if py is None:
        try:
            py = codecs.lookup(base.lower()).name
        except LookupError:
            return None
    return py, translit, ignore


def _translit(ch: str) -> str:
    if ch in _TRANSLIT:
        return _TRANSLIT[ch]
    decomposed = unicodedata.normalize("NFKD", ch)
    base = "".join(c for c in decomposed if not unicodedata.combining(c))
    return base if base and base != ch else "?"


@declare("iconv", spec=ICONV_SPEC, effects=Effects.OUTPUTS)
def cmd_iconv(ctx: Ctx) -> int:
    opts, files = ctx.parse(ICONV_SPEC)
    if opts.get("list"):
        names = sorted(set(_ALIASES))
        ctx.out("\n".join(f"{n}//" for n in names) + "\n")
        return 0
    src = _codec(opts.get("from_code") or "UTF-8")
    dst = _codec(opts.get("to_code") or "UTF-8")
    if src is None or dst is None:
        bad = [n for n, c in ((opts.get("from_code"), src), (opts.get("to_code"), dst)) if c is None]
        if src is None and dst is None:
            ctx.error(f"conversions from `{bad[0]}' and to `{bad[1]}' are not supported")
        elif src is None:
            ctx.error(f"conversion from `{bad[0]}' is not supported")
        else:
            ctx.error(f"conversion to `{bad[0]}' is not supported")
        return 1
    omit = bool(opts.get("omit")) or dst[2]
    out_stream = ctx.stdout
    if opts.get("output"):
        try:
            out_stream = ctx.open_out(opts.get("output"))
        except FsError as e:
            ctx.error(f"cannot open output file: {strerror(e.errno or 5)}")
            return 1
    out = Out(out_stream)
    status = 0
    # glibc's words; an input that cannot be read, or converted, ends the run (not one that cannot be opened)
    inputs = ctx.inputs(
        files, "cannot open input file `{name}': {err}", "error while reading the input: {err}", out.flush
    )
    inputs.stop_on_read_error = not omit
    for _name, stream in inputs:
        with inputs.reading():
            status = max(status, _convert(ctx, ctx.read_all(stream), src[0], dst[0], dst[1], omit, out))
        if status and not omit:
            break
    out.flush()
    if out_stream is not ctx.stdout:
        out_stream.close()
    return max(status, inputs.status)


def _convert(ctx: Ctx, data: bytes, src: str, dst: str, translit: bool, omit: bool, out: Out) -> int:
    status = 0
    try:
        text = data.decode(src)
    except UnicodeDecodeError as e:
        if e.reason == "unexpected end of data" and not omit:
            good = data[: e.start].decode(src)
            out.write(_encode(good, dst, translit, omit)[0])
            ctx.error("incomplete character or shift sequence at end of buffer")
            return 1
        if not omit:
            good = data[: e.start].decode(src)
            encoded, _ = _encode(good, dst, translit, omit)
            out.write(encoded)
            ctx.error(f"illegal input sequence at position {e.start}")
            return 1
        text = data.decode(src, "ignore")
        status = 1
    encoded, bad_pos = _encode(text, dst, translit, omit)
    out.write(encoded)
    if bad_pos is not None:
        ctx.error(f"illegal input sequence at position {bad_pos}")
        return 1
    return status


def _encode(text: str, dst: str, translit: bool, omit: bool) -> tuple[bytes, int | None]:
    """Encode; returns the bytes and, when stopped by an unconvertible character, its byte offset in the input."""
    try:
        return text.encode(dst), None
    except UnicodeEncodeError:
        pass
    out: list[bytes] = []
    pos = 0
    for ch in text:
        try:
            out.append(ch.encode(dst))
        except UnicodeEncodeError:
            if translit:
                try:
                    out.append(_translit(ch).encode(dst))
                    continue
                except UnicodeEncodeError:
                    out.append(b"?")
                    continue
            if not omit:
                return b"".join(out), pos
        pos += len(encode(ch))
    return b"".join(out), None
