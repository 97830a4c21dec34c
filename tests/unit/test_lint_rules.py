"""Project rules a linter does not know, checked over the AST of every module in src/sandbash.

1. Limits are named by `LimitKind`: `LimitExceeded("max_x", ...)` with a string is refused (a typo or a
   made-up name produced a message telling the user to raise a limit that does not exist).
2. Python's stdlib `re` only with literal patterns. `re` backtracks and has no deadline, so a pattern
   whose shape comes from input can hang a run or end it in an internal error (`uniq -f 99999999999`:
   a repetition count of the user's number, "OverflowError: the repetition number is too large").
   User regular expressions go through sandbash.regex (re2, or `regex` with a timeout). A pattern may be
   built only of: str/bytes literals, `re.escape(...)` of anything (escaped text matches itself),
   module constants (UPPER_CASE names, `CONST.pattern`), and `+`, f-strings and `a if c else b` over
   those. Anything else needs a row in RE_EXCEPTIONS saying why its shape cannot grow with input.
3. A unit charged to the run's Budget inline (limits.Budget's docstring: a line read, a compiled
   command) is written as one idiom, in full, so that a hot path saves Budget.checkpoint()'s call
   without a second rule of its own: `B.work += 1` followed at once by `if B.work >= B.work_stop:
   B.work_slow()` (the same B, nothing else in the `if`), and `B.commands += 1` by the same test of
   `command_stop` and `command_slow()`. Outside limits.py, the stops and the slow halves appear
   nowhere else. Generated code is held to it too: a string constant naming a stop or a slow half
   (interp/steps.py's text, `{hole}`s read as names) must parse and follow the idiom.
4. A slotted lean class (`@dataclass(slots=True)` where the module's run-time `dataclass` is
   leanclass's or syntax/nodeclass.py's) is declared `class X(metaclass=Declared)`: over a class, the
   decorator makes a second class from the first (~55 k instructions each: awk's and jq's syntax
   trees, 35 and 31 classes, paid ~2 M each of a first use that way).
5. The builtin `compile()` is not called: its first call in a process builds the `ast` module's node
   types (PyAST_Check, ~9 M instructions, a fifth of a first awk), which exec of a text does not.
   Generated code is made by exec (textcache.function_of for a function, module_code for a text of
   functions).
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from realtools import have, real_command
from sandbash.testing import run_command

SRC = Path(__file__).resolve().parents[2] / "src" / "sandbash"
RE_FUNCTIONS = {"compile", "search", "match", "fullmatch", "sub", "subn", "split", "findall", "finditer"}

# (module path under src/sandbash, enclosing function) -> why the pattern's shape is bounded
RE_EXCEPTIONS: dict[tuple[str, str], str] = {
    ("commands/hashsum.py", "check"): "cksum -c's BSD-style line: the alternation is of the fixed tags of "
    "DIGESTS (all of them, or the one algorithm's), escaped; nothing of the input shapes the pattern",
    (
        "expand/fields.py",
        "_ifs_delimiter",
    ): "IFS splitting: at most two character classes of escaped IFS characters, each starred once and "
    "joined by one alternation; the shape is fixed, only the class contents vary (linear matching)",
    ("commands/sort/keys.py", "_fields_rx"): "sort -k field skipping: a fixed group of two complementary "
    "classes (blanks, then non-blanks) repeated n times, n at most _FIELDS_RX_MAX (4096); every part may "
    "be empty, so the match never fails and never backtracks",
    ("commands/sort/keys.py", "blank_key_rx"): "sort -k key extraction: the same fixed field group with "
    "counts at most _FIELDS_RX_MAX, then one group of a field run or of the rest of the line; no part "
    "can fail, so matching is one linear pass",
    ("commands/sort/keys.py", "numeric_extractor"): "sort -n key read in one match: the fixed field group "
    "(blanks; or a class of all but the escaped -t byte, then that byte) repeated n times, n at most "
    "_FIELDS_RX_MAX, then the constant _NUM; the classes are complementary, so a failed match (too few "
    "fields) gives back each byte once",
}


def _modules() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(SRC.rglob("*.py")):
        yield path.relative_to(SRC).as_posix(), ast.parse(path.read_text(encoding="utf-8"), str(path))


MODULES = list(_modules())


def _functions(tree: ast.Module) -> dict[int, str]:
    """id(node) -> the name of the innermost function around it."""
    owner: dict[int, str] = {}

    def visit(node: ast.AST, name: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else name
            owner[id(child)] = inner
            visit(child, inner)

    visit(tree, "<module>")
    return owner


def _re_names(tree: ast.Module) -> tuple[set[str], dict[str, str]]:
    """The names `re` is imported as, and `from re import x as y` names (y -> x)."""
    modules: set[str] = set()
    functions: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update(alias.asname or "re" for alias in node.names if alias.name == "re")
        elif isinstance(node, ast.ImportFrom) and node.module == "re" and node.level == 0:
            functions.update((alias.asname or alias.name, alias.name) for alias in node.names)
    return modules, functions


def _is_constant_name(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id.lstrip("_").isupper()
    return isinstance(node, ast.Attribute) and node.attr == "pattern" and _is_constant_name(node.value)


def is_literal_pattern(node: ast.expr, re_modules: set[str]) -> bool:
    """Whether a pattern expression is built only of the parts the module docstring allows."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (str, bytes))
    if _is_constant_name(node):
        return True
    if isinstance(node, ast.Call):
        func = node.func
        return (
            isinstance(func, ast.Attribute)
            and func.attr == "escape"
            and isinstance(func.value, ast.Name)
            and func.value.id in re_modules
        )
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return is_literal_pattern(node.left, re_modules) and is_literal_pattern(node.right, re_modules)
    if isinstance(node, ast.IfExp):
        return is_literal_pattern(node.body, re_modules) and is_literal_pattern(node.orelse, re_modules)
    if isinstance(node, ast.JoinedStr):
        return all(
            isinstance(part, ast.Constant)
            or (
                isinstance(part, ast.FormattedValue)
                and part.format_spec is None
                and is_literal_pattern(part.value, re_modules)
            )
            for part in node.values
        )
    return False


