"""Line continuations: the one stripper (the word text bash keeps) and parsing without edits.

The stripper's table was measured with bash 5.2 (`declare -f` of a function holding each word).
Parsing reads a continuation inside a word head or an operator without editing the script: each
edit copied the whole script, so n of them cost n * len(script) (10k took 6-7 s, 100k hours)."""

from __future__ import annotations

import time

import pytest

from sandbash.syntax import ast as A
from sandbash.syntax.continuations import past_continuations, without_continuations
from sandbash.syntax.parser import parse

NL = "\\\n"

STRIPPED = [
    # (word as written, the text bash keeps)
    (f"ec{NL}ho", "echo"),
    (f'"a{NL}b"', '"ab"'),
    (f"'c{NL}d'", f"'c{NL}d'"),  # single quotes keep it
    (f"$'e{NL}f'", f"$'e{NL}f'"),  # so does $'...'
    (f"$'a\\'b{NL}c'", f"$'a\\'b{NL}c'"),  # (an escaped quote does not end it)
    (f"\"$'g{NL}h'\"", "\"$'gh'\""),  # in double quotes $' is no quote
    (f"\"'g{NL}h'\"", "\"'gh'\""),
    (f'$"i{NL}j"', '$"ij"'),
    (f"`echo 'k{NL}l'`", "`echo 'kl'`"),  # backquotes: their quotes are read later
    (f"$(echo 'm{NL}n' \"o{NL}p\")", f"$(echo 'm{NL}n' \"op\")"),
    (f"\"$(echo 'm{NL}n')\"", f"\"$(echo 'm{NL}n')\""),  # $( ) in "...": its quotes quote
    (f"\"${{x#'k{NL}l'}}\"", f"\"${{x#'k{NL}l'}}\""),  # so do those of ${ } in "..."
    (f'"${{x:-"\'c{NL}d\'"}}"', '"${x:-"\'cd\'"}"'),  # but not in "..." again inside
    (f"${{x:-$'q{NL}r'}}", f"${{x:-$'q{NL}r'}}"),
    (f"$(echo a # b{NL}c\n)", f"$(echo a # b{NL}c\n)"),  # a comment is not continued
    (f"$(echo '(' ) x{NL}y", "$(echo '(' ) xy"),  # (a quoted parenthesis does not count)
    (f"a\\\\{NL}b", "a\\\\b"),  # an escaped backslash, then a continuation
    (f"$((1 +{NL}2))", "$((1 +2))"),
    (f"'open{NL}", f"'open{NL}"),
    ("no continuation", "no continuation"),
]


@pytest.mark.parametrize(("written", "kept"), STRIPPED)
def test_word_text_as_bash_keeps_it(written: str, kept: str) -> None:
    assert without_continuations(written) == kept


def test_inside_double_quotes_or_a_heredoc_quotes_mean_nothing() -> None:
    assert without_continuations(f'it\'s {NL}"x{NL}"', in_dq=True) == 'it\'s "x"'


def test_past_continuations() -> None:
    text = f"a{NL}{NL}b"
    assert past_continuations(text, 1) == 5
    assert past_continuations(text, 0) == 0


@pytest.mark.parametrize(
    ("script", "name"),
    [
        (f"f{NL}o() {{ :; }}", "fo"),
        (f"function g{NL}h {{ :; }}", "gh"),
        (f"function g{NL}{NL}h() {{ :; }}", "gh"),
    ],
)
def test_continued_function_names(script: str, name: str) -> None:
    fn = parse(script).items[0].cmd
    assert isinstance(fn, A.FuncDef) and fn.name == name


@pytest.mark.parametrize(
    ("script", "name", "value", "append"),
    [
        (f"x{NL}=1", "x", "1", False),
        (f"x+{NL}=2", "x", "2", True),
        (f"a{NL}b{NL}=3", "ab", "3", False),
        (f"a{NL}b+{NL}{NL}=3", "ab", "3", True),
    ],
)
def test_continued_assignment_heads(script: str, name: str, value: str, append: bool) -> None:
    cmd = parse(script).items[0].cmd
    assert isinstance(cmd, A.SimpleCommand) and not cmd.words
    (assign,) = cmd.assigns
    assert (assign.name, assign.append) == (name, append)
    assert assign.value is not None and assign.value.text == value


def test_continued_redirection_numbers_and_names() -> None:
    cmd = parse(f"echo 2{NL}>f 1{NL}2>&1 {{f{NL}d}}{NL}>&2").items[0].cmd
    assert isinstance(cmd, A.SimpleCommand)
    assert [(r.fd, r.fd_var, r.op) for r in cmd.redirs] == [
        (2, None, ">"),
        (12, None, ">&"),
        (None, "fd", ">&"),
    ]


# each line: 7 continuations inside word heads, a [[ ]] operator, `((` and a redirection
_UNIT = f"i{NL}f [[ a ={NL}= a ]]; th{NL}en ({NL}(x=1)); x+{NL}=1 2{NL}>/dev/null; f{NL}i\n"


def test_100k_continuations_parse_in_linear_time() -> None:
    script = _UNIT * 15000  # 105k continuations, 840 KB
    start = time.process_time()
    tree = parse(script)
    spent = time.process_time() - start
    assert len(tree.items) == 15000
    # ~4 s on a quiet host; one edit per continuation took hours (15000 * 7 copies of 840 KB)
    assert spent < 60, spent
