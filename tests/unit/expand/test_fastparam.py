"""The parameter plans (expand/fastparam.py): which shapes get one, and that each gives what the
general path gives for every kind of value (compared value by value, plans on and off)."""

from __future__ import annotations

from functools import partial

import pytest

from sandbash.expand.arith import ArithError
from sandbash.expand.env import ExpansionError
from sandbash.expand.fastparam import plan_for
from sandbash.expand.words import Expander
from sandbash.shvars.vars import Var
from sandbash.syntax import ast as A

from .fakeenv import FakeEnv, parse_words

PLANNED = [
    "$s",
    "$1",
    "${2}",
    "${10}",
    "${s}",
    "${#s}",
    "${s%%.*}",
    "${s%.*}",
    "${s#*.}",
    "${s##*.}",
    "${s#[ab]}",
    "${s//a/b}",
    "${s/a/b}",
    "${s/#a/B}",
    "${s/%a/B}",
    "${s//a}",
    "${s/}",
    "${s//'*'/S}",
    '${s//"."/_}',
    "${s//\\?/Q}",
    "${s^^}",
    "${s,}",
    "${s~~}",
    "${s^^[a-c]}",
    "${s:0}",
    "${s:2}",
    "${s:2:3}",
    "${s:0:0}",
    "${s:10:1}",
    # offsets and lengths that are expressions (evaluated by the plan in the general way's order)
    "${s: -2}",
    "${s:k}",
    "${s:010}",
    "${s:k:2}",
    "${s:1:k}",
    "${s:k:-1}",
    "${s: -3:-1}",
    "${s:$((1+1)):2}",
    "${s:1:$((k*2))}",
    "${s:$k:2}",
    "${s:k/0:1}",
    "${s:1:(}",
    "${s:j:2}",
    "${s:2:-9}",
    "${s:9:1/0}",
    "${s:k++:1}",  # an effect: evaluated once a use, planned or not
]
GENERAL = [
    "${s:-x}",  # a test: the word may expand
    "${s//$p/x}",  # the pattern expands
    "${s/a/[&]}",  # patsub_replacement decides
    "${s/a/\\\\}",
    "${s//@(a)/x}",  # extglob decides
    "${a[0]%.*}",  # an element
    "${!s}",  # an indirection
    "${1%x}",  # positional with an operator
    "$0",
    "${#1}",
    "${s@Q}",  # a transformation
    "${#a[@]}",
    "${!s*}",
    "${a[}",  # a bad substitution (no name)
]
VALUES: list[str | list[str] | dict[str, str] | None] = [
    None,
    "",
    "a",
    "abc.def.ghi",
    "aaa",
    "x y*z?",
    "[ab].c",
    "héllo.wörld",
    "ÀÉ.ab",
    ["arr.one", "two"],
    {"0": "zero.0", "k": "v"},
]


def _param(src: str) -> A.Param:
    part = parse_words("x " + src)[1].parts[0]
    assert isinstance(part, A.Param), part
    return part


@pytest.mark.parametrize("src", PLANNED)
def test_common_shapes_get_a_plan(src: str) -> None:
    assert plan_for(Expander(FakeEnv()), _param(src)) is not None


@pytest.mark.parametrize("src", GENERAL)
def test_other_shapes_go_the_general_way(src: str) -> None:
    assert plan_for(Expander(FakeEnv()), _param(src)) is None


def _expand(env: FakeEnv, p: A.Param, planned: bool) -> object:
    ex = Expander(env)
    if not planned:
        ex._plans[id(p)] = (p, None)  # as if no plan fit
    try:
        first = ex.param(p)
        return (first, ex.param(p))  # twice: the plan chosen by the first must serve the second
    except ExpansionError as e:
        return ("error", e.message, e.fatal)
    except ArithError as e:  # (a slice's offset or length: the shell reports it, naming the parameter)
        return ("arith error", e.render())


def _env(
    locale: str, nounset: bool, args: list[str], value: str | list[str] | dict[str, str] | None
) -> FakeEnv:
    env = FakeEnv(LC_ALL=locale, k="1")
    env.opts["nounset"] = nounset
    env.args = args
    if value is not None:
        env.set("s", value)
    return env


@pytest.mark.parametrize("locale", ["C", "C.UTF-8"])
@pytest.mark.parametrize("nounset", [False, True])
@pytest.mark.parametrize("src", PLANNED)
def test_plans_give_what_the_general_path_gives(src: str, nounset: bool, locale: str) -> None:
    p = _param(src)
    for value in VALUES:
        for args in ([], ["one", ""], [str(n) for n in range(12)]):
            # (one env each way: an expression may change k)
            env = partial(_env, locale, nounset, args, value)
            assert _expand(env(), p, True) == _expand(env(), p, False), (src, value, args)


def test_replacement_follows_nocasematch_as_it_changes() -> None:
    p = _param("${s//e/x}")
    env = FakeEnv(s="eEe")
    ex = Expander(env)
    got = []
    for on in (False, True, False):
        env.opts["nocasematch"] = on
        got.append(ex.param(p))
    assert got == ["xEx", "xxx", "xEx"]


def test_the_plan_table_is_bounded() -> None:
    ex = Expander(FakeEnv(s="a.b"))
    words = parse_words(" ".join(f"${{s%{i}}}" for i in range(5000)))
    for w in words:
        p = w.parts[0]
        assert isinstance(p, A.Param)
        assert ex.param(p) == "a.b"
    assert 0 < len(ex._plans) <= 4096


class _CountingEnv(FakeEnv):
    """Counts lookups: a lookup may warn or evaluate a reference's subscript, so a plan that
    declines must hand its lookup to the general path instead of looking up again."""

    def __init__(self, **values: str | list[str] | dict[str, str]) -> None:
        super().__init__(**values)
        self.looked = 0

    def lookup(self, name: str) -> Var | None:
        self.looked += 1
        return super().lookup(name)


@pytest.mark.parametrize("src", PLANNED)
def test_plans_look_the_name_up_as_often_as_the_general_path(src: str) -> None:
    p = _param(src)
    for value in VALUES:
        counts = []
        for planned in (True, False):
            env = _CountingEnv(LC_ALL="C", k="1")
            if value is not None:
                env.set("s", value)
            _expand(env, p, planned)
            counts.append(env.looked)
        assert counts[0] == counts[1], (src, value, counts)