def re_violations() -> list[tuple[str, str, int, str]]:
    """(module, function, line, pattern source) of every stdlib re call with a non-literal pattern."""
    found = []
    for module, tree in MODULES:
        re_modules, re_functions = _re_names(tree)
        if not re_modules and not re_functions:
            continue
        owner = _functions(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            func = node.func
            if (
                isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Name)
                and func.value.id in re_modules
            ):
                name = func.attr
            elif isinstance(func, ast.Name):
                name = re_functions.get(func.id, "")
            else:
                continue
            if name in RE_FUNCTIONS and not is_literal_pattern(node.args[0], re_modules):
                found.append(
                    (module, owner.get(id(node), "<module>"), node.lineno, ast.unparse(node.args[0]))
                )
    return found


def test_stdlib_re_patterns_are_literal() -> None:
    bad = [
        f"{m}:{line} in {fn}(): re pattern {src[:90]}"
        for m, fn, line, src in re_violations()
        if (m, fn) not in RE_EXCEPTIONS
    ]
    assert not bad, "stdlib re with a pattern that is not literal (see this file's docstring):\n" + "\n".join(
        bad
    )


def test_re_exceptions_are_still_needed() -> None:
    used = {(m, fn) for m, fn, _, _ in re_violations()}
    assert not set(RE_EXCEPTIONS) - used, f"stale RE_EXCEPTIONS rows: {sorted(set(RE_EXCEPTIONS) - used)}"


def test_limits_are_raised_by_kind() -> None:
    bad = []
    for module, tree in MODULES:
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "LimitExceeded"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                bad.append(f"{module}:{node.lineno}: LimitExceeded({node.args[0].value!r}, ...)")
    assert not bad, "name limits with LimitKind.X (limits.py), not strings:\n" + "\n".join(bad)


