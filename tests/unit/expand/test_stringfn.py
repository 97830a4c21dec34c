"""Words made into closures as one string (expand/stringfn.py): each closure gives what
Expander.string gives, value by value, with the same lookups, the same charges and the same
errors; shapes without a closure of their own keep Expander.string."""

from __future__ import annotations

from functools import partial

import pytest

from sandbash.expand.arith import ArithError
from sandbash.expand.env import ExpansionError
from sandbash.expand.stringfn import dq_param_step, string_fn, unquoted_param_step
from sandbash.expand.words import Expander
from sandbash.shvars.vars import Var
from sandbash.syntax import ast as A

from .fakeenv import FakeEnv, parse_words

# words that get a closure of their own
COMPILED = [
    "$s",
    "${s}",
    '"$s"',
    "${s//e/E}",
    '"${s//e/E}"',
    "${s%%.*}",
    '"${s%%.*}"',
    "${s#*.}",
    "${s/%gz/xz}",
    '"${s:4:6}"',
    "${s:2}",
    "${s^^}",
    "${#s}",
    '"${#s}"',
    "$1",
    '"${2}"',
    "${10}",
    '"$a$b"',
    "$a$b",
    "file$k.part.one",
    '"file${k}.part.one"',
    '"$1-$2"',
    "x$((k+1))y",
    '"x$((k + 1))$s"',
    "'q'$s\\x",
    "$((k % 3))",
    "$(( k + ${#s} ))",
    "$(( ${#s} ))",
    "$((k+1))",
    '"${s%.*}.${a,,}"',
    # parameters without a plan: the general path, bound
    "${s:-d}",
    '"$@"',
    '"$*"',
    '"x$@y"',
    "x$*y",
    "${a[0]}",
    '"${a[1]}-${a[-1]}"',
    "${#a[@]}",
    "${!s}",
    '${u:-"q $s"}',
    "${s:?gone}",
    '"$#|$0"',
    "${s: -2}",
    # double-quoted parts among others
    '"$s"x',
    "\"${u:-'a'}\"$b",
    '"$a"/"$b".txt',
    'x""y"${s:1}"',
    '"$@"/"$*"',
    '$s"${a[@]}"',
    '"${@:+x}"/"$s"',
    '${@:+x}"$s"${@:+y}',
    # command substitutions, alone or among other parts (each run once per use, in order)
    "$(echo hi)",
    '"$(echo hi)"',
    "`echo hi`",
    '"`echo hi`"',
    '"${s}$(echo hi)"',
    '"$s"$(echo hi)',
    "$(long)",
    "a$(empty)b$(echo hi)$s",
    '"$(empty)"$(echo hi)"${@:+x}"',
    "$(( $(echo 4) + k ))",
    # pairs and text around one part (joined without a list), text next to text made one piece
    "x$k",
    "$k.x",
    "${a}-",
    '"$s$k"',
    "$s$(echo hi)",
    '"$k"\'\'"$a"',
    "'q'\\z$s\\y'r'",
    '"<$@>"',
    "x$*y",
    # arithmetic templates (`$x` operands) and other arithmetic words, bound when compiled
    "$(( $k % 3 ))",
    "$(( ${k} * 2 + $s ))",
    "x$(( $k + 1 ))y",
    "$(( ${#s} + $k ))",
    "$(( $1 * 2 ))",
]
# words that keep Expander.string
GENERAL = [
    '""',
    "~/x$s",
]
VALUES: list[str | list[str] | dict[str, str] | None] = [
    None,
    "",
    "abc.tar.gz",
    "e e*E?",
    "héllo.wörld.gz",
    "7",
    ["arr.one", "two"],
    {"0": "zero.0", "k": "v"},
    "x" * 300,
    " a  b\tc\n",
    "*.gz",
    "a:b",
]


def _word(src: str) -> A.Word:
    return parse_words("x " + src)[1]


class _Env(FakeEnv):
    """Counts lookups (each must be made as often as Expander.string makes it)."""

    def __init__(self) -> None:
        super().__init__()
        self.looked = 0

    def lookup(self, name: str) -> Var | None:
        self.looked += 1
        return super().lookup(name)


def _env(
    value: str | list[str] | dict[str, str] | None, nounset: bool, ifs: str | None, args: list[str]
) -> _Env:
    env = _Env()
    env.opts["nounset"] = nounset
    env.args = args
    env.set("LC_ALL", "C.UTF-8")
    env.set("k", "12")
    env.files.extend(["one.gz", "two.gz"])  # (what an unquoted *.gz finds)
    env.outputs.update({"echo hi": "hi  *\n\n", "long": "y" * 300, "echo 4": "4"})
    if ifs is not None:
        env.set("IFS", ifs)
    for name in ("s", "a", "b"):
        if value is not None:
            env.set(name, value)
    return env


