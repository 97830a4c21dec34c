"""od, xxd, hexdump, base64, base32, basenc, strings: compared with the real tools."""

from __future__ import annotations

import pytest

from .test_textbasic import compare

FILES: dict[str, bytes | str] = {
    "b1": b"hello world\x00\x01\xff\n",
    "rep": b"abcdefgh" * 4 + b"abc",
    "zeros": b"a" + bytes(14) + b"b",
    "fl": b"\x00\x00\x80\x3f\x00\x00\x00\x00\x00\x00\xf0\x3f\x00\x00\xc0\x7f",
    "b64": "aGVsbG8gd29ybGQK\n",
    "bad64": "Y*Q==\n",
    "short64": "YQ",
    "mid": "YQ==YQ==\n",
    "dump": "00000000: 6865 6c6c 6f20 776f 726c 6400 01ff 0a    hello world....\n",
    "plain": "68656c6c\n6f0a\n",
    "far": "10: 4142\n",
    "two": "0: 41\n4: 42\n",
    "bin": b"a\x00bcdefg\x01hi jklm\nnop\tqrs\xc3\xa9tu\xffvwxyz",
    # UTF-16/32 text in both byte orders, with a break (\x01), whitespace and a byte over 0x7f
    "wide": "wide\tstring one\nand\x01two".encode("utf-16-le")
    + "BIG endian\u00e9x".encode("utf-16-be")
    + "four byte".encode("utf-32-le")
    + "FOUR BYTE".encode("utf-32-be"),
}

# od's offset operands: `od FILE +N`, `od +N`, `od FILE N` (no modern option), --traditional's
# OFFSET and LABEL; what is not an offset is a file
OLD_OFFSETS = [
    ["-c", "b1", "+1"],
    ["-c", "b1", "1"],
    ["-c", "+2"],
    ["-c", "b1", "+0x2"],
    ["-c", "rep", "+1b"],
    ["-c", "rep", "+b"],
    ["-c", "b1", "+1."],
    ["-c", "b1", "2."],
    ["-c", "b1", "08"],
    ["-c", "b1", "0x"],
    ["-c", "b1", "+"],
    ["b1", "+1", "+100"],
    ["-c", "b1", "+1", "rep"],
    ["-A", "d", "-c", "b1", "+3"],
    ["-t", "c", "b1", "+1"],
    ["-v", "-c", "b1", "+1"],
    ["-c", "-j1", "b1", "+1"],
    ["--endian=big", "-c", "b1", "+1"],
    ["-c", "b1", "99999999999999999999999"],
    ["--traditional", "-c", "b1"],
    ["--traditional", "-c", "1"],
    ["--traditional", "-c", "b1", "1", "10"],
    ["--traditional", "-c", "-b", "b1", "1", "10"],
    ["--traditional", "-A", "n", "-c", "-b", "b1", "1", "10"],
    ["--traditional", "-A", "d", "-c", "b1", "1", "10"],
    ["--traditional", "-A", "x", "-c", "b1", "1", "10"],
    ["--traditional", "-c", "-N", "3", "b1", "1", "10"],
    ["--traditional", "-j", "2", "-c", "b1", "1"],
    ["--traditional", "-c", "1", "10"],
    ["--traditional", "-S", "1", "bin", "1", "10"],
    ["--traditional", "-c", "b1", "1", "8"],
    ["--traditional", "-c", "b1", "1", "10."],
    ["--traditional", "-c", "b1", "rep", "zeros"],
    ["--traditional", "-c", "b1", "0x100", "10"],
]

