"""yqemit: a long scalar is analysed and written exactly as PyYAML's Emitter does it.

The fast path is checked against PyYAML's own methods: the analysis field by field on random texts of
every character class analyze_scalar looks at, and the whole YAML yq writes (with the fast path taken
for every scalar, written in 3-character pieces so piece boundaries fall everywhere), and on 1 MB
texts of each style at the real threshold."""

from __future__ import annotations

import random

import pytest
import yaml

from sandbash.commands import yqemit, yqyaml

# indicators, whitespace, breaks, controls, the unicode edges of PyYAML's printable test
_ALPHABET = list("ab -:#,?[]{}&*!|>'\"%@`.\\\n\t\r\0\x01\x1b\x7f\x85\xa0é\u2028\u2029\ufeff\ufffe\ufffd")
_ALPHABET += ["\ud800", "\U0001f600", "\U0010ffff"]
_PREFIXES = ["", "---", "...", "- ", "? ", ": ", "-", "#"]


def _texts(seed: int, count: int) -> list[str]:
    rnd = random.Random(seed)
    return [
        rnd.choice(_PREFIXES)
        + "".join(rnd.choice(_ALPHABET) for _ in range(rnd.choice([1, 2, 3, 5, 8, 20, 60])))
        for _ in range(count)
    ]


@pytest.mark.parametrize("allow_unicode", [True, False])
def test_the_analysis_is_pyyaml_s(allow_unicode: bool) -> None:
    emitter = yaml.emitter.Emitter(None, allow_unicode=allow_unicode)
    differ = []
    for text in _texts(1, 4000) + list(_ALPHABET):
        want = yaml.emitter.Emitter.analyze_scalar(emitter, text).__dict__
        got = yqemit.analyze(text, allow_unicode).__dict__
        if want != got:
            differ.append((text, {k: (want[k], got[k]) for k in want if want[k] != got[k]}))
    assert not differ, differ[:5]


def _both(value: object, monkeypatch: pytest.MonkeyPatch, long: int = 1) -> tuple[str, str]:
    """(PyYAML's YAML for value, the fast path's)."""
    monkeypatch.setattr(yqemit, "_LONG", 1 << 62)
    old = yqyaml.to_yaml(value)
    monkeypatch.setattr(yqemit, "_LONG", long)
    return old, yqyaml.to_yaml(value)


def test_every_scalar_written_fast_is_written_as_pyyaml_writes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yqemit, "_PIECE", 3)
    differ = []
    for text in _texts(2, 1000):
        if "\ud800" in text:
            continue  # (yq's resolver, re2, takes no lone surrogate: not this path's question)
        for value in (text, {"k": text}, [text, {"a": [text, 1]}], {text: [text]}):
            old, new = _both(value, monkeypatch)
            if old != new:
                differ.append((value, old, new))
    assert not differ, differ[:3]


_MB = 1 << 20
LONG = {
    "plain": "a" * _MB,
    "plain-words": ("ab cd " * _MB)[: _MB - 1],
    "double-quoted-trailing-space": "ab cd " * (_MB // 6),
    "double-quoted-controls": 'ab\x01 cd\t\x85\u2028\U0001f600 \\"' * (_MB // 16),
    "literal-lines": "ab cd\n" * (_MB // 6),
    "literal-one-long-line": "a" * _MB + "\nb\n\n",
    "literal-leading-break": "\n\n  x" * (_MB // 5),
    "indicator-start": "- " + "a" * _MB,
    "colon-inside": "a: b" * (_MB // 4),
}


@pytest.mark.parametrize("name", sorted(LONG))
def test_a_1mb_scalar_is_written_as_before(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = LONG[name]
    old, new = _both([{"k": text}], monkeypatch, long=yqemit._LONG)
    assert old == new


def test_a_long_scalar_goes_out_in_pieces() -> None:
    # the pieces are what the dumper's sink charges and checks the deadline between
    sink = yqyaml._Sink()
    dumper = yqyaml._Dumper(sink)
    dumper.open()
    dumper.represent({"k": "a" * (3 * yqemit._PIECE)})
    dumper.close()
    assert max(len(piece) for piece in sink.out) == yqemit._PIECE
