"""Every command node of the syntax tree has its three cases: the evaluator runs it, the static
check walks into it, and unparse prints it back. A node class added to syntax/ast.py without a
row in SAMPLES fails here until all three exist."""

from __future__ import annotations

import typing

import pytest

from sandbash import Bash
from sandbash.check import check
from sandbash.interp import evaluator
from sandbash.policy import Policy
from sandbash.syntax import ast as A
from sandbash.syntax.parser import parse
from sandbash.syntax.unparse import unparse

# node class -> a script holding one such node with CMD inside it (CMD: what the node runs)
SAMPLES: dict[type, str] = {
    A.SimpleCommand: "CMD",
    A.Pipeline: "echo x | CMD",
    A.AndOr: "true && CMD",
    A.CommandList: "CMD; true",
    A.Subshell: "(CMD)",
    A.Group: "{ CMD; }",
    A.If: "if true; then CMD; fi",
    A.While: "while true; do CMD; break; done",
    A.For: "for i in a; do CMD; done",
    A.ArithFor: "for ((i=0; i<1; i++)); do CMD; done",
    A.Select: "select i in a; do CMD; break; done <<< 1",
    A.Case: "case a in a) CMD;; esac",
    A.ArithCmd: "(( $(CMD) + 1 ))",
    A.CondCmd: '[[ -n "$(CMD)" ]]',
    # (`f() {...}` and `coproc CMD` do not print back as they were read: see the report)
    A.FuncDef: "function f { CMD; }; f",
    A.Coproc: "coproc { CMD; }; wait",
    A.Redirected: "{ CMD; } </dev/null",
}
COMMAND_NODES = typing.get_args(A.Command)
SPANS = frozenset({"line", "col", "end_line"})  # where a node was read, not what it is


def _meaning(node: object) -> object:
    """`node` without source positions (and a function's source text, which unparse re-prints)."""
    if isinstance(node, tuple):
        return tuple(_meaning(x) for x in node)
    if type(node).__module__ == A.__name__ and not isinstance(node, str):
        names = [s for k in type(node).__mro__ for s in getattr(k, "__slots__", ())]
        return (
            type(node).__name__,
            *(
                (n, _meaning(getattr(node, n)))
                for n in names
                if n not in SPANS
                and not (n == "text" and isinstance(node, A.FuncDef))
                # (bash's layout ends a list's commands with `;`: a newline is not kept)
                and not (n == "newline" and isinstance(node, A.ListItem))
            ),
        )
    return node


def _nodes(node: object) -> typing.Iterator[object]:
    yield node
    if isinstance(node, tuple):
        for x in node:
            yield from _nodes(x)
    elif type(node).__module__ == A.__name__:
        for name in getattr(type(node), "__slots__", ()):
            yield from _nodes(getattr(node, name))


def test_every_command_node_has_a_sample() -> None:
    assert set(SAMPLES) == set(COMMAND_NODES), "add a SAMPLES row for each command node of syntax/ast.py"


@pytest.mark.parametrize("cls", COMMAND_NODES, ids=lambda c: c.__name__)
def test_sample_holds_its_node(cls: type) -> None:
    tree = parse(SAMPLES[cls].replace("CMD", "echo hit"))
    assert any(type(n) is cls for n in _nodes(tree))


@pytest.mark.parametrize("cls", COMMAND_NODES, ids=lambda c: c.__name__)
def test_evaluator_has_a_case(cls: type) -> None:
    # simple commands go straight to the executor; every other node through the dispatch table
    assert cls is A.SimpleCommand or cls in evaluator._DISPATCH
    # (on stderr: inside $(...) stdout would be the substitution's value)
    result = Bash().exec(SAMPLES[cls].replace("CMD", "echo hit >&2"))
    assert "hit\n" in result.stderr, (result.stdout, result.stderr)


@pytest.mark.parametrize("cls", COMMAND_NODES, ids=lambda c: c.__name__)
def test_static_check_walks_into_it(cls: type) -> None:
    report = check(SAMPLES[cls].replace("CMD", "rm /x"), Policy(deny=["rm"]))
    assert not report.allowed
    assert any("rm" in str(issue.to_dict()) for issue in report.issues)


@pytest.mark.parametrize("cls", COMMAND_NODES, ids=lambda c: c.__name__)
def test_unparse_prints_it_back(cls: type) -> None:
    tree = parse(SAMPLES[cls].replace("CMD", "echo hit"))
    assert _meaning(parse(unparse(tree))) == _meaning(tree)
