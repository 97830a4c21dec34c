"""`read` with one name (issue 23, pf-redir6): split_read_fields gives the line without its
leading and trailing IFS whitespace at once when IFS holds only whitespace and nothing was escaped,
and takes IFS's character classes from a bounded cache. The answer is the field scan's for every
text and IFS (the scan still runs when an escaped position is given, here one past the text,
which changes nothing else)."""

from __future__ import annotations

import random
import shutil
import subprocess

import pytest

import oracle
from sandbash import Bash
from sandbash.posix import readfields

ALPHABET = " \t\n:x,\\yé"
IFS_VALUES = [" \t\n", " ", "\t", "\n", " \t", "\t\n", ":", " :", ":,", "x", "é ", "\t\n:"]


@pytest.mark.parametrize("ifs", IFS_VALUES)
def test_one_name_is_the_scans_answer(ifs: str) -> None:
    rng = random.Random(ifs)
    for _ in range(400):
        text = "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(0, 12)))
        for count in (1, 2, 3):
            fast = readfields.split_read_fields(text, [], ifs, count)
            scan = readfields.split_read_fields(text, [len(text) + 1], ifs, count)
            assert fast == scan, (text, ifs, count)


def test_ifs_classes_are_cached_and_bounded() -> None:
    readfields._ifs_cached.cache_clear()
    for k in range(200):
        readfields.split_read_fields("a b", [], " " + chr(0x100 + k), 1)
    info = readfields._ifs_cached.cache_info()
    assert info.currsize <= 32 and info.misses == 200
    readfields.split_read_fields("a b", [], " \t\n", 1)
    readfields.split_read_fields("a b", [], " \t\n", 1)
    assert readfields._ifs_cached.cache_info().hits >= 1


def test_a_long_ifs_is_not_kept_and_splits_as_its_characters() -> None:
    """The cache is the process's: a value of IFS past _IFS_CACHED_MAX (a script may make one of
    max_string_length) is split uncached, and its classes hold each character once."""
    readfields._ifs_cached.cache_clear()
    long_ifs = ":, \t" * 50_000
    for text in ("a:b, c\t d", "  x::y  ", ""):
        for count in (1, 2, 5):
            assert readfields.split_read_fields(text, [], long_ifs, count) == readfields.split_read_fields(
                text, [], " \t:,", count
            )
    # only the short value was kept: the long one (200,000 characters) never entered the cache
    assert readfields._ifs_cached.cache_info().currsize == 1
    assert readfields._ifs_split(long_ifs)[:2] == (" \t", ":,")
    assert readfields._ifs_cached.cache_info().currsize == 1


def _sandbash(script: str, walker: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str, int]:
    if walker:
        monkeypatch.setenv("SANDBASH_TREE_WALKER", "1")
    else:
        monkeypatch.delenv("SANDBASH_TREE_WALKER", raising=False)
    r = Bash().exec(script)
    return r.stdout, r.stderr, r.exit_code


def test_while_read_compiled_walked_and_bash(monkeypatch: pytest.MonkeyPatch) -> None:
    """Random lines read with one name (and with two) under each IFS, from a here-string."""
    rng = random.Random(6)
    lines = [
        "".join(rng.choice(ALPHABET.replace("\n", "")) for _ in range(rng.randrange(0, 10)))
        for _ in range(60)
    ]
    text = "\n".join(lines)
    body = []
    for ifs in [*IFS_VALUES, ""]:
        body.append(f"IFS=$'{ifs.encode('unicode_escape').decode()}'")
        body.append('while read -r l; do printf \'[%s]\' "$l"; done <<< "$T"; echo')
        body.append('while read l; do printf \'<%s>\' "$l"; done <<< "$T"; echo')
        body.append('while read -r l m; do printf \'(%s|%s)\' "$l" "$m"; done <<< "$T"; echo')
    script = (
        "T=$'"
        + text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\t", "\\t")
        + "'\n"
        + "\n".join(body)
    )
    compiled = _sandbash(script, False, monkeypatch)
    assert compiled == _sandbash(script, True, monkeypatch)
    assert compiled[2] == 0 and compiled[1] == ""
    bash = shutil.which("bash")
    if (
        bash is not None
        and "version 5.2" in subprocess.run([bash, "--version"], capture_output=True, text=True).stdout
    ):
        real = oracle.run(["bash", "-c", script], executable=bash, capture_output=True, text=True)
        assert compiled[0] == real.stdout
