"""parse(unparse_exact(tree)) == tree, for generated scripts (a grammar of the constructs) and
for every script in the spec tables; and bash's declare -f layout is stable when re-read."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from sandbash.syntax import ast as A
from sandbash.syntax.errors import ParseError
from sandbash.syntax.parser import parse
from sandbash.syntax.unparse import unparse, unparse_exact

from .shape import first_difference, shape

SPEC = Path(__file__).resolve().parents[2] / "spec"
sys.path.insert(0, str(SPEC))
import spec_loader  # type: ignore[import-not-found]  # noqa: E402

# ---------------------------------------------------------------- a grammar of scripts

WORDS = st.sampled_from(
    [
        "a",
        "x1",
        "-n",
        "--long=v",
        "'s q'",
        '"d q $x"',
        "$x",
        "${x}",
        "${x:-d e}",
        "${x-$y}",
        "${x:=1}",
        "${x:?msg}",
        "${x:+alt}",
        "${x#*/}",
        "${x##*/}",
        "${x%.*}",
        "${x%%.*}",
        "${x/a/b}",
        "${x//a}",
        "${x/#a/b}",
        "${x/%a/b}",
        "${x^}",
        "${x^^[ab]}",
        "${x,,}",
        "${x~}",
        "${x:1}",
        "${x: -1:2}",
        "${#x}",
        "${!x}",
        "${!pre@}",
        "${x@Q}",
        "${a[1]}",
        "${a[$i]}",
        "${a[i+1]:-z}",
        '${h["k"]}',
        "${h[$k]}",
        "${#a[@]}",
        '"${a[@]}"',
        "${!a[*]}",
        '"$@"',
        "$*",
        "$#",
        "$?",
        "$1",
        "${10}",
        "$(echo hi)",
        "`echo bt`",
        "$((1 + 2 * x))",
        "$[3]",
        "<(cat)",
        "a{b,c}d",
        "{1..3}",
        "*.txt",
        "?",
        "[ab]*",
        "~",
        "~/d",
        "$'\\t\\n'",
        "\\$x",
        "a\\ b",
        "x=y",
        '"$(echo "in")"',
    ]
)
NAMES = st.sampled_from(["x", "_y", "arr", "h"])
ASSIGNS = st.sampled_from(
    [
        "x=1",
        "x=",
        "x+=more",
        "arr=(1 '2 3' $x)",
        "arr+=(4)",
        "h=([k]=v [$k]=w)",
        "a[$i]=v",
        "a[i+1]+=w",
        'h["k 2"]=v',
        "y=$(echo s)",
        "z=~/p:~/q",
    ]
)
REDIRS = st.sampled_from(
    [
        ">f",
        ">> f",
        "< in",
        "2>&1",
        ">&2",
        "&> log",
        "&>>log",
        "3<> rw",
        "<<< 'here str'",
        "2>/dev/null",
        "{fd}>out",
        ">|f",
        "<&-",
        "0<&3",
    ]
)
CONDS = st.recursive(
    st.sampled_from(
        ["-n $x", '-z "$y"', "-f /p", "$a == b*", "$a != 'c'", "$x =~ ^a(b|c)$", "$n -lt 3", "a < b", "$x"]
    ),
    lambda inner: st.one_of(
        st.builds("{} && {}".format, inner, inner),
        st.builds("{} || {}".format, inner, inner),
        st.builds("( {} )".format, inner),
    ),
    max_leaves=4,
)


def _simple(assigns: list[str], words: list[str], redirs: list[str]) -> str:
    return " ".join(assigns + words + redirs) or "true"


SIMPLE = st.builds(
    _simple,
    st.lists(ASSIGNS, max_size=2),
    st.lists(WORDS, max_size=4).map(lambda ws: (["cmd"] + ws) if ws else ws),
    st.lists(REDIRS, max_size=2),
)


def _list(items: list[tuple[str, str]]) -> str:
    return " ".join(cmd + sep for cmd, sep in items)


SEPS = st.sampled_from([";", "&", "\n"])


def _commands(depth: int) -> st.SearchStrategy[str]:
    """Commands nested at most `depth` compound levels deep (an explicit bound: a recursive
    strategy without one makes huge scripts that Hypothesis then discards)."""
    if depth == 0:
        return SIMPLE
    inner = _commands(depth - 1)
    body = st.lists(st.tuples(inner, SEPS), min_size=1, max_size=3).map(_list)
    return st.one_of(
        SIMPLE,
        st.one_of(
            st.builds("{{ {} }}".format, body),
            st.builds("( {} )".format, body),
            st.builds("if {} then {} fi".format, body, body),
            st.builds("if {} then {} elif {} then {} else {} fi".format, body, body, body, body, body),
            st.builds("while {} do {} done".format, body, body),
            st.builds("until {} do {} done".format, body, body),
            st.builds(
                "for {} in {}; do {} done".format, NAMES, st.lists(WORDS, max_size=3).map(" ".join), body
            ),
            st.builds("for {}; do {} done".format, NAMES, body),
            st.builds("select {} in a b; do {} done".format, NAMES, body),
            st.builds(
                "for (({};{};{})); do {} done".format,
                st.sampled_from(["i=0", "", " i = 1 "]),
                st.sampled_from(["i<3", ""]),
                st.sampled_from(["i++", "i+=2", ""]),
                body,
            ),
            st.builds(
                "case {} in {}) {}\n;; {}) {}\n;& *) ;;& esac".format,
                WORDS,
                st.sampled_from(["a", "a|b", "(c", "*.txt", "'q'"]),
                body,
                st.sampled_from(["x", "$y", "[0-9]"]),
                body,
            ),
            st.builds("[[ {} ]]".format, CONDS),
            st.builds("(({}))".format, st.sampled_from(["x++", " y = x * 2 ", "a[i] += 1", "x > 1 ? 2 : 3"])),
            st.builds("f{}() {{ {} }}".format, st.sampled_from(["", "1", "_x"]), body),
            st.builds("function g {{ {} }}".format, body),
            st.builds("function h() ( {} )".format, body),
            st.builds("{} | {}".format, inner, inner),
            st.builds("{} |& {}".format, inner, inner),
            st.builds("{} && {} || {}".format, inner, inner, inner),
            st.builds("{{ {} }} {}".format, body, REDIRS),
            st.builds("coproc {}".format, st.sampled_from(["cat", "{ cat; }", "NAME { cat; }"])),
        ),
    )


# `time` and `!` are reserved words only where a pipeline starts
PIPELINES = st.one_of(
    _commands(3),
    st.builds("time -p {}".format, _commands(2)),
    st.builds("! {}".format, _commands(2)),
    st.builds("time ! {}".format, _commands(1)),
)
SCRIPTS = st.lists(st.tuples(PIPELINES, SEPS), min_size=1, max_size=4).map(_list)
HEREDOC_SCRIPTS = st.builds(
    lambda opener, rest: (
        f"cat <<{opener} | tr a b\nline $x\n\tsecond `echo c`\nEOF\n{rest}\n"
        "cat <<-'E2' >out\n\tno $expansion\n\tE2\n"
    ),
    st.sampled_from(["EOF", "'EOF'", '"EOF"', "\\EOF"]),
    SCRIPTS,
)


def assert_roundtrip(script: str) -> None:
    tree = parse(script)
    text = unparse_exact(tree)
    again = parse(text)
    diff = first_difference(shape(tree), shape(again))
    assert diff is None, f"{script!r}\nprinted as\n{text}\n{diff}"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SCRIPTS)
def test_generated_scripts_roundtrip(script: str) -> None:
    assert_roundtrip(script)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(HEREDOC_SCRIPTS)
def test_generated_heredoc_scripts_roundtrip(script: str) -> None:
    assert_roundtrip(script)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SCRIPTS)
def test_declare_f_layout_is_stable(script: str) -> None:
    """What `declare -f` prints reads back as a function that prints the same (bash's layout is
    lossy, elif becomes else-if and |& becomes 2>&1 |, but only once). Not for coproc: bash shows
    `coproc cat` as `coproc COPROC cat`, which reads back as a command named COPROC."""
    assume("coproc" not in script)
    tree = parse(f"f() {{\n{script}\n}}")
    fdef = tree.items[0].cmd
    assert isinstance(fdef, A.FuncDef)
    text = unparse(fdef)
    again = parse(text).items[0].cmd
    assert unparse(again) == text


def _spec_scripts() -> list[tuple[str, str]]:
    return [(case.name, case.script) for case in spec_loader.load_all()]


@pytest.mark.parametrize("name, script", _spec_scripts(), ids=lambda v: v if "\n" not in v else "")
def test_spec_scripts_roundtrip(name: str, script: str) -> None:
    try:
        parse(script)
    except ParseError:
        return  # a case about a syntax error: nothing to print back
    assert_roundtrip(script)


@pytest.mark.parametrize(
    "script",
    [
        "if a; then b; elif c; then d; elif e; then f; else g; fi",
        "a |& b | c",
        "f() ( sub )",
        "function k { x; }",
        "for ((  i = 0 ;i<3;  i++ )); do :; done",
        "(( x = 1 ,  y ))",
        "( f() { echo in; }; f )",
        "coproc cat",
        "coproc NAME { cat; }",
        "[[ ( a || b ) && ! ( c && d ) ]]",
        "[[ a && ( b && c ) ]]",
        "[[ a || ( b || c ) ]]",
        "cat <<EOF &\nbody\nEOF\necho next",
        "while cat <<E1; do :; done\nin cond\nE1\n",
        "case $x in (a) ;; b|c) echo; esac",
        "arr=([0]=a [5]+=b c)",
        "x=1 y=2",
        "for x in; do :; done",
        "time",
        "! true",
    ],
)
def test_shapes_bash_layout_loses(script: str) -> None:
    assert_roundtrip(script)