@pytest.mark.parametrize(
    "source, literal",
    [
        ('re.compile(r"a+b")', True),
        ('re.compile(b"[" + re.escape(chars) + b"]+")', True),
        ('re.compile(f"[{re.escape(ws)}]*")', True),
        ("re.compile(X if tabs else Y)", True),
        ('re.sub(r"%%|" + _FORMAT.pattern, f, s)', True),
        ('re.compile(rb"(?:[ \\t]*[^ \\t]*){%d}" % n)', False),  # the uniq -f bug: sized by a number
        ('re.compile(f"a{{{n}}}")', False),
        ('re.compile("|".join(parts))', False),
        ("re.compile(pattern)", False),
        ('re.compile(f"{re.escape(x):>5}")', False),
    ],
)
def test_the_rule_reads_patterns_as_documented(source: str, literal: bool) -> None:
    call = ast.parse(source, mode="eval").body
    assert isinstance(call, ast.Call)
    assert is_literal_pattern(call.args[0], {"re"}) is literal


# The bugs the rule was written for: a count from the command line sized a stdlib pattern.
HUGE = ["99999999999", "18446744073709551617", "70000"]
CASES = (
    [(["uniq", "-f", n], b"a b\na b\nc d\n") for n in HUGE]
    + [(["uniq", "-c", "-f", n, "-s", "1"], b"x 1\ny 2\ny 2\n") for n in HUGE]
    + [(["strings", "-n", n], b"hello world\x00\x01abc\n") for n in HUGE]
    + [
        (["uniq", "-f", "1"], b"a b\nc b\nd  b\ne\tb\nf c\n"),
        (["uniq", "-f", "2", "-c"], b"1 2 3\n4 5 3\n 7 8  3\n9 9 9 9\n"),
        (["strings", "-n", "3"], b"ab\x00abc\x01abcd\n\x02xy"),
        (["strings"], b"abc\x00abcd\x01\tabcdef\x7fhello world"),
        (["strings", "-n", "1", "-w"], b"a\x00b\nc\x01"),
    ]
)


@pytest.mark.parametrize("argv, stdin", CASES, ids=[" ".join(a) for a, _ in CASES])
def test_user_counts_do_not_size_patterns(argv: list[str], stdin: bytes) -> None:
    got = run_command(argv, stdin=stdin)
    assert b"internal error" not in got.stderr
    if have(argv[0]):
        out, _, status = real_command(argv, stdin)
        assert (got.stdout, got.status) == (out, status)


# rule 3: the counter charged inline -> (its stop, its slow half)
INLINE_CHARGES = {"work": ("work_stop", "work_slow"), "commands": ("command_stop", "command_slow")}


def _inline_charge(first: ast.stmt, second: ast.stmt | None) -> str | None:
    """The counter `first` charges by one when `first` and `second` are the whole idiom of rule 3
    (`B.work += 1` then `if B.work >= B.work_stop: B.work_slow()`); None otherwise."""
    if not (
        isinstance(first, ast.AugAssign)
        and isinstance(first.op, ast.Add)
        and isinstance(first.target, ast.Attribute)
        and first.target.attr in INLINE_CHARGES
        and isinstance(first.value, ast.Constant)
        and first.value.value == 1
    ):
        return None
    counter = first.target.attr
    owner = ast.unparse(first.target.value)
    stop, slow = INLINE_CHARGES[counter]
    want = f"if {owner}.{counter} >= {owner}.{stop}:\n    {owner}.{slow}()"
    return counter if second is not None and ast.unparse(second) == want else None


def inline_charge_violations(tree: ast.Module) -> list[tuple[int, str]]:
    """(line, what) of each inline charge of rule 3 that is not the whole idiom, and of each use
    of a stop or a slow half outside one."""
    bad: list[tuple[int, str]] = []
    in_idiom: set[int] = set()  # ids of the nodes inside a whole idiom
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field, None)
            if not isinstance(stmts, list):
                continue
            for k, stmt in enumerate(stmts):
                nxt = stmts[k + 1] if k + 1 < len(stmts) else None
                if _inline_charge(stmt, nxt) is not None:
                    assert nxt is not None
                    in_idiom.update(id(n) for n in ast.walk(nxt))
                elif (
                    isinstance(stmt, ast.AugAssign)
                    and isinstance(stmt.target, ast.Attribute)
                    and stmt.target.attr in INLINE_CHARGES
                    and isinstance(stmt.value, ast.Constant)
                    and stmt.value.value == 1
                ):
                    bad.append((stmt.lineno, f"{ast.unparse(stmt)} without its check at once"))
    names = {name for pair in INLINE_CHARGES.values() for name in pair}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in names and id(node) not in in_idiom:
            bad.append((node.lineno, f"{ast.unparse(node)} outside the idiom"))
    return bad


