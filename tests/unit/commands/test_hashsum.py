"""md5sum and friends, cksum, sum: compared with GNU coreutils 9.1."""

from __future__ import annotations

import pytest

from .test_textbasic import compare

H1 = "b1946ac92492d2347c6235b4d2611184"
S1 = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"
FILES: dict[str, bytes | str] = {
    "h1": "hello\n",
    "h2": "x",
    "big": bytes(range(256)) * 300,
    "sums": f"{S1}  h1\nbad  h2\ngarbage\n",
    "md5s": f"{H1}  h1\n{H1}  h2\n{H1}  nofile\n",
    "tagged": f"MD5 (h1) = {H1}\n",
    "okonly": f"{H1} *h1\n",
    "junk": "junk\n",
    "miss": f"{H1}  nofile\n",
    "b2": "BLAKE2b-256 (h1) = 93becc6e9882211c3ec3708c95bcd69baab7bb59c7f4bc84ce637b88a534b783\n",
    "d/x": "",
}

CASES = [
    ["md5sum", "h1", "-"],
    ["md5sum", "--tag", "h1"],
    ["md5sum", "-b", "h1"],
    ["md5sum", "-z", "h1"],
    ["sha1sum", "h1", "big"],
    ["sha224sum", "h1"],
    ["sha256sum", "h1"],
    ["sha384sum", "h1"],
    ["sha512sum", "big"],
    ["b2sum", "h1"],
    ["b2sum", "-l", "256", "h1"],
    ["b2sum", "--tag", "-l", "256", "h1"],
    ["b2sum", "-l", "7", "h1"],
    ["sha256sum", "-c", "sums"],
    ["md5sum", "-c", "md5s"],
    ["md5sum", "-c", "--quiet", "md5s"],
    ["md5sum", "-c", "--status", "md5s"],
    ["sha256sum", "-c", "-w", "sums"],
    ["sha256sum", "-c", "--strict", "sums"],
    ["md5sum", "-c", "junk"],
    ["md5sum", "-c", "tagged"],
    ["md5sum", "-c", "okonly"],
    ["md5sum", "-c", "-"],
    ["md5sum", "-c", "--ignore-missing", "miss"],
    ["md5sum", "--quiet", "h1"],
    ["md5sum", "nope", "d", "h1"],
    ["b2sum", "-c", "b2"],
    ["md5sum", "--tag", "-c", "tagged"],
    ["cksum", "h1", "h2", "big"],
    ["cksum"],
    ["cksum", "-a", "md5", "h1"],
    ["cksum", "-a", "md5", "--untagged", "h1"],
    ["cksum", "-a", "sha256", "h1", "big"],
    ["cksum", "-a", "blake2b", "-l", "128", "h1"],
    ["cksum", "-a", "bsd", "h1"],
    ["cksum", "-a", "sysv", "h1"],
    ["cksum", "-a", "crc", "h1"],
    ["cksum", "-a", "foo", "h1"],
    ["cksum", "-a", "md5", "-c", "tagged"],
    ["cksum", "nope"],
    ["sum", "h1"],
    ["sum", "h1", "h2"],
    ["sum", "-s", "h1", "big"],
    ["sum"],
    ["sum", "-", "big"],
    ["sum", "-r", "big"],
]


@pytest.mark.parametrize("argv", CASES, ids=[" ".join(c) for c in CASES])
def test_matches(argv: list[str]) -> None:
    compare(argv, f"{H1}  h1\n".encode(), FILES)


def test_escaped_names() -> None:
    compare(["md5sum", "a\\b", "n\nl"], b"", {"a\\b": "x", "n\nl": "y"})
