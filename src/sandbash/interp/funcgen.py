"""A hot function's body as one generated Python function (issue 23: the compiling evaluator's
top tier, as expand/arithgen.py is arithmetic's).

A function body's commands compile to closures (compiler.py), which call_function runs one after
the other through a sequence closure; each closure opens with the same prologue (the run mode's
test, $LINENO, $BASH_COMMAND, the command budget) and reaches the values and stores it needs
through further calls. Once a body has been asked for BODY_HOT times (Compiler.function_body),
its top-level command list is generated here as the source of one function instead:

- every command is a statement of that function, in order; one whose closure can end the body
  with a `return` (a status below zero, compiler.returned) hands that status up at once, as
  compiler._sequence_returning does;
- a command made from a step (steps.py: `local NAME[=WORD]...`, `NAME=WORD` alone, a call by a
  literal name with call_function's common case in place, calls.SITE_CALL; Compiler.shapes
  holds its key and its holes' values) is written out inline: the step's text, the very text its
  closure was compiled from, with its holes named as constants of the body; the run's runtime and
  budget are read once a call (steps.RUNTIME), the budget still charged at every command;
- such a step's value that is one `$(( ))` (`x=$((n + ${#t}))`, `local r=$(( $1 % 3 ))`), once its text or
  template is generated, is evaluated by its statements written in (steps.VALUE_ARITH,
  loopgen.Writer.value; Body.arith_values), as is a `case $(( )) in` subject (casegen);
- a `(( ))` command whose text is generated is written in as a generated loop writes its body's
  (loopgen.Writer.arith: the text's statements between what its closure does around them, that
  closure, not fused, for the slow way);
- an `if`/`elif`/`else` command (MAX_ITEMS commands in all) is
  written as Compiler.if_cmd runs it: each condition's commands with `set -e` suspended, a
  returned status handed up at once, the process substitutions opened in it closed as it ends,
  an expansion error escaping it reported there; its lists' commands are written as the body's;
- a two-part `a && b` / `a || b` list is written as Compiler.and_or runs it (compiler._guarded);
- a `case` is written as Compiler.case_cmd runs it (casegen.py), a `{ }` group as the walker
  runs it (Body.group), their commands written as the body's; at most _IF_DEPTH compound
  commands one inside another;
- a `(( ))` command of a template (`(( len += ${#t} ))`) once generated, as a loop writes it
  (loopgen.Writer.template);
- any other command calls its own closure, as the sequence would.

Every inline statement first tests the run mode, as its closure does first: when the shell is not
running plainly (set -x, a DEBUG trap, a queued signal, gates, ...) the statement is its closure,
which takes its own slow exit, at that point of the body and with nothing of the statement done.

The source is made from the syntax tree only: every script-derived value (names, line numbers,
commands, closures) is a constant of the function's namespace (`c0`, `c1`, ...), never source
text. The namespace holds the shell's own objects, so the function belongs to that shell's
Compiler (one per run and subshell) and is never shared. A body of more than MAX_ITEMS commands,
or one whose source would pass the Compiler's GEN_CHARS budget, keeps its closures.
`SANDBASH_NO_FUNCGEN=1` (sandbash.switches) turns this tier off alone, for comparison."""

from __future__ import annotations

from functools import partial

from ..expand.arith import generated_of
from ..expand.segments import maybe_glob
from ..syntax import ast as A
from ..textcache import function_of
from . import casegen
from .loopgen import Writer, arith_text, block
from .state import ONE_STATUS
from .steps import (
    ARITH_LINE,
    BEGIN_ARGV,
    NAMESPACE,
    RUNTIME,
    SHELL,
    START,
    VALUE_ARITH,
    VALUE_FN,
    VALUE_LOCAL,
    make_step,
    one_arith,
)
from .variables import NOT_PLAIN

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .compiler import Code, Compiler

BODY_HOT = 64  # calls of a body's compiled code before it is generated (Compiler.function_body)
MAX_ITEMS = 32  # commands of a body's top-level list (and of the `if` commands written in)
# compound commands (`if`, `case`, `{ }`, `a && b`) written in one inside another at most (each adds
# a level or two of Python blocks, which nest 20 deep, and about five of indentation)
_IF_DEPTH = 3
GEN_CHARS = 1 << 18  # characters of generated source a Compiler may make (about 2 MB of code)