_HOLE = re.compile(r"\{[^{}]*\}")
_CHARGE = re.compile(r"\.(?:work|commands) *\+= *1\b|\b(?:work|command)_(?:stop|slow)\b")


def generated_charge_violations(tree: ast.Module) -> list[tuple[int, str]]:
    """inline_charge_violations of the code a module writes as text: each string constant that
    charges a counter by one or names a stop or a slow half, its format holes read as names (a text
    that does not parse is refused: the rule could not read it)."""
    bad: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        if not _CHARGE.search(node.value):
            continue
        try:
            text = ast.parse(textwrap.dedent(_HOLE.sub("_", node.value)))
        except SyntaxError:
            bad.append((node.lineno, "text naming a budget stop that is not Python the rule can read"))
            continue
        bad.extend(
            (node.lineno, f"(its text's line {line}) {what}") for line, what in inline_charge_violations(text)
        )
    return bad


def test_inline_budget_charges_are_the_one_idiom() -> None:
    bad = [
        f"{module}:{line}: {what}"
        for module, tree in MODULES
        if module != "limits.py"
        for check in (inline_charge_violations, generated_charge_violations)
        for line, what in check(tree)
    ]
    assert not bad, "charge the budget inline only as rule 3 of this file's docstring:\n" + "\n".join(bad)


@pytest.mark.parametrize(
    "source, ok",
    [
        ("budget.work += 1\nif budget.work >= budget.work_stop:\n    budget.work_slow()", True),
        ("b.commands += 1\nif b.commands >= b.command_stop:\n    b.command_slow()", True),
        ("budget.work += steps\nbudget.ticks += steps", True),  # (LoopFrame's own rule: not inline)
        ("budget.work += 1", False),  # the check forgotten
        ("budget.work += 1\nx = 1\nif budget.work >= budget.work_stop:\n    budget.work_slow()", False),
        ("budget.work += 1\nif budget.work > budget.work_stop:\n    budget.work_slow()", False),
        ("budget.work += 1\nif budget.work >= budget.work_stop:\n    other.work_slow()", False),
        ("b.work += 1\nif b.work >= b.work_stop:\n    b.work_slow()\nelse:\n    pass", False),
        ("b.commands += 1\nif b.commands >= b.work_stop:\n    b.work_slow()", False),
        ("if b.work >= b.work_stop:\n    b.work_slow()", False),  # a stop read outside the idiom
        ("stop = budget.command_stop", False),
    ],
)
def test_the_inline_charge_rule_reads_as_documented(source: str, ok: bool) -> None:
    assert (not inline_charge_violations(ast.parse(source))) is ok
    # the same code written as a generated text, as interp/steps.py does, with a hole in it
    generated = "START = " + repr("st.line = {line}\n" + source + "\n")
    assert (not generated_charge_violations(ast.parse(generated))) is ok


def test_generated_text_the_rule_cannot_read_is_refused() -> None:
    assert generated_charge_violations(ast.parse(repr("if b.commands >= b.command_stop")))


def _runtime_lean_dataclass(tree: ast.Module) -> bool:
    """Whether the module's `dataclass` at run time is the lean one: imported from leanclass or
    nodeclass outside `if TYPE_CHECKING:` (in the `else:` of one, or at the top level)."""

    def lean(stmts: list[ast.stmt]) -> bool:
        for node in stmts:
            if isinstance(node, ast.ImportFrom) and (node.module or "").rsplit(".", 1)[-1] in (
                "leanclass",
                "nodeclass",
            ):
                if any(alias.name == "dataclass" for alias in node.names):
                    return True
            if (
                isinstance(node, ast.If)
                and isinstance(node.test, ast.Name)
                and node.test.id == "TYPE_CHECKING"
            ):
                if lean(node.orelse):
                    return True
        return False

    return lean(tree.body)


