"""The parser's tree: source spans, array subscripts parsed with the script, typed parameter
operators, and the column of a syntax error."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sandbash.syntax import ast as A
from sandbash.syntax.errors import ParseError
from sandbash.syntax.parser import parse


def nodes(node: object) -> Iterator[object]:
    """Every node under `node`, depth first."""
    if isinstance(node, tuple):
        for x in node:
            yield from nodes(x)
        return
    if node is None or isinstance(node, (str, int, bool)):
        return
    yield node
    for name in type(node).__slots__:  # type: ignore[attr-defined]
        yield from nodes(getattr(node, name))


def spans(script: str, kind: type) -> list[tuple[int, int]]:
    return [(n.line, n.col) for n in nodes(parse(script)) if type(n) is kind]  # type: ignore[attr-defined]


# ---------------------------------------------------------------- spans

SPANS: list[tuple[str, type, list[tuple[int, int]]]] = [
    ("echo a  bb", A.Word, [(1, 1), (1, 6), (1, 9)]),
    ("echo a\n  ls -l", A.SimpleCommand, [(1, 1), (2, 3)]),
    ("x=1 y=$((2)) cmd", A.SimpleCommand, [(1, 1)]),
    ("x=1 y=$x", A.Word, [(1, 3), (1, 7)]),  # assignment values
    ("arr=( a [2]=b )", A.Word, [(1, 7), (1, 13), (1, 10)]),  # items: value, then its key
    ("cat <in >>out 2>&1", A.Redir, [(1, 5), (1, 9), (1, 15)]),
    ("a | b |& c", A.Pipeline, [(1, 1)]),
    ("a && b || c", A.AndOr, [(1, 1)]),
    ("  if a; then b; fi", A.If, [(1, 3)]),
    ("while a; do b; done\nuntil c; do d; done", A.While, [(1, 1), (2, 1)]),
    ("for x in 1 2; do :; done", A.For, [(1, 1)]),
    ("select x; do :; done", A.Select, [(1, 1)]),
    ("for ((i=0; i<2; i++)); do :; done", A.ArithFor, [(1, 1)]),
    ("case $x in a) ;; esac", A.Case, [(1, 1)]),
    ("{ a; }; ( b )", A.Group, [(1, 1)]),
    ("{ a; }; ( b )", A.Subshell, [(1, 9)]),
    ("x; [[ -n a ]]", A.CondCmd, [(1, 4)]),
    ("x; (( i++ ))", A.ArithCmd, [(1, 4)]),
    ("f() { :; }\n  function g { :; }", A.FuncDef, [(1, 1), (2, 3)]),
    ("coproc cat", A.Coproc, [(1, 1)]),
    ("{ a; } >f", A.Redirected, [(1, 1)]),
    ("echo \\\n  next", A.Word, [(1, 1), (2, 3)]),  # after a line continuation
    # $(...) as its child reads it again when it runs: its text as bash prints it, from the
    # command's line (where the second word ends)
    ("echo $(\n  inner x)", A.Word, [(1, 1), (1, 6), (2, 1), (2, 7)]),
    ("echo $(inner x) y", A.Word, [(1, 1), (1, 6), (1, 8), (1, 14), (1, 17)]),  # one line: in place
    ("echo é ü", A.Word, [(1, 1), (1, 6), (1, 8)]),  # columns count characters
]


@pytest.mark.parametrize(("script", "kind", "want"), SPANS, ids=[f"{r[1].__name__}:{r[0]!r}" for r in SPANS])
def test_spans(script: str, kind: type, want: list[tuple[int, int]]) -> None:
    assert spans(script, kind) == want


def test_every_command_node_has_a_column() -> None:
    script = (
        "a=1 b | c && d; { e; } >f; ( g ); if h; then i; fi; while j; do k; done; for l; do m; done; "
        "case n in o) p;; esac; [[ q ]]; (( r )); s() { t; }; coproc u; for ((;;)); do v; done"
    )
    commands = [n for n in nodes(parse(script)) if isinstance(n, A.Command.__args__)]  # type: ignore[attr-defined]
    assert {type(n).__name__ for n in commands} >= {
        "SimpleCommand",
        "Pipeline",
        "AndOr",
        "CommandList",
        "Group",
        "Redirected",
        "Subshell",
        "If",
        "While",
        "For",
        "Case",
        "CondCmd",
        "ArithCmd",
        "FuncDef",
        "Coproc",
        "ArithFor",
    }
    assert all(n.line >= 1 and n.col >= 1 for n in commands)


@pytest.mark.parametrize(
    ("script", "line", "col"),
    [
        ("echo a )", 1, 8),
        ("echo a\n  fi", 2, 3),
        ("if a; then b; done", 1, 15),
        ("x=(a &\n b)", 1, 6),
    ],
)
def test_syntax_error_column(script: str, line: int, col: int) -> None:
    with pytest.raises(ParseError) as info:
        parse(script)
    assert (info.value.line, info.value.col) == (line, col)


# ---------------------------------------------------------------- subscripts


def param(script: str) -> A.Param:
    found = [n for n in nodes(parse(script)) if isinstance(n, A.Param)]
    return found[0]


def word_parts(word: A.Word | None) -> list[str]:
    return [] if word is None else [type(p).__name__ for p in word.parts]


@pytest.mark.parametrize(
    ("script", "arith", "key"),
    [
        # nothing to expand: the text is used as it is, either way
        ("echo ${a[1]}", None, None),
        ("echo ${a[i+1]}", None, None),
        ("echo ${a[key with blanks]}", None, None),
        # expansions: both readings parsed now
        ("echo ${a[$i]}", ["Param"], ["Param"]),
        ("echo ${a[$i+1]}", ["Param", "Lit"], ["Param", "Lit"]),
        ('echo ${a["$k"]}', ["DQ"], ["DQ"]),
        ("echo ${a[$(f)]}", ["CmdSub"], ["CmdSub"]),
        ("echo ${a[\\$x]}", ["Esc", "Lit"], ["Esc", "Lit"]),
        # single quotes matter to a key only (arithmetic would fail on them when it runs)
        ("echo ${a['k']}", None, ["SQ"]),
    ],
)
def test_param_subscript_readings(script: str, arith: list[str] | None, key: list[str] | None) -> None:
    sub = param(script).subscript
    assert sub is not None
    assert (None if sub.arith is None else word_parts(sub.arith)) == arith
    assert (None if sub.key is None else word_parts(sub.key)) == key


@pytest.mark.parametrize("script", ["echo ${a[@]}", "echo ${a[*]}", "echo ${#a[@]}", "echo $x", "echo ${x}"])
def test_whole_array_or_scalar_has_no_subscript(script: str) -> None:
    assert param(script).subscript is None


@pytest.mark.parametrize(
    ("script", "sub", "parts"),
    [
        ("a[1]=x", "1", None),
        ("a[$i]=x", "$i", ["Param"]),
        ("a[$i]+=x", "$i", ["Param"]),
        ('h["$k"]=(v)', '"$k"', ["DQ"]),
        ("declare a[$i]=x", "$i", ["Param"]),  # declaration arguments too
    ],
)
def test_assignment_subscript(script: str, sub: str, parts: list[str] | None) -> None:
    assign = next(n for n in nodes(parse(script)) if isinstance(n, A.Assign))
    assert assign.sub == sub
    assert assign.subscript is not None
    assert (None if assign.subscript.key is None else word_parts(assign.subscript.key)) == parts


def test_subscript_nodes_are_shared_values() -> None:
    """Literal subscripts share one node: parsing many of them costs no memory per use."""
    a, b = (n for n in nodes(parse("echo ${a[1]} ${b[2]}")) if isinstance(n, A.Param))
    assert a.subscript is b.subscript


# ---------------------------------------------------------------- typed operators

OPS: list[tuple[str, A.OpKind, A.Op]] = [
    ("${x:-w}", A.OpKind.TEST, A.Op.DEFAULT),
    ("${x-w}", A.OpKind.TEST, A.Op.DEFAULT_UNSET),
    ("${x:=w}", A.OpKind.TEST, A.Op.ASSIGN),
    ("${x=w}", A.OpKind.TEST, A.Op.ASSIGN_UNSET),
    ("${x:?w}", A.OpKind.TEST, A.Op.ERROR),
    ("${x?w}", A.OpKind.TEST, A.Op.ERROR_UNSET),
    ("${x:+w}", A.OpKind.TEST, A.Op.ALTERNATE),
    ("${x+w}", A.OpKind.TEST, A.Op.ALTERNATE_SET),
    ("${x#p}", A.OpKind.TRIM, A.Op.SHORT_PREFIX),
    ("${x##p}", A.OpKind.TRIM, A.Op.LONG_PREFIX),
    ("${x%p}", A.OpKind.TRIM, A.Op.SHORT_SUFFIX),
    ("${x%%p}", A.OpKind.TRIM, A.Op.LONG_SUFFIX),
    ("${x/p/r}", A.OpKind.REPL, A.Op.REPLACE),
    ("${x//p/r}", A.OpKind.REPL, A.Op.REPLACE_ALL),
    ("${x/#p/r}", A.OpKind.REPL, A.Op.REPLACE_PREFIX),
    ("${x/%p/r}", A.OpKind.REPL, A.Op.REPLACE_SUFFIX),
    ("${x:1:2}", A.OpKind.SLICE, A.Op.SLICE),
    ("${x^}", A.OpKind.CASE, A.Op.UPPER_FIRST),
    ("${x^^}", A.OpKind.CASE, A.Op.UPPER_ALL),
    ("${x,}", A.OpKind.CASE, A.Op.LOWER_FIRST),
    ("${x,,}", A.OpKind.CASE, A.Op.LOWER_ALL),
    ("${x~}", A.OpKind.CASE, A.Op.TOGGLE_FIRST),
    ("${x~~}", A.OpKind.CASE, A.Op.TOGGLE_ALL),
    *((f"${{x@{c}}}", A.OpKind.XFORM, A.Op(c)) for c in "QEPAaKkUuL"),
    ("${x@Z}", A.OpKind.BAD, A.Op.BAD),
    ("${x!}", A.OpKind.BAD, A.Op.BAD),
]


@pytest.mark.parametrize(("word", "kind", "op"), OPS, ids=[r[0] for r in OPS])
def test_operator_is_typed(word: str, kind: A.OpKind, op: A.Op) -> None:
    p = param("echo " + word)
    assert p.op is not None
    assert (p.op.kind, p.op.op) == (kind, op)
    assert A.OP_KIND[p.op.op] is p.op.kind


def test_every_operator_is_reachable_and_has_a_family() -> None:
    assert {op for _, _, op in OPS} == set(A.Op)
    assert set(A.OP_KIND) == set(A.Op)


def test_bad_substitution_keeps_its_source() -> None:
    p = param("echo ${x@Z}")
    assert p.prefix == "bad" and p.op is not None and p.op.text == "${x@Z}"


@pytest.mark.parametrize(
    ("word", "arg", "arg2"),
    [
        ("${x:-a b}", "a b", None),
        ("${x/p/r}", "p", "r"),
        ("${x/p}", "p", None),
        ("${x:1}", "1", None),
        ("${x: -1:n+1}", " -1", "n+1"),
        ("${x^^[ab]}", "[ab]", None),
    ],
)
def test_operator_arguments(word: str, arg: str, arg2: str | None) -> None:
    op = param("echo " + word).op
    assert op is not None
    assert (op.arg.text if op.arg else None, op.arg2.text if op.arg2 else None) == (arg, arg2)


# ---------------------------------------------------------------- backquotes' lines

# bash parses a backquoted or `$((` command's text when it runs, its first line the running
# command's line: where the command's second word ends (bash's lookahead), or the command's line
# once known; `$( )` and the words of other commands keep the lines where they are
BACKQUOTE_LINES: list[tuple[str, list[int]]] = [
    ('echo "`a\nb`"', [2, 2, 3]),
    ("echo a \\\n `a\nb` `c`", [1, 1, 1, 2]),
    ("x=`a\nb`; `c\nd`", [2, 2, 3, 3, 3, 4]),
    ("echo $((a\nb) )", [2, 2, 3]),
    ("echo `a\n\\`b\nc\\``", [3, 3, 5, 5, 6]),  # nested: from the inner command's line
    ("echo $(\n`a\nb`)", [3, 4, 4, 5]),  # the $( read again from its command's line (3)
    ("for i in `a\nb`; do :; done", [1, 2, 2]),
]


@pytest.mark.parametrize(("script", "lines"), BACKQUOTE_LINES)
def test_backquote_lines(script: str, lines: list[int]) -> None:
    assert sorted(n.line for n in nodes(parse(script)) if type(n) is A.SimpleCommand) == lines  # type: ignore[attr-defined]


# $( ) as its child reads it again when it runs: bash's printed text, from the running command's
# line (the lines of each SimpleCommand, sorted)
COMSUB_LINES: list[tuple[str, list[int]]] = [
    ("echo $(a\nb)", [2, 2, 3]),  # from where the second word ends
    ("echo $(a\n\n# c\nb)", [4, 4, 5]),  # comment and blank line gone
    ("echo $(if a; then b; fi)", [1, 1, 2]),  # `if` printed over three lines
    ("x=1 \\\n echo $(a\nb)", [1, 1, 2]),  # an assignment first: the command's line is 1
    ("cat <<E\n$(a\nb)\nE", [1, 1, 2]),  # a here-document's: as written, from its command
    ("cat <(a\nb)", [2, 2, 3]),
    ("[[ $(a\n) ]]", [2]),  # [[ ]] on the line of its `]]`
    ("echo $(a\n$(b\nc)\nd)", [4, 4, 6, 6, 7, 7]),  # each level from its own command's line
]


@pytest.mark.parametrize(("script", "lines"), COMSUB_LINES)
def test_comsub_lines(script: str, lines: list[int]) -> None:
    assert sorted(n.line for n in nodes(parse(script)) if type(n) is A.SimpleCommand) == lines  # type: ignore[attr-defined]


def test_nested_comsubs_read_again_a_bounded_number_of_times() -> None:
    """Each level of `$(` is read again as it runs; a word read twice to learn its command's
    line read its whole nest again, 2**depth times (16 levels took 25 s). CPU time, with room
    for a loaded host: the bounded parse takes ~0.15 s for 80 levels."""
    import time

    script = "echo " + "$(if true; then echo " * 80 + "x" + "; fi)" * 80
    start = time.process_time()
    tree = parse(script)
    assert time.process_time() - start < 10
    assert sum(1 for n in nodes(tree) if type(n) is A.If) == 80


def test_first_word_read_again_warns_once() -> None:
    from sandbash.syntax.parser import Parser

    p = Parser("x=`cat <<E\nhi\n`; echo")
    p.parse_all()
    assert [m for _, m in p.warnings] == [
        "warning: here-document at line 3 delimited by end-of-file (wanted `E')"
    ]


def test_many_warnings_cost_linear_time() -> None:
    """Each new warning was tested against every earlier one (a list scan): 40,000 here-documents
    delimited by end of file in one compound command took ~60 s of CPU. CPU time, with room for
    a loaded host and coverage: the linear parse takes a few seconds."""
    import time

    from sandbash.syntax.parser import Parser

    n = 40_000
    p = Parser("{\n" + "x=`cat <<E\n`\n" * n + "}\n")
    start = time.process_time()
    p.parse_all()
    assert len(p.warnings) == n == len(set(p.warnings))
    assert time.process_time() - start < 40


def test_warnings_given_once_after_the_list_is_cleared() -> None:
    from sandbash.syntax.parser import Parser

    p = Parser("")
    p.parse_warning("w")
    p.parse_warning("w")
    assert p.warnings == [(1, "w")]
    p.warnings.clear()  # (as the shell does after reporting them)
    p.parse_warning("w")
    assert p.warnings == [(1, "w")]