# `[ $x OP lit ]`, `test "$x" OP lit`, `[ -n "$x" ]` as fastbuiltins._operand_code's closure
# ({code}) runs it, kept in step with it: {fields} sets `f` to the operand's fields (None: the one
# plain field `v`), {decide} sets `s` from `v` (None: the builtin decides, as for any other count)
_TEST = (
    """\
if not mode.plain or st.functions.get({name}) is not None or {name} in st.disabled_builtins:
    s = {code}()
else:
"""
    # (every command's prologue, the words' start: steps' own texts)
    + "".join("    " + line + "\n" for line in (START + BEGIN_ARGV).splitlines())
    + """\
    try:
        {fields}
    except (ExpansionError, ArithError, AssignError) as e:
        s = ex.words_failed(e, mark)
    else:
        if f is not None:
            v = f[0] if len(f) == 1 else None
        if v is not None and {size} <= rt.limits.max_arguments:
            {decide}
        else:
            s = None
        if s is None:
            s = {general}(f if f is not None else [v], mark)
        else:
            st.last_arg = {last}
            if procs and len(procs) > mark:
                ex.pr.finish_procsubs(mark)
            st.last_status = s
            st.pipestatus = ONE_STATUS[s]
            if s:
                errexit_check(s)"""
)
# the fields of a plain unquoted `$x` (fastbuiltins._unquoted_fields, kept in step with it)
_UNQUOTED = """\
        var = {first}
        if var is None or var.attrs & NAMEREF:
            var = {lookup}({var})
        if (
            var is not None
            and type(var) is Var
            and type(v := var.value) is str
            and v
            and len(v) <= CHARGE_FROM
            and (v.isalnum() or not (" " in v or "\\t" in v or "\\n" in v or maybe_glob(v)))
            and (
                (
                    (len({scopes}) == 1 or "IFS" not in {names})
                    and ((g := {scopes}[0].get("IFS")) is None or (g.value == " \\t\\n" and not g.attrs & NAMEREF))
                )
                or {ifs}() == " \\t\\n"
            )
        ):
            f = None
        else:
            f = []
            {rest}(var, f)"""
# the fields of a plain "$x" (compiler.Compiler._argv_fn's argv_scalar, kept in step with it)
_QUOTED = """\
        expander._at_empty = False
        var = {first}
        if var is None or var.attrs & NAMEREF:
            var = {lookup}({var})
        if var is not None and type(var) is Var and type(v := var.value) is str and len(v) <= CHARGE_FROM:
            f = None
        else:
            f = []
            {rest}(var, f)"""
# what `v`, the one field, decides for these operators (the others: the test's own decide)
_DECIDE = {
    "=": "s = 0 if v == {other} else 1",
    "==": "s = 0 if v == {other} else 1",
    "!=": "s = 1 if v == {other} else 0",
    "-n": "s = 0 if v else 1",
    "-z": "s = 1 if v else 0",
}


class _Gen:
    """The source lines of one body and the constants they name."""

    def __init__(self, consts: dict[str, object] | None = None) -> None:
        self.lines: list[str] = []
        # (a generated loop's namespace, loopgen.Writer's, when its body is written here)
        self.consts: dict[str, object] = {} if consts is None else consts
        self._names: dict[int, str] = {}  # (by id: the values are held in consts)

    def const(self, value: object) -> str:
        """The name of `value` in the namespace (one name for one object)."""
        name = self._names.get(id(value))
        if name is None:
            name = self._names[id(value)] = f"c{len(self._names)}"
            self.consts[name] = value
        return name

    def hole(self, value: object) -> str:
        """A step's hole filled: an int as itself (a line, an index), anything else a constant."""
        return str(value) if type(value) is int else self.const(value)

    def emit(self, text: str, indent: int = 0) -> None:
        pad = " " * indent
        self.lines.extend(pad + line for line in text.splitlines())