def undeclared_slotted_classes(tree: ast.Module) -> list[tuple[int, str]]:
    """(line, class) of each lean slotted class not declared with `metaclass=Declared` (rule 4)."""
    if not _runtime_lean_dataclass(tree):
        return []
    bad = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        slotted = any(
            isinstance(d, ast.Call)
            and isinstance(d.func, ast.Name)
            and d.func.id == "dataclass"
            and any(
                k.arg == "slots" and isinstance(k.value, ast.Constant) and k.value.value for k in d.keywords
            )
            for d in node.decorator_list
        )
        declared = any(
            k.arg == "metaclass" and isinstance(k.value, ast.Name) and k.value.id == "Declared"
            for k in node.keywords
        )
        if slotted and not declared:
            bad.append((node.lineno, node.name))
    return bad


def test_slotted_lean_classes_are_declared() -> None:
    bad = [
        f"{module}:{line}: class {name}"
        for module, tree in MODULES
        for line, name in undeclared_slotted_classes(tree)
    ]
    assert not bad, "declare these with metaclass=Declared (rule 4 of this file's docstring):\n" + "\n".join(
        bad
    )


LEAN = "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from dataclasses import dataclass\nelse:\n    from ..leanclass import dataclass\n"


@pytest.mark.parametrize(
    "source, bad",
    [
        (LEAN + "@dataclass(slots=True)\nclass A(B, metaclass=Declared):\n    x: int", []),
        (LEAN + "@dataclass(frozen=True, slots=True)\nclass A(B):\n    x: int", [(7, "A")]),
        (LEAN + "@dataclass(slots=True)\nclass A:\n    x: int", [(7, "A")]),
        (LEAN + "@dataclass(frozen=True)\nclass A:\n    x: int", []),  # (not slotted: made once)
        (LEAN + "@dataclass(slots=False)\nclass A:\n    x: int", []),
        (LEAN + "def f():\n    @dataclass(slots=True)\n    class A:\n        x: int", [(8, "A")]),
        (
            "from ...syntax.nodeclass import dataclass\n@dataclass(slots=True)\nclass A:\n    x: int",
            [(3, "A")],
        ),
        # the real dataclass at run time takes a class, never a declaration
        ("from dataclasses import dataclass\n@dataclass(slots=True)\nclass A:\n    x: int", []),
        (
            "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from ..leanclass import dataclass\n"
            "else:\n    from dataclasses import dataclass\n@dataclass(slots=True)\nclass A:\n    x: int",
            [],
        ),
    ],
)
def test_the_declaration_rule_reads_as_documented(source: str, bad: list[tuple[int, str]]) -> None:
    assert undeclared_slotted_classes(ast.parse(source)) == bad


def compile_calls(tree: ast.Module) -> list[int]:
    """Lines that call the builtin compile() (rule 5): a bare name, or builtins.compile."""
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and (
            (isinstance(node.func, ast.Name) and node.func.id == "compile")
            or (
                isinstance(node.func, ast.Attribute)
                and node.func.attr == "compile"
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id in ("builtins", "__builtins__")
            )
        )
    ]


def test_no_builtin_compile() -> None:
    bad = [f"{module}:{line}" for module, tree in MODULES for line in compile_calls(tree)]
    assert not bad, "exec the text instead of compile() (rule 5 of this file's docstring):\n" + "\n".join(bad)


@pytest.mark.parametrize(
    "source, lines",
    [
        ("code = compile(text, '<awk>', 'exec')", [1]),
        ("import builtins\nc = builtins.compile(t, 'f', 'eval')", [2]),
        ("f = compile\nx = 1", []),  # (a name read is no call; the rule reads calls)
        ("rx = re.compile('a+')\nr = regex.compile(p)\nm = self.compile(x)", []),
        ("exec(text, ns)\nfunction_of(src, '<arith>', 'f', ns)", []),
    ],
)
def test_the_compile_rule_reads_as_documented(source: str, lines: list[int]) -> None:
    assert compile_calls(ast.parse(source)) == lines