def _run(env: _Env, word: A.Word, compiled: bool) -> tuple[object, ...]:
    ex = Expander(env)
    charged: list[int] = []
    ex._charge_text = charged.append  # type: ignore[method-assign]
    ex._at_empty = True  # (left by an earlier "$@": which words reset it is compared too)
    fn = string_fn(ex, word) if compiled else partial(ex.string, word)
    got: list[object] = []
    for _ in range(2):  # the second use runs what the first chose
        try:
            got.append(fn())
        except ExpansionError as e:
            got.append(("error", e.message, e.fatal))
        except ArithError as e:  # (an arithmetic word's own error: `$(( $k + $s ))` of s='')
            got.append(("arith error", e.render()))
    return (*got, charged, env.looked, ex._at_empty, tuple(env.ran))


@pytest.mark.parametrize("src", COMPILED)
def test_compiled_shapes_get_their_own_closure(src: str) -> None:
    fn = string_fn(Expander(FakeEnv()), _word(src))
    assert not (isinstance(fn, partial) and fn.func.__name__ == "string"), src


@pytest.mark.parametrize("src", GENERAL)
def test_other_shapes_keep_the_expander(src: str) -> None:
    fn = string_fn(Expander(FakeEnv()), _word(src))
    assert isinstance(fn, partial) and fn.func.__name__ == "string", src


@pytest.mark.parametrize("ifs", [None, ":", ""])
@pytest.mark.parametrize("nounset", [False, True])
@pytest.mark.parametrize("src", COMPILED + GENERAL)
def test_closures_give_what_the_expander_gives(src: str, nounset: bool, ifs: str | None) -> None:
    word = _word(src)
    for value in VALUES:
        for args in ([], ["one", ""], [str(n) for n in range(12)]):
            want = _run(_env(value, nounset, ifs, args), word, False)
            got = _run(_env(value, nounset, ifs, args), word, True)
            assert got == want, (src, value, args)


def test_a_byte_locale_takes_the_general_path_for_text_beyond_ascii() -> None:
    for src in ("${#s}", '"${s:1:3}"', "${s%%.*}"):
        word = _word(src)
        for value in ("héllo.wörld", "abc.d"):
            env = FakeEnv(s=value, LC_ALL="C")
            ex = Expander(env)
            assert string_fn(ex, word)() == ex.string(word), (src, value)


ARGUMENTS = [
    '"$s"',
    '"${s//e/E}"',
    '"${s%%.*}"',
    '"${s:4:6}"',
    '"${#s}"',
    '"$1"',
    '"${10}"',
    '"$@"',
    '"$*"',
    '"${a[@]}"',
    '"${a[1]}"',
    '"${u}"',
    '"${u:-d}"',
    '"${@:+x}"',
    '"${!s}"',
    # unquoted (unquoted_param_step): split and globbed unless one plain field
    "$s",
    "${s}",
    "$1",
    "${10}",
    "$@",
    "$*",
    "${a[@]}",
    "${a[1]}",
    "$u",
]


def _fields(env: _Env, word: A.Word, compiled: bool) -> tuple[object, ...]:
    ex = Expander(env)
    charged: list[tuple[int, bool]] = []

    def charge(n: int, one_value: bool = True) -> None:
        charged.append((n, one_value))

    ex._charge_word = charge  # type: ignore[method-assign]
    ex._at_empty = True
    p0 = word.parts[0]
    step = None
    if compiled:
        step = dq_param_step(ex, p0.parts[0]) if type(p0) is A.DQ else unquoted_param_step(ex, p0)  # type: ignore[union-attr,arg-type]
    got: list[object] = []
    for _ in range(2):
        out = ["before"]
        try:
            if step is not None:
                step(out)
            else:
                out.extend(ex.word(word))
        except ExpansionError as e:
            out.append(f"error {e.message} {e.fatal}")
        got.append(out)
    return (*got, charged, env.looked, ex._at_empty, tuple(env.ran))


@pytest.mark.parametrize("ifs", [None, ":"])
@pytest.mark.parametrize("nounset", [False, True])
@pytest.mark.parametrize("src", ARGUMENTS)
def test_argument_steps_give_the_fields_the_expander_gives(src: str, nounset: bool, ifs: str | None) -> None:
    word = _word(src)
    for value in VALUES:
        for args in ([], ["one", ""], [str(n) for n in range(12)]):
            want = _fields(_env(value, nounset, ifs, args), word, False)
            got = _fields(_env(value, nounset, ifs, args), word, True)
            assert got == want, (src, value, args)