def generate(comp: Compiler, node: A.CommandList) -> Code | None:
    """The generated function for a function body's command list (None: too large, over the
    budget, or a list of one command, which the sequence does not wrap). Its `return` gives a
    returned status, as Compiler.function_body's code does."""
    items = node.items
    if len(items) < 2 or len(items) > MAX_ITEMS:
        return None
    ev = comp.ev
    body = Body(comp)
    body.gen.emit(RUNTIME, 4)  # (once a call: steps.RUNTIME)
    body.commands(items, 1, True)
    source = "def body():\n" + "\n".join(body.gen.lines) + "\n"
    if comp.generated + len(source) > GEN_CHARS:
        return None
    comp.generated += len(source)
    ex = ev.ex
    st = ex.state
    shell = (st.run_mode, st, ex.sh, ex, ex.expander, ex.pr.procsubs)  # (steps.SHELL)
    namespace: dict[str, object] = {**NAMESPACE, **dict(zip(SHELL, shell)), **body.gen.consts}  # noqa: B905
    writer = body.writer
    if writer is not None:  # (what loopgen's statements name: loopgen.while_loop's factory's)
        namespace.update(writer.namespace)
        namespace.update(
            ev=ex.sh._arith,
            finish=ex.pr.finish_procsubs,
            cmd_failed=ev.arith_cmd_failed,
            errexit_check=ev.errexit_check,
        )
    if body.tests:  # (what a test written in names: operand_cmd's)
        namespace.update(maybe_glob=maybe_glob, ONE_STATUS=ONE_STATUS, errexit_check=ev.errexit_check)
    if body.ifs:  # (what an `if`, `case` or `{ }` written in names: their closures')
        namespace.update(casegen.names(comp))
    return function_of(source, "<funcgen>", "body", namespace)


