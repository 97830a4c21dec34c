"""Word boundaries (\\< \\> \\b \\B) with non-ASCII letters: RE2's are ASCII-only, so a subject that is
not ASCII is searched with the fallback engine's form of the pattern (engine._Core.uni). Expected
values are GNU sed/grep's in a UTF-8 locale."""

from __future__ import annotations

import pytest

from sandbash.regex import compile_regex
from sandbash.regex.engine import MAX_FALLBACK_SOURCE

SUBJECT = "ßab éab €ab Ωx_y ñ1 a·b"


@pytest.mark.parametrize(
    ("pattern", "flavor", "byte_starts"),  # (GNU grep -ob's offsets)
    [
        ("\\<a", "bre", [13, 26]),
        ("\\ba", "ere", [13, 26]),
        ("b\\>", "bre", [3, 8, 14, 29]),
        ("\\Ba", "bre", [2, 7]),
        ("\\<\\w", "bre", [0, 5, 13, 16, 22, 26, 29]),
    ],
)
def test_str_and_bytes_subjects_agree_with_gnu(pattern: str, flavor: str, byte_starts: list[int]) -> None:
    rx = compile_regex(pattern, flavor)
    assert rx.engine == "re2"  # (ASCII subjects keep RE2)
    data = SUBJECT.encode()
    assert [m.start() for m in rx.finditer(data)] == byte_starts
    assert [s for s, _ in rx.spans(data)] == byte_starts
    char_starts = [len(data[:b].decode()) for b in byte_starts]
    assert [m.start() for m in rx.finditer(SUBJECT)] == char_starts


def test_search_start_over_a_long_buffer_is_linear_and_right() -> None:
    line = "line ßab éab ab\n".encode()
    buf = line * 20000  # a grep buffer: searches at rising positions over one object
    rx = compile_regex("\\<ab", "bre", line_mode=True)
    pos, hits = 0, 0
    while True:
        s = rx.search_start(buf, pos, len(buf))
        if s < 0:
            break
        assert buf[s : s + 2] == b"ab" and buf[s - 1 : s] == b" "
        hits += 1
        pos = buf.index(b"\n", s) + 1
    assert hits == 20000


def test_ascii_subject_same_answers_as_before() -> None:
    rx = compile_regex("\\bfoo\\b", "ere")
    assert [m.span() for m in rx.finditer("foo xfoo foo_ foo")] == [(0, 3), (14, 17)]
    assert [m.span() for m in rx.finditer(b"foo xfoo foo_ foo")] == [(0, 3), (14, 17)]


def test_a_form_too_big_for_the_fallback_keeps_re2() -> None:
    words = [f"w{i}" for i in range(MAX_FALLBACK_SOURCE // 30)]  # (about 45 characters each in that form)
    rx = compile_regex("\\|".join("\\<" + w for w in words), "bre")
    assert rx.engine == "re2"
    assert rx._core.bounded is None
    assert rx.search("é w3") is not None  # (no error at search time)