CASES = [
    *(["od", *args] for args in OLD_OFFSETS),
    ["od", "b1"],
    ["od", "-c", "b1"],
    ["od", "-t", "x1z", "-A", "x", "b1"],
    ["od", "-c", "-t", "d1", "b1"],
    ["od", "-a", "b1"],
    ["od", "rep"],
    ["od", "-v", "-c", "rep"],
    ["od", "-t", "x2", "--endian=big", "b1"],
    ["od", "-A", "n", "-t", "u1", "-N", "4", "-j", "2", "b1"],
    ["od", "-w4", "-t", "x1", "b1"],
    ["od", "-t", "d2", "-t", "o1", "b1"],
    ["od", "-i", "b1"],
    ["od", "-l", "b1"],
    ["od", "-t", "u8", "b1"],
    ["od", "-s", "-x", "b1"],
    ["od", "-j", "100", "b1"],
    ["od", "-t", "q", "b1"],
    ["od", "-t", "x3", "b1"],
    ["od", "-N", "x", "b1"],
    ["od", "-b", "b1"],
    ["od", "-t", "dC", "-t", "dS", "-t", "dI", "-t", "dL", "b1"],
    ["od", "-t", "f4", "-t", "f8", "fl"],
    ["od", "-f", "fl"],
    ["od", "-A", "d", "-t", "x4", "b1", "rep"],
    ["od"],
    ["od", "nope"],
    ["od", "-t", "o", "b1"],
    ["od", "-D", "-O", "-X", "b1"],
    ["od", "-A", "q", "b1"],
    ["xxd", "b1"],
    ["xxd", "-p", "b1"],
    ["xxd", "-i", "b1"],
    ["xxd", "-g4", "-c", "8", "b1"],
    ["xxd", "-u", "-e", "b1"],
    ["xxd", "-s", "3", "-l", "5", "b1"],
    ["xxd", "-o", "16", "-l", "3", "b1"],
    ["xxd", "-b", "-l", "3", "b1"],
    ["xxd", "-c", "4", "-l", "10", "b1"],
    ["xxd", "-r", "dump"],
    ["xxd", "-r", "-p", "plain"],
    ["xxd"],
    ["xxd", "nope"],
    ["xxd", "-a", "-c", "4", "zeros"],
    ["xxd", "-p", "-c", "4", "b1"],
    ["xxd", "-g", "1", "b1"],
    ["xxd", "-i", "-C", "-n", "my var", "b1"],
    ["xxd", "-s", "-4", "b1"],
    ["xxd", "rep"],
    # -r with -s: the seek is added to every position (below 0: 'cannot seek backwards', 5)
    ["xxd", "-r", "-s", "5", "dump"],
    ["xxd", "-r", "-s", "-8", "far"],
    ["xxd", "-r", "-s", "+3", "far"],
    ["xxd", "-r", "-s", "0x10", "two"],
    ["xxd", "-r", "-s", "-2", "two"],
    ["xxd", "-r", "-s", "-16", "far"],
    ["xxd", "-r", "-s", "-17", "far"],
    ["xxd", "-r", "-p", "-s", "3", "plain"],
    ["xxd", "-r", "-p", "-s", "-1", "plain"],
    ["xxd", "-r", "-p", "-s", "0", "plain"],
    ["hexdump", "b1"],
    ["hexdump", "-C", "b1"],
    ["hexdump", "-c", "b1"],
    ["hexdump", "-b", "b1"],
    ["hexdump", "-d", "b1"],
    ["hexdump", "-o", "b1"],
    ["hexdump", "-x", "b1"],
    ["hexdump", "-C", "rep"],
    ["hexdump", "-n", "3", "-s", "2", "-C", "b1"],
    ["hexdump", "-v", "-C", "rep"],
    ["hexdump", "nope"],
    ["hexdump"],
    ["hexdump", "-C", "-c", "b1"],
    ["base64", "b1"],
    ["base64", "-w", "4", "b1"],
    ["base64", "-w0", "rep"],
    ["base64", "-d", "b64"],
    ["base64", "-d", "bad64"],
    ["base64", "-d", "-i", "bad64"],
    ["base64", "-d", "short64"],
    ["base64", "-d", "mid"],
    ["base64", "-w", "x"],
    ["base64", "a", "b"],
    ["base64"],
    ["base64", "nope"],
    ["base32", "b1"],
    ["base32", "-d", "b1"],
    ["basenc", "--base16", "b1"],
    ["basenc", "--base2msbf", "b1"],
    ["basenc", "--base2lsbf", "b1"],
    ["basenc", "--base64url", "b1"],
    ["basenc", "--base32hex", "b1"],
    ["basenc", "--z85", "rep"],
    ["basenc"],
    ["basenc", "--base16", "-d", "plain"],
    ["strings", "bin"],
    ["strings", "-t", "x", "-n", "3", "bin"],
    ["strings", "-n", "2", "-t", "d", "bin"],
    ["strings", "-w", "bin"],
    ["strings", "-e", "S", "bin"],
    ["strings", "-f", "bin", "b1"],
    ["strings", "nope"],
    ["strings", "-3", "bin"],
    ["strings", "-e", "l", "wide"],
    ["strings", "-e", "b", "-t", "x", "wide"],
    ["strings", "-el", "-w", "-n", "3", "wide"],
    ["strings", "-e", "L", "wide", "bin"],
    ["strings", "-eB", "-f", "wide"],
    ["strings", "-e", "b"],
    ["strings", "-e", "l", "-f"],
    ["strings", "bin", "-"],
    ["strings", "-f", "-", "b1"],
]


@pytest.mark.parametrize("argv", CASES, ids=[" ".join(c) for c in CASES])
def test_matches(argv: list[str]) -> None:
    compare(argv, b"stdin data\x00\x01 here\n", FILES)


@pytest.mark.parametrize("argv", [["strings", "-"], ["strings", "-", "-"], ["strings", "--", "-"]])
def test_strings_dash_alone_is_usage(argv: list[str]) -> None:
    # `-` is binutils' old spelling of -a, not stdin: with no file left it is the usage error
    # (stdout and status compared; the usage text is in our words)
    compare(argv, b"stdin data here\n", FILES, stderr=False)
    from sandbash.testing import run_command

    assert run_command(argv, stdin=b"stdin data here\n").stderr.startswith(b"Usage: strings ")


def test_roundtrip_large() -> None:
    from sandbash.testing import run_command

    data = bytes(range(256)) * 1000
    enc = run_command(["base64"], stdin=data).stdout
    assert run_command(["base64", "-d"], stdin=enc).stdout == data
    dump = run_command(["xxd"], stdin=data).stdout
    assert run_command(["xxd", "-r"], stdin=dump).stdout == data
