"""compile_regex(..., c_locale=True): the C/POSIX locale's classes, for a subject handed over one
character a byte (bash's `=~` under LC_ALL=C; expand.pattern.as_byte_chars). The oracle is the C
locale's ctype as Python's bytes methods define it (ASCII alone), for all 256 bytes, on both
engines (a back-reference sends a pattern to the fallback)."""

from __future__ import annotations

import string

import pytest

from sandbash.expand.pattern import as_byte_chars, from_byte_chars
from sandbash.regex import compile_regex

_PRINT = frozenset(range(0x20, 0x7F))
C_CTYPE = {
    "alpha": lambda b: bytes([b]).isalpha(),
    "digit": lambda b: bytes([b]).isdigit(),
    "alnum": lambda b: bytes([b]).isalnum(),
    "upper": lambda b: bytes([b]).isupper(),
    "lower": lambda b: bytes([b]).islower(),
    "space": lambda b: bytes([b]).isspace(),
    "xdigit": lambda b: chr(b) in string.hexdigits,
    "punct": lambda b: chr(b) in string.punctuation,
    "blank": lambda b: b in (0x20, 0x09),
    "cntrl": lambda b: b < 0x20 or b == 0x7F,
    "print": lambda b: b in _PRINT,
    "graph": lambda b: b in _PRINT and b != 0x20,
}


def _char(b: int) -> str:
    """Byte `b` as the C locale's subject carries it."""
    return as_byte_chars(bytes([b]).decode("utf-8", "surrogateescape"))


@pytest.mark.parametrize("name", sorted(C_CTYPE))
@pytest.mark.parametrize("fallback", [False, True])
def test_each_class_takes_the_c_locale_bytes(name: str, fallback: bool) -> None:
    inside = f"([[:{name}:]])\\1" if fallback else f"[[:{name}:]]"
    outside = f"([^[:{name}:]])\\1" if fallback else f"[^[:{name}:]]"
    rx_in = compile_regex(f"^{inside}$", "ere", c_locale=True)
    rx_out = compile_regex(f"^{outside}$", "ere", c_locale=True)
    assert rx_in.engine == ("regex" if fallback else "re2")
    for b in range(256):
        subject = _char(b) * (2 if fallback else 1)
        want = C_CTYPE[name](b)
        assert rx_in.test(subject) is want, (name, b)
        assert rx_out.test(subject) is (not want), (name, b)


@pytest.mark.parametrize("fallback", [False, True])
def test_word_classes_and_boundaries_are_ascii(fallback: bool) -> None:
    tail = "(x)?\\1?" if fallback else ""  # (a back-reference: the fallback engine)
    word = compile_regex(f"^\\w+{tail}$", "ere", c_locale=True)
    nonword = compile_regex(f"^\\W+{tail}$", "ere", c_locale=True)
    bound = compile_regex(f"a\\b{tail}", "ere", c_locale=True)
    start = compile_regex(f"\\<b{tail}", "ere", c_locale=True)
    for text, all_word, none_word in (
        ("ab_9", True, False),
        ("é", False, True),
        ("aé", False, False),
        ("μ-", False, True),
    ):
        mapped = as_byte_chars(text)
        assert word.test(mapped) is all_word, text
        assert nonword.test(mapped) is none_word, text
    assert bound.test(as_byte_chars("aé"))  # (é's bytes are no word characters in C)
    assert start.test(as_byte_chars("éb"))
    assert not compile_regex("a\\b", "ere").test("aé")  # (a UTF-8 locale: é is a letter)


def test_case_folding_is_ascii_alone() -> None:
    rx = compile_regex(as_byte_chars("éa"), "ere", icase=True, c_locale=True)
    assert rx.test(as_byte_chars("éA"))
    assert not rx.test(as_byte_chars("ÉA"))


@pytest.mark.parametrize("text", ["", "abc", "μé", "a\udcffb", "\uf780x\uf7ff", "日本語", "é\udcc3"])
def test_byte_chars_round_trip(text: str) -> None:
    mapped = as_byte_chars(text)
    assert len(mapped) == len(text.encode("utf-8", "surrogateescape"))
    assert all(c.isascii() or 0xF780 <= ord(c) <= 0xF7FF for c in mapped)
    assert from_byte_chars(mapped) == text
