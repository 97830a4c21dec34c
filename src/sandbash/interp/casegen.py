"""A `case` command written into generated code (issue 23): a hot function body (funcgen.py) or
a generated loop's body (loopgen.py) holds its statements in place of a call of its closure.

It does what Compiler.case_cmd's closure does, in the same order: while the run is traced (a
DEBUG trap, `set -x`, `set -n`) the closure's slow way, the walker's (Evaluator.execute), with
nothing of the command done; else $LINENO at the command's line (ShellState.compound_line),
$BASH_COMMAND for a trap, the subject expanded once (its word's string function, as the closure's;
an arithmetic error in it reported as an expansion's), the items' patterns tested in order with
nocasematch and extglob as they are now, the first matching item's commands written as the
body's other commands are (Body.commands: `(( ))`, assignments, calls, tests, a nested `case` or
`if`), status 0 when none matches, `$?` set to the status; the process substitutions opened in it
closed as it ends, an expansion error escaping it reported there; a `return` in a branch handed
up at once.

A pattern is tested by its own test (Compiler.case_tests: the same objects the closure calls),
except where the test is plain text work while nocasematch is off: `*` (always true), text
without pattern characters (equal), and glob_test's str-method shapes (`file*7`: startswith and
endswith; pattern.glob_shape) are written as expressions, the test itself still called while
nocasematch is on. A test that may raise (a pattern to expand: `$p`, `"$q"*`) is called and an
arithmetic error in it reported as the closure reports it; a branch's commands are never inside
that handler. A `case` whose items fall through (`;&`, `;;&` before its last item) keeps its
closure. Nothing of the script's text is spelled in the source: patterns, the header and the
closures are constants of the namespace (`c0`, `c1`, ...)."""

from __future__ import annotations

from functools import partial

from ..expand.pattern import glob_shape
from ..syntax import ast as A
from .steps import _traced, one_arith, plain_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from .compiler import Compiler
    from .funcgen import Body


def names(comp: Compiler) -> dict[str, object]:
    """What a written-in `case`, `if` or `{ }` names besides the shell's objects."""
    ev = comp.ev
    return {"finish": ev.pr.finish_procsubs, "expansion_failed": ev.expansion_failed, "traced": _traced}


def fast_test(pat: A.Word, subject: str, const: Callable[[object], str]) -> str | None:
    """An expression testing the pattern word `pat` on `subject` (a variable's name) exactly as
    its case_tests test does while nocasematch is off (compiler._case_test, pattern.glob_test);
    "True" for one that matches anything whatever the setting; None: the test must be called."""
    parts = pat.parts
    if len(parts) != 1 or type(parts[0]) is not A.Lit:
        return None
    text: str = parts[0].text  # type: ignore[attr-defined]
    if text == "*":
        return "True"
    if not ("*" in text or "?" in text or "[" in text or "\\" in text or "(" in text):
        return f"{subject} == {const(text)}"  # (_case_test's `same`)
    shape = glob_shape(text)
    if shape is None:
        return None
    kind, a, b = shape
    if kind == "all":  # (`**`: glob_test's any_)
        return "True"
    if kind == "lit":
        return f"{subject} == {const(a)}"
    if kind == "pre":
        return f"{subject}.startswith({const(a)})"
    if kind == "suf":
        return f"{subject}.endswith({const(a)})"
    if kind == "mid":
        return f"{const(a)} in {subject}"
    if kind == "presuf":  # (`ab*ba` is not matched by `aba`)
        least = len(a) + len(b)
        return f"(len({subject}) >= {least} and {subject}.startswith({const(a)}) and {subject}.endswith({const(b)}))"
    return None


def _read(word: A.Word, sj: str, subject: str, const: Callable[[object], str], evaluation: str | None) -> str:
    """The subject's expansion into `sj` (at level 1): a `$name` or `"$name"` of a plain name
    (steps.plain_name) bound in the innermost scope to a string, no reference, within
    CHARGE_FROM, read in place (what its string function gives for it: the value as it is, no
    splitting or globbing in a `case` word); one `$(( ))` whose `evaluation` is written in
    (loopgen.Writer.value: it sets `_sr`), its number's text while the shared evaluator is free;
    anything else, the string function `subject`."""
    if evaluation is not None:
        return (
            f"    if ev.depth:  # (a nested evaluation: the string function's own)\n"
            f"        {sj} = {subject}()\n"
            f"    else:\n"
            + "".join(f"        {line}\n" if line else "\n" for line in evaluation.splitlines())
            + f"        {sj} = str(_sr)\n"
        )
    name = plain_name(word)
    if name is None:
        return f"    {sj} = {subject}()\n"
    return (
        f"    if (\n"
        f"        (_v := st.vars.scopes[-1].get({const(name)})) is not None\n"
        f"        and type(_v) is Var\n"
        f"        and not _v.attrs & NAMEREF\n"
        f"        and type({sj} := _v.value) is str\n"
        f"        and len({sj}) <= CHARGE_FROM\n"
        f"    ):\n"
        f"        pass\n"
        f"    else:\n"
        f"        {sj} = {subject}()\n"
    )