class Body:
    """The statements of one generated body: its commands, in order, each setting `s`."""

    def __init__(self, comp: Compiler, writer: Writer | None = None) -> None:
        self.comp = comp
        # (a generated loop's body, loopgen.Writer.body: its writer's namespace and statements)
        self.gen = _Gen(None if writer is None else writer.namespace)
        self.declared: set[str] = set()  # (names an inline `local` of the top level made before)
        self.writer: Writer | None = writer  # (`(( ))` written in: loopgen's statements)
        self.ifs = 0  # (`if`, `case` and `{ }` commands written in: a mark of their own each)
        self.tests = 0  # (test commands written in: _TEST)
        self.count = 0  # (commands written in or called, nested ones too: MAX_ITEMS in all)
        # a returned status (below zero) handed up: a body returns it, a loop's raises it
        # (loopgen: compiler._raising's work, as the loop's closures raise it)
        self.up = "return s" if writer is None else "raise ReturnFromFunction(-1 - s)"
        self.depth = 0  # (compound commands being written in around the one written now: _IF_DEPTH)

    def put(self, text: str, ind: int) -> None:
        """Fixed text's lines at level `ind`."""
        self.gen.lines += block(text, ind)

    def commands(self, items: tuple[A.ListItem, ...], ind: int, top: bool) -> bool:
        """`items` as statements at level `ind`, the last one's status in `s`; at the `top` level
        the last is returned. A `return` (a status below zero) is returned at once anywhere: with
        whether one can be."""
        last = len(items) - 1
        returns = False
        for i, item in enumerate(items):
            self.count += 1
            ends = self.command(item, ind, top)
            returns = returns or ends
            if top and i == last:
                self.put("return s", ind)
            elif ends:
                self.put(f"if s < 0:\n    {self.up}", ind)  # (compiler.returned)
        return returns

    def command(self, item: A.ListItem, ind: int, top: bool) -> bool:
        """One command as statements at level `ind` setting `s`; whether it can end the body with
        a `return` (a status below zero)."""
        comp = self.comp
        gen = self.gen
        cmd = item.cmd
        if not item.background:
            text = arith_text(cmd)
            if text is not None and generated_of(text) is not None:
                # `(( ))` written in as a generated loop writes it (loopgen.Writer.arith), its
                # closure (not fused: the statements are its one function's) for the slow way
                if self.writer is None:
                    self.writer = Writer()
                cold = gen.const(comp.arith_cmd(cmd, fuse=False))  # type: ignore[arg-type]
                lines = self.writer.arith(text, ind, cmd.line, f"    s = {cold}()", "s", False)
                if lines is not None:
                    gen.lines += lines
                    return False
            if text is None and type(cmd) is A.ArithCmd:
                # a template's (`(( len += ${#t} ))`), once generated (loopgen.Writer.template)
                if self.writer is None:
                    self.writer = Writer()
                cold = gen.const(comp.arith_cmd(cmd, fuse=False))  # type: ignore[arg-type]
                lines = self.writer.template(comp, cmd, ind, f"    s = {cold}()", "s")  # type: ignore[arg-type]
                if lines is not None:
                    gen.lines += lines
                    return False
            t = type(cmd)
            if self.depth < _IF_DEPTH and (
                (t is A.AndOr and len(cmd.rest) == 1)  # type: ignore[union-attr]
                or (t in _COMPOUND and self.count + _size(cmd) <= MAX_ITEMS)
            ):
                self.depth += 1
                try:
                    ends = _COMPOUND.get(t, Body.and_or)(self, cmd, ind)  # type: ignore[operator]
                finally:
                    self.depth -= 1
                if ends is not None:  # (None: a `case` with `;&` or `;;&` keeps its closure)
                    return ends  # type: ignore[no-any-return]
        mark = comp.returns
        code = comp.item(item)
        returns = comp.returns != mark
        comp.returns = mark
        return self.written(code, item.background, returns, ind, top)

    def written(self, code: Code, background: bool, returns: bool, ind: int, top: bool) -> bool:
        """A command compiled to `code` as statements at level `ind` setting `s`: its step's or
        its test's text when it has one (Compiler.shapes, Compiler.tests), else a call of it;
        `returns`: whether it can end the body with a `return`, which is returned."""
        comp = self.comp
        gen = self.gen
        shape = comp.shapes.get(code) if not background else None
        c = gen.const(code)
        if shape is None:
            test = comp.tests.get(code) if not background else None
            if test is not None:
                self.tests += 1
                self.put(self.test_source(c, test), ind)
                return False
            self.put(f"s = {c}()", ind)
            return returns
        # the step's text, as its closure runs it, after the same run-mode test: not plain, the
        # closure itself, which takes its own slow exit
        key, values = shape
        key, evaluations = self.arith_values(key, values)
        step = make_step(_reading_locals(key, values, self.declared), inline=True)
        self.put(f"if not mode.plain:\n    s = {c}()\nelse:", ind)
        source = step.source({h: gen.hole(values[h]) for h in step.holes})
        gen.emit(_evaluated(source, evaluations) if evaluations else source, 4 * ind + 4)
        if top and key[0] == "local":
            self.declared.add(values["name"])  # type: ignore[arg-type]
        elif top and key[0] == "locals":
            self.declared.update(values["names"])  # type: ignore[arg-type]
        return returns

    def arith_writer(self) -> Writer:
        """The writer of the body's arithmetic (loopgen's statements), made on first use."""
        if self.writer is None:
            self.writer = Writer()
        return self.writer

    def arith_values(
        self, key: tuple[object, ...], values: dict[str, object]
    ) -> tuple[tuple[object, ...], dict[str, str]]:
        """`key` with each value that is one `$(( ))` whose evaluation can be written in
        (loopgen.Writer.value: its text or template generated) read so (steps.VALUE_ARITH), and
        those evaluations by their ARITH_LINE's suffix (the value's index, "" for a lone value)."""
        kind = key[0]
        if kind == "arith":  # (`x=$(( text ))`: the closure's own way is arith_assign_fn's)
            key = ("scalar", VALUE_FN, True, False)
        if kind not in ("arith", "scalar", "local", "locals"):
            return key, {}
        hows = list(key[2:]) if kind == "locals" else [key[1]]
        suffixes = [str(k) for k in range(len(hows))] if kind == "locals" else [""]
        evaluations: dict[str, str] = {}
        for k, how in enumerate(hows):
            sub = one_arith(values.get("word" + suffixes[k]))  # type: ignore[arg-type]
            if how != VALUE_FN or sub is None:
                continue
            made = self.arith_writer().value(self.comp, sub)
            if made is not None:
                evaluations[suffixes[k]] = made
                hows[k] = VALUE_ARITH
        if not evaluations:
            return (("arith",) if kind == "arith" else key), {}
        if kind == "locals":
            return (kind, key[1], *hows), evaluations
        return (key[0], hows[0], *key[2:]), evaluations

    def test_source(self, code: str, test: dict[str, object]) -> str:
        """_TEST for a test command whose closure is the constant `code` (fastbuiltins' values)."""
        gen = self.gen
        unquoted: tuple[str, object] | None = test["unquoted"]  # type: ignore[assignment]
        quoted: tuple[str, object] | None = test["quoted"]  # type: ignore[assignment]
        plain = unquoted or quoted
        if plain is not None:
            var, rest = plain
            ex = self.comp.ev.ex
            store = ex.state.vars
            env = ex.expander.env
            fields = (
                (_UNQUOTED if unquoted is not None else _QUOTED)
                .format(
                    scopes=gen.const(store.scopes),  # (the store's own for good, as the closure holds them)
                    names=gen.const(store.local_names),
                    var=gen.const(var),
                    # (a name never computed as read: its innermost binding is lookup's)
                    first=f"{gen.const(store.scopes)}[-1].get({gen.const(var)})"
                    if var not in NOT_PLAIN
                    else "None",
                    lookup=gen.const(env.lookup),
                    ifs=gen.const(env.ifs),
                    rest=gen.const(rest),
                )
                .lstrip()
            )  # (its first line at the hole's place)
        else:
            fields = f"f = {gen.const(test['word'])}()"
        op = test["op"]
        other = test["other"]
        how = _DECIDE.get(op) if type(op) is str else None
        decide = (how or "s = {decide}(v)").format(other=gen.const(other), decide=gen.const(test["decide"]))
        last = test["last"]
        return _TEST.format(
            name=gen.const(test["name"]),
            code=code,
            line=test["line"],
            cmd=gen.const(test["cmd"]),
            fields=fields,
            size=test["size"],
            decide=decide,
            general=gen.const(test["general"]),
            last="v" if last is None else gen.const(last),
        )

    def and_or(self, node: A.AndOr, ind: int) -> bool:
        """`a && b` or `a || b` as Compiler.and_or's closure runs it (compiler._guarded with a
        second piece): `a` with `set -e` suspended, `b` when its status says so, a returned status
        handed up at once, the status left in $?; the process substitutions opened in it closed
        as it ends, an expansion error escaping it reported there. Whether it can end the body
        with a `return`."""
        self.ifs += 1
        m = f"_m{self.ifs}"
        ((op, second),) = node.rest
        self.put(f"{m} = len(procs) if procs else 0\ntry:\n    st.errexit_ignored += 1\n    try:", ind)
        ends = self.command(A.ListItem(node.first), ind + 2, False)
        self.put("finally:\n    st.errexit_ignored -= 1", ind + 1)
        if ends:
            self.put(f"if s < 0:\n    {self.up}", ind + 1)
        self.put("if s == 0:" if op == "&&" else "if s != 0:", ind + 1)
        self.count += 1
        returns = self.command(A.ListItem(second), ind + 2, False)
        if returns:
            self.put(f"if s < 0:\n    {self.up}", ind + 2)
        self.put("st.last_status = s", ind + 1)
        self.put(
            f"except ExpansionError as e:\n    s = expansion_failed(e)\n"
            f"finally:\n    if procs and len(procs) > {m}:\n        finish({m})",
            ind,
        )
        return ends or returns

    def group(self, node: A.Group, ind: int) -> bool:
        """`{ ...; }` as Compiler.group and the walker run it: while the run is traced (or `set -n`),
        the walker's (Evaluator.execute); else its commands written as the body's, the process
        substitutions opened in it closed as it ends, an expansion error escaping it reported
        there (execute's and _guarded's work). Whether it can end the body with a `return`."""
        self.ifs += 1
        m = f"_m{self.ifs}"
        slow = self.gen.const(partial(self.comp.ev.execute, node))
        self.put(f"if not mode.plain and traced(st):\n    s = {slow}()\nelse:", ind)
        self.put(f"{m} = len(procs) if procs else 0\ntry:", ind + 1)
        returns = self.commands(node.body.items, ind + 2, False)
        self.put(
            f"except ExpansionError as e:\n    s = expansion_failed(e)\n"
            f"finally:\n    if procs and len(procs) > {m}:\n        finish({m})",
            ind + 1,
        )
        return returns

    def if_cmd(self, node: A.If, ind: int) -> bool:
        """`if`/`elif`/`else` as Compiler.if_cmd's closure runs it: each condition's commands with
        `set -e` suspended, the first true one's body, else the `else` body or status 0; the
        process substitutions opened in it closed as it ends, an expansion error escaping it
        reported there (as _guarded). Whether it can end the body with a `return`."""
        self.ifs += 1
        m = f"_m{self.ifs}"
        self.put(f"{m} = len(procs) if procs else 0\ntry:", ind)
        returns = False
        level = ind + 1
        for clause in node.clauses:
            self.put("st.errexit_ignored += 1\ntry:", level)
            ends = self.commands(clause.cond.items, level + 1, False)
            self.put("finally:\n    st.errexit_ignored -= 1\nif s == 0:", level)
            returns = self.commands(clause.body.items, level + 1, False) or ends or returns
            if ends:  # (after the body's test, as if_cmd: a returned status is not 0)
                self.put(f"elif s < 0:\n    {self.up}", level)
            self.put("else:", level)
            level += 1
        if node.else_body is not None:
            returns = self.commands(node.else_body.items, level, False) or returns
        else:
            self.put("st.last_status = 0\ns = 0", level)
        self.put(
            f"except ExpansionError as e:\n    s = expansion_failed(e)\n"
            f"finally:\n    if procs and len(procs) > {m}:\n        finish({m})",
            ind,
        )
        return returns


_COMPOUND = {A.If: Body.if_cmd, A.Case: casegen.case_cmd, A.Group: Body.group}


def _size(node: A.Command) -> int:
    """The commands an `if`, a `case` or a `{ }` holds, nested ones too (a generated body's
    MAX_ITEMS)."""
    lists: list[A.CommandList]
    if isinstance(node, A.If):
        lists = [c.cond for c in node.clauses] + [c.body for c in node.clauses]
        if node.else_body is not None:
            lists.append(node.else_body)
    elif isinstance(node, A.Case):
        lists = [item.body for item in node.items if item.body is not None]
    elif isinstance(node, A.Group):
        lists = [node.body]
    else:
        return 0
    return sum(1 + _size(item.cmd) for lst in lists for item in lst.items)


def _evaluated(source: str, evaluations: dict[str, str]) -> str:
    """A step's source with each of its ARITH_LINE lines replaced by that value's evaluation's
    statements, at that line's indentation."""
    out: list[str] = []
    for line in source.splitlines():
        mark = line.lstrip()
        if mark.startswith(ARITH_LINE):
            pad = line[: len(line) - len(mark)]
            out += [
                pad + text if text else text for text in evaluations.pop(mark[len(ARITH_LINE) :]).splitlines()
            ]
        else:
            out.append(line)
    assert not evaluations  # (each written in where its value is read)
    return "\n".join(out) + "\n"


def _reading_locals(
    key: tuple[object, ...], values: dict[str, object], declared: set[str]
) -> tuple[object, ...]:
    """`key` with each value that is `$NAME` of a name an inline `local` before it in the body
    declared read in place (steps.VALUE_LOCAL: from the function's scope while the variable is
    there and plain, else the value's function, so the knowledge only chooses the shorter way)."""
    kind = key[0]
    if kind == "local" or kind == "scalar":
        if key[1] == VALUE_FN and values.get("ref") in declared:
            return (kind, VALUE_LOCAL, *key[2:])
        return key
    if kind == "locals":
        hows = [
            VALUE_LOCAL if how == VALUE_FN and values.get(f"ref{k}") in declared else how
            for k, how in enumerate(key[2:])
        ]
        return (kind, key[1], *hows)
    return key