def case_cmd(body: Body, node: A.Case, ind: int) -> bool | None:
    """`node` as statements at level `ind` setting `s` (see the module's docstring); whether a
    `return` in it can end the body; None, with nothing written, for a `case` that falls through."""
    items = node.items
    if any(item.term != ";;" for item in items[:-1]):
        return None  # (the last item's `;&` or `;;&` has nothing after it: as `;;`)
    comp = body.comp
    const = body.gen.const
    tests = comp.case_tests(node)
    body.ifs += 1
    k = body.ifs
    m, sj, nc, xg, hit = f"_m{k}", f"_sj{k}", f"_nc{k}", f"_xg{k}", f"_k{k}"
    conds: list[str] = []
    called = False  # (a test that may raise: the index form)
    for i, item in enumerate(items):
        ors: list[str] = []
        for pat, test in zip(item.patterns, tests[i], strict=True):
            fast = fast_test(pat, sj, const)
            if fast == "True":
                ors.append(fast)
                break  # (the later patterns are never tested)
            if fast is not None:
                ors.append(f"({fast} if not {nc} else {const(test)}({sj}, True, st.shopts['extglob']))")
            else:
                called = True
                ors.append(f"{const(test)}({sj}, {nc}, {xg})")
        conds.append(" or ".join(ors))
    from ..syntax.escapes import ansi_decoded  # (as Compiler.case_cmd: not at start-up)

    slow = const(partial(comp.ev.execute, node))
    header = const(f"case {ansi_decoded(node.word.text)} in ")  # ($BASH_COMMAND: _exec_case's)
    subject = const(comp._string_fn(node.word))
    sub = one_arith(node.word)
    evaluation = None
    if sub is not None:  # (`case $(( k % 3 )) in`: its evaluation written in, loopgen.Writer.value)
        evaluation = body.arith_writer().value(comp, sub)
    put = body.put
    put(f"if not mode.plain and traced(st):\n    s = {slow}()\nelse:", ind)
    put(f"{m} = len(procs) if procs else 0\ntry:", ind + 1)
    put(
        f"st.compound_line({node.line}, rt.budget.commands)\n"
        f"if not mode.untraced and st.traps and not st.in_trap:  # (for an ERR or EXIT trap)\n"
        f"    sh.current_command = {header}\n"
        f"try:\n{_read(node.word, sj, subject, const, evaluation)}"
        f"except ArithError as e:\n    s = expansion_failed(ExpansionError(e.render(), 1, arith=True))\n"
        f"else:\n    {nc} = st.shopts['nocasematch']",
        ind + 2,
    )
    level = ind + 3
    if called:  # (the item found first, its tests' arithmetic errors reported as the closure does)
        put(f"{xg} = st.shopts['extglob']\ntry:", level)
        for i, cond in enumerate(conds):
            put(f"{'el' if i else ''}if {cond}:\n    {hit} = {i}", level + 1)
        put(f"else:\n    {hit} = -1", level + 1)
        put(
            "except ArithError as e:\n    s = expansion_failed(ExpansionError(e.render(), 1, arith=True))\nelse:",
            level,
        )
        level += 1
        conds = [f"{hit} == {i}" for i in range(len(items))]
    returns = False
    for i, item in enumerate(items):
        put(f"{'el' if i else ''}if {conds[i]}:", level)
        if item.body is None:
            put("s = 0", level + 1)
        else:
            returns = body.commands(item.body.items, level + 1, False) or returns
    put("else:\n    s = 0\nst.last_status = s" if items else "s = 0\nst.last_status = s", level)
    put(
        f"except ExpansionError as e:\n    s = expansion_failed(e)\n"
        f"finally:\n    if procs and len(procs) > {m}:\n        finish({m})",
        ind + 1,
    )
    return returns
