"""A hot loop's `(( ))` commands written into one generated function (issue 23: the loops' own
tier, as arithcmd.py is the `(( ))` command's).

A `while (( cond ))` or `until (( cond ))` loop ran, each step, its condition's compiled list, the
`(( ))` command's closure in it and its body's list, whose `(( ))` commands are each a closure
(arithcmd.py's generated one once hot): a frame and the command's wrapper apiece. Once the loop's
`(( ))` texts have their generated functions (arith.generated_of: each has run HOT_CALLS times),
Evaluator._exec_while hands its remaining steps, at a check of its guard, to one function made
here (Compiler.while_loop), whose step is _exec_while's own with:

- the condition, when it is one `(( ))` command of literal text, written in: that command's
  statements (arithgen.statements) between what Compiler.arith_cmd does around them, with
  `set -e` suspended as for any condition (its failure reported with it suspended too); else its
  compiled list called, as _exec_while calls it;
- the body's top-level `(( ))` commands of literal text written in likewise (`set -e` and the ERR
  trap after a false one as the closure does), and its calls by a literal name as funcgen writes
  them (the call's step, steps._call, after the same run-mode test), its `if`, `case`, `{ }` and
  `a && b` commands as a generated function body writes them (funcgen.Body through
  Writer.compound: their commands written in likewise, casegen.py for a `case`), each other
  command calling its own closure in order (one that can end a function with `return` hands the returned status up as an exception,
  as the compiled list does for a loop: compiler._raising).

A `for ((;;))` loop's generated steps (arithfor.py) take their body from here too.

A loop is handed over once all those texts are generated, or once it has waited WAIT_STEPS steps
for them (a command that seldom runs keeps its closure); a loop with no `(( ))` text (`while read
-r line; do ...; done < file`: its assignments, tests, `case` and `if` written in, its condition
called) once it has run PLAIN_STEPS steps. A body written in while a `(( ))` text
nested in one of its commands (a `case` branch, an `if`) was not generated yet holds that
command's closures as compiled then, which the walker's loop would have compiled again once the
text is (Compiler.compiled, at a check): the generated steps ask, at each check, whether one of
those texts is generated now (renewal), and if so hand back (RENEW: the step and the guard's
next stop in the LoopFrame, `-1 - status` returned); the loop goes on from there its own way and
makes them again at its next check.

Every `(( ))` written in first tests what its closure tests first: while the run is not untraced
(a trap, `set -x`, a DEBUG trap, gates, a signal: RunMode) or the shared evaluator is in use (a
nested evaluation), the closure itself runs, at that point and with nothing of the command done.
The guard (max_loop_iterations, max_work, the deadline, cancellation: LoopFrame.check), jobs
reaped after each test, `break`/`continue` (LoopFrame.caught) and the loop's status are
_exec_while's. The source is made from fixed text and arithgen.statements, which spells no script
text (names, numbers and the texts are namespace constants, a command's line a number); the
shell's objects come in as the factory's parameters. The tree walker never uses it."""

from __future__ import annotations

from functools import partial

from ..expand.arith import GEN_LONGEST, ArithError, Template, generated_now, generated_of, parse_or_raise
from ..expand.arithwords import literal_arith, renamed, template_values, word_template
from ..expand.env import ExpansionError
from ..expand.fastparam import positional_index
from ..expand.segments import maybe_glob
from ..shvars.arrays import IndexedArray
from ..shvars.vars import NAMEREF, Var
from ..syntax import ast as A
from ..textcache import function_of
from .control import LoopControl, ReturnFromFunction
from .jobs import cleanup_dead_jobs
from .state import ONE_STATUS
from .steps import NAMESPACE as STEP_NAMESPACE
from .steps import make_step
from .variables import NOT_PLAIN

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from .compiler import Code, Compiler
    from .funcgen import Body
    from .loops import LoopFrame

    Run = Callable[[LoopFrame, int, int, Code, Code, int], int]
    Shape = tuple[tuple[object, ...], dict[str, object]]

FILE = "<loopgen>"
# steps a loop waits, asking at each check, for its `(( ))` texts to be generated (HOT_CALLS runs
# each): past it, it is generated with those that are, the others calling their closures
WAIT_STEPS = 1024
# steps a loop with no `(( ))` text (`while read -r line; do ...; done < f`) runs before its body is
# written in: in a fresh run, writing one (the writers imported first) costs what about 3,000 of
# its steps then save (callgrind, strip_cmp: ~16 M instructions, 5,500 a step), so a loop that
# has run this long is taken to be one that runs long
PLAIN_STEPS = 2048

NAMESPACE: dict[str, object] = {
    "ArithError": ArithError,
    "ExpansionError": ExpansionError,
    "LoopControl": LoopControl,
    "ONE_STATUS": ONE_STATUS,
    "ReturnFromFunction": ReturnFromFunction,
    "reap": cleanup_dead_jobs,
    "Var": Var,
    "NAMEREF": NAMEREF,
    "IndexedArray": IndexedArray,
}

# `(( ))` as Compiler.arith_cmd's closure runs it plainly (arithcmd.py's _HEAD and _TAIL), its
# statements at {ind}+4; {cold} is what runs while the run is not plain (the closure itself)
_ARITH = """\
if not mode.untraced{nested}:
{cold}
else:
    st.line = {line}
    _m = len(procs) if procs else 0
    try:
        try:
{enter}{evaluate}
{leave}        except (ArithError, ExpansionError) as e:
{left12}            {var} = {failed}(e)
        else:
            st.last_status = {var}
{after}
    finally:
        if procs and len(procs) > _m:
{left12}            finish(_m)
    st.pipestatus = ONE_STATUS[{var}]
"""
# (a generated loop's shared evaluator is never in a nested evaluation: it is handed over only
# while it is free, and every evaluation puts its depth back)
_NESTED = " or ev.depth"
# `sh.arith_cmd` around the statements: set as they start, emptied as they end
_ENTER = '            sh.arith_cmd = "((: "\n'
_TRY = "            try:\n"
_LEAVE = '            finally:\n                sh.arith_cmd = ""\n'
# (a `for ((;;))` loop's body whose first or last command is a `(( ))` written in: the loop's parts
# run with `((: ` set, so the first one's statements find it set, its closure empties it first
# (`first`); the last one's statements leave it set, what runs after them emptying it first, and
# the step sets it again (`last`). A limit or other exception through leaves it as it finds it:
# Evaluator._exec_arith_for puts back the outer command's as the loop ends)
_EMPTY = '    sh.arith_cmd = ""\n'
_LEFT = 'sh.arith_cmd = ""\n'
# a literal text's evaluation in _ARITH ({ind}: the level of its statements)
_LITERAL = """\
{stmts}
{pad}{var} = 0 if {value} else 1"""
# a template's (arith.Template: `(( len += ${#t} ))`): its slots' values read ({reads}: those read
# here, else None in _sv) or expanded by arithwords.template_values, then its statements run
# with them as Shell.arith_slots runs its function (the evaluator's text and slots set, and put
# back after: a template can run inside another's, through a variable's subscript), an error
# naming the values as the text would; a tuple not made means the text's own value
_TEMPLATE = """\
{reads}
if _sv is None:
    _sv = {values}()
if type(_sv) is tuple:
    _ot = ev.text
    _os = ev.slots
    ev.text = {tpltext}
    ev.slots = _sv
    try:
{stmts}
        _sr = {value}
    except ArithError as e:
        {renamed}(e, _sv)
        raise
    finally:
        ev.text = _ot
        ev.slots = _os
else:
    _sr = _sv
{last}"""
# a slot's value read here: `${#name}` (a plain ASCII string's length, as length_count counts
# it) and `$name` (a plain decimal, read as template_fn reads it) of a variable bound in the
# innermost scope, or in the globals when no scope above them binds the name (VarStore.local_names:
# a function's read of a global), not special (NOT_PLAIN) and no reference; `$1` (a positional
# parameter that is a plain decimal, as positional_slot reads it): its test and its value ({n}:
# the variable's name's constant, or the parameter's index); anything else, template_values' way
_DIGITS = '_r.isdigit() and _r.isascii() and (len(_r) == 1 or _r[0] != "0" and len(_r) < 19)'
_FOUND = (
    "((_v := _sc.get({n})) is not None or ({n} not in st.vars.local_names and (_v := st.vars.scopes[0].get({n})) is not None))"
    " and type(_v) is Var and not _v.attrs & NAMEREF and type(_r := _v.value) is str"
)
_POSITIONAL = "len(st.positional) >= {n} and " + _DIGITS.replace(
    "_r.isdigit()", "(_r := st.positional[{n} - 1]).isdigit()", 1
)
_READS = {
    "#": (_FOUND + " and _r.isascii()", "len(_r)"),
    # `${#name[@]}`: an indexed array's count (elements.count_number_fn's)
    "#@": (_FOUND.replace("is str", "is IndexedArray"), "len(_r)"),
    "": (_FOUND + " and " + _DIGITS, "int(_r)"),
}

_ERREXIT = """\
            if {var} and not st.errexit_ignored:
{left16}                errexit_check({var})"""
# (a condition: `set -e` suspended while it runs, its failure reported so: cond_failed)
_COND_COLD = """\
    st.errexit_ignored += 1
    try:
        _c = _cond()
    finally:
        st.errexit_ignored -= 1"""

# at a check of the guard, when the body is written in with commands compiled while a `(( ))`
# text in them was not generated yet: the steps handed back once one is (see renewal)
RENEW = """\
if renew():
    loop.stop = _stop
    return -1 - _status"""

# the local a generated loop binds, as each run of it starts, to the innermost variable scope,
# which its written-in statements read (arithgen.statements' `scope`) rather than look it up
# each: that scope is the same object throughout the run (whatever a step runs that pushes one,
# a call or temporary bindings, pops it before it returns, and the shared evaluator's scopes are
# its store's list for its life)
SCOPE = "_t"

_WHILE = """\
def make(st, sh, ev, mode, rt, procs, finish, cmd_failed, cond_failed, errexit_check, again, renew, cond_node, body_node):
    def run(loop, _n, _stop, _cond, _body, _status):
        _t = ev.scopes[-1]
        try:
            while True:
                _n += 1
                if _n >= _stop:
                    _stop = loop.check(_n)
{again}
                try:
{cond}
                except LoopControl as e:
                    _end, _status = loop.tested(e, {until}, _status)
                    if _end:
                        break
                    continue
                finally:
                    if rt.reap:
                        reap(sh)
                if {stop}:
                    break
                try:
{body}
                except LoopControl as e:
                    _status = loop.caught(e)
                    if e.breaks:
                        break
        finally:
            loop.count = _n
        return _status
    return run
"""


def arith_text(cmd: A.Command) -> str | None:
    """The text of a `(( ))` command that a generated loop writes in (literal, not too long)."""
    if type(cmd) is A.ArithCmd:
        text = literal_arith(cmd.word)  # type: ignore[attr-defined]
        if text is not None and len(text) <= GEN_LONGEST:
            return text
    return None


def cond_text(node: A.While) -> str | None:
    """The text of a loop condition that is one such `(( ))` command, else None."""
    items = node.cond.items
    if len(items) == 1 and not items[0].background:
        return arith_text(items[0].cmd)
    return None


def body_texts(body: A.CommandList) -> tuple[str, ...]:
    """The texts of a body's top-level `(( ))` commands that a generated loop writes in."""
    return tuple(text for item in body.items if not item.background and (text := arith_text(item.cmd)))


def texts(node: A.While) -> tuple[str, ...]:
    """The `(( ))` texts a generated `while` loop would write in: its condition's and its body's."""
    cond = cond_text(node)
    return (cond, *body_texts(node.body)) if cond is not None else body_texts(node.body)


def ready(found: tuple[str, ...], n: int) -> bool:
    """Whether a loop with these texts, at its step `n`, is generated now: all its texts are, or
    it has waited long enough (WAIT_STEPS)."""
    return n >= WAIT_STEPS or all(generated_of(text) is not None for text in found)


class Writer:
    """The source lines of one generated loop and the constants they name."""

    def __init__(self, loop: bool = False) -> None:
        # a generated loop's (the innermost scope bound as it starts: SCOPE; no nested evaluation:
        # _NESTED), else a function body's
        self.loop = loop
        self.scope = SCOPE if loop else None
        self.namespace: dict[str, object] = dict(NAMESPACE)
        self.texts = 0  # (the texts' constants: a prefix each)
        self.codes = 0
        # `(( ))` texts not generated yet when the body's commands were compiled (see renewal)
        self.cold: tuple[str | Template, ...] = ()
        # `$(( ))` values' texts and templates not generated yet when the body was written
        # (renewal; a text's own compile noted it cold only if the body was compiled in a list)
        self.waiting: list[str | Template] = []
        self.inner: Body | None = None  # (the body's compound commands written in: funcgen.Body)

    def const(self, value: object) -> str:
        """A closure's name in the namespace."""
        self.codes += 1
        name = f"code{self.codes}"
        self.namespace[name] = value
        return name

    def arith(
        self,
        text: str,
        ind: int,
        line: int,
        cold: str,
        var: str,
        cond: bool,
        ends: tuple[bool, bool] = (False, False),
    ) -> list[str] | None:
        """`(( text ))` at `line` as statements at level `ind` setting its status in `var` (see
        _ARITH), `cold` running while the run is not plain; as a loop's condition when `cond`
        (`set -e` suspended); None when its statements are not generated (arithgen.statements)."""
        made = self.statements(text, 4)  # (at _ARITH's own level)
        if made is None:
            return None
        lines, value = made
        evaluate = _LITERAL.format(stmts="\n".join(lines), pad="    " * 4, var=var, value=value)
        return self.wrapped(evaluate, ind, line, cold, var, cond, ends)

    def statements(self, text: str, ind: int) -> tuple[list[str], str] | None:
        """A literal text's evaluation as statements at level `ind` (arithgen.statements, their
        constants added to the namespace) and the expression of its value after them, once the
        text is generated (arith.generated_of: hot); else None."""
        if generated_of(text) is None:
            return None
        try:
            node = parse_or_raise(text)
        except ArithError:
            return None
        from ..expand.arithgen import statements  # (as the text's own generation: only once hot)

        self.texts += 1
        made = statements(node, text, ind, f"a{self.texts}_", self.scope)
        if made is None:
            return None
        lines, value, namespace = made
        self.namespace.update(namespace)
        return lines, value

    def value(self, comp: Compiler, sub: A.ArithSub) -> str | None:
        """`$(( ))`'s evaluation (`x=$(( n + 1 ))`, `case $(( k % 3 )) in`) as statements at
        level 0 setting `_sr` to its number, with the shared evaluator `ev` free: a literal
        text's statements, or a template's evaluation (_TEMPLATE), once generated; else None."""
        text = literal_arith(sub.word)
        if text is None:
            return self.evaluation(comp, sub.word, "")
        if len(text) > GEN_LONGEST:
            return None
        made = self.statements(text, 0)
        if made is None:
            # (its closure is called meanwhile: a loop whose `(( ))` texts were hot before it ran,
            # generated at once, wrote it in only once renewed; pf-func34's CI failure)
            if generated_of(text) is None:
                self.waiting.append(text)
            return None
        lines, value = made
        return "\n".join([*lines, f"_sr = {value}"])

    def wrapped(
        self,
        evaluate: str,
        ind: int,
        line: int,
        cold: str,
        var: str,
        cond: bool,
        ends: tuple[bool, bool] = (False, False),
    ) -> list[str]:
        """_ARITH around `evaluate` (the lines at its level 4 that set `var`), at level `ind`.
        `ends`: whether it is the first and the last command of a `for ((;;))` body (_EMPTY)."""
        first, last = ends
        if last:  # (no `finally` to empty it: the statements one level out)
            evaluate = "\n".join(text[4:] for text in evaluate.splitlines())
        left = "" if not last else _LEFT
        filled = _ARITH.format(
            nested="" if self.loop else _NESTED,
            cold=(_EMPTY if first else "") + cold,
            line=line,
            enter=("" if first else _ENTER) + ("" if last else _TRY),
            evaluate=evaluate,
            leave="" if last else _LEAVE,
            left12=left and "            " + left,
            var=var,
            failed="cond_failed" if cond else "cmd_failed",
            after="" if cond else _ERREXIT.format(var=var, left16=left and "                " + left),
        )
        return block(filled, ind)

    def template(
        self,
        comp: Compiler,
        cmd: A.ArithCmd,
        ind: int,
        cold: str,
        var: str,
        ends: tuple[bool, bool] = (False, False),
    ) -> list[str] | None:
        """`(( ))` of a template (arithwords.word_template: `(( len += ${#t} ))`) as statements
        at level `ind` (see _TEMPLATE), once the template's function is generated; else None."""
        filled = self.evaluation(comp, cmd.word, f"{var} = 0 if _sr else 1")
        if filled is None:
            return None
        return self.wrapped("\n".join(block(filled, 4)), ind, cmd.line, cold, var, False, ends)

    def evaluation(self, comp: Compiler, word: A.Word, last: str) -> str | None:
        """A template's evaluation (_TEMPLATE) at level 0, its value in `_sr` and then `last`
        run, once the template's function is generated (else None; the template is then one the
        loop waits for: renewal); None also for a word that is not a template."""
        ex = comp.ev.expander
        made = word_template(ex, word)
        if made is None or len(word.text) > GEN_LONGEST:
            return None
        tpl, parts, names, quoted = made
        if not tpl.generated():
            self.waiting.append(tpl)  # (written in once it is: renewal)
            return None
        from ..expand.arithgen import statements  # (as the template's own generation: only once hot)

        self.texts += 1
        written = statements(tpl.tree, tpl.text, 2, f"a{self.texts}_", self.scope)  # type: ignore[arg-type]
        if written is None:
            return None
        lines, value, namespace = written
        self.namespace.update(namespace)
        return _TEMPLATE.format(
            reads=self.reads(parts, quoted),
            values=self.const(template_values(ex, made)),
            tpltext=self.const(tpl.text),
            stmts="\n".join(lines),
            value=value,
            renamed=self.const(partial(renamed, names=names)),
            last=last,
        )

    def reads(self, parts: tuple[A.Part, ...], quoted: tuple[bool, ...]) -> str:
        """The slots' values read in place into `_sv` when each is a `${#name}` or `$name` of a
        plain variable or a positional parameter `$1` (_READS, _POSITIONAL), else `_sv = None`."""
        slots = [p for p in parts if type(p) is not A.Lit]
        tests: list[tuple[str, str]] = []
        for p, q in zip(slots, quoted, strict=True):
            if q or type(p) is not A.Param:
                return "_sv = None"
            index = positional_index(p)
            if index:
                tests.append((_POSITIONAL.format(n=index), "int(_r)"))
                continue
            kind = p.prefix + ("@" if p.sub in ("@", "*") else "")
            if (
                (p.sub is not None and kind != "#@")
                or p.op is not None
                or p.names_suffix
                or kind not in _READS
                or not (p.name.isidentifier() and p.name.isascii())
                or p.name in NOT_PLAIN
            ):
                return "_sv = None"
            test, value = _READS[kind]
            tests.append((test.format(n=self.const(p.name)), value))
        out = ["_sv = None", "_sc = st.vars.scopes[-1]"]
        for i, (test, value) in enumerate(tests):
            out += block(f"if {test}:\n    _s{i} = {value}", i)
        out.append("    " * len(tests) + f"_sv = ({', '.join(f'_s{i}' for i in range(len(tests)))},)")
        return "\n".join(out)

    def body(self, comp: Compiler, body: A.CommandList, ind: int, kept: bool = False) -> list[str] | None:
        """A loop body's commands as statements at level `ind` setting `_status`: its `(( ))`
        commands written in, the others' closures called; None when none is written in. The
        texts left cold in what it compiled are `cold` (Compiler.cold, as Compiler.compiled).
        `kept` (a `for ((;;))` loop's): `sh.arith_cmd` is `((: ` as the body starts, emptied by
        its first command (_EMPTY), and the step sets it again after it."""
        out: list[str] = []
        inline = False
        outer = comp.cold
        comp.cold = []
        last = len(body.items) - 1
        try:
            for k, item in enumerate(body.items):
                cmd = item.cmd
                text = arith_text(cmd) if not item.background else None
                ends = (kept and k == 0, kept and k == last)
                if text is not None and generated_of(text) is not None:
                    cold = f"    _status = {self.const(comp.arith_cmd(cmd, fuse=False))}()"  # type: ignore[arg-type]
                    lines = self.arith(text, ind, cmd.line, cold, "_status", False, ends)
                    if lines is not None:
                        out += lines
                        inline = True
                        continue
                elif text is None and type(cmd) is A.ArithCmd and not item.background:
                    cold = f"    _status = {self.const(comp.arith_cmd(cmd, fuse=False))}()"
                    lines = self.template(comp, cmd, ind, cold, "_status", ends)
                    if lines is not None:
                        out += lines
                        inline = True
                        continue
                if ends[0]:
                    out += block(_EMPTY, ind - 1)
                if type(cmd) in _COMPOUND and not item.background:
                    out += self.compound(comp, item, ind)
                    inline = True
                    continue
                mark = comp.returns
                code = comp.item(item)
                returns = comp.returns != mark
                comp.returns = mark
                shape = comp.shapes.get(code) if not item.background else None
                if shape is not None and shape[0][0] == "call":
                    out += self.call(comp, code, shape, ind)
                    inline = True
                    continue
                if shape is not None or (not item.background and code in comp.tests):
                    # an assignment, `local`, `return` or test: its text as a body writes it
                    out += self.compound(comp, item, ind, (code, returns))
                    inline = True
                    continue
                out.append("    " * ind + f"_status = {self.const(code)}()")
                if returns:  # (a `return`: compiler.returned, raised as the compiled list does)
                    out += block("if _status < 0:\n    raise ReturnFromFunction(-1 - _status)", ind)
        finally:
            self.cold = tuple(dict.fromkeys([*comp.cold, *self.waiting]))
            comp.cold = outer
        return out if inline else None

    def compound(
        self, comp: Compiler, item: A.ListItem, ind: int, made: tuple[Code, bool] | None = None
    ) -> list[str]:
        """An `if`, `case`, `{ }` or `&&`/`||` command as statements at level `ind` setting
        `_status`, written as a generated function body writes it (funcgen.Body: its commands
        written in likewise, or their closures called where they cannot be), a `return` in it
        raised as the loop's closures raise it. `made`: a simple command compiled already (its
        code and whether it can return), written from its step's or test's text."""
        body = self.inner
        if body is None:
            from . import casegen

            body = self.inner = comp.body_writer(self)  # (funcgen.Body: funcgen imports this module)
            ex = comp.ev.ex
            self.namespace.update(STEP_NAMESPACE, ex=ex, expander=ex.expander, maybe_glob=maybe_glob)
            self.namespace.update(casegen.names(comp))
        body.gen.lines = []
        ends = (
            body.command(item, ind, False)
            if made is None
            else body.written(made[0], False, made[1], ind, False)
        )
        lines = ["    " * ind + "b = rt.budget", *body.gen.lines, "    " * ind + "_status = s"]
        if ends:
            lines += block("if s < 0:\n    raise ReturnFromFunction(-1 - s)", ind)
        return lines

    def call(self, comp: Compiler, code: Code, shape: Shape, ind: int) -> list[str]:
        """A call of a function by its literal name (steps._call) as statements at level `ind`
        setting `_status`: the step's text, as its closure runs it, after the same run-mode test
        (not plain: the closure itself, which takes its own slow exit)."""
        key, values = shape
        step = make_step(key, inline=True)
        fill = {
            h: str(v) if type(v) is int else self.const(v) for h, v in ((h, values[h]) for h in step.holes)
        }
        if "ex" not in self.namespace:  # (what a step's text names: funcgen's namespace holds them too)
            ex = comp.ev.ex
            self.namespace.update(STEP_NAMESPACE, ex=ex, expander=ex.expander)
        head = f"if not mode.plain:\n    _status = {self.const(code)}()\nelse:"
        return block(head, ind) + block(f"b = rt.budget\n{step.source(fill)}_status = s", ind + 1)


# the commands a loop's body writes in as a generated function body does (Writer.compound)
_COMPOUND = (A.If, A.Case, A.Group, A.AndOr)


def block(text: str, ind: int) -> list[str]:
    """`text`'s lines at level `ind`."""
    pad = "    " * ind
    return [pad + line if line else line for line in text.splitlines()]


def renewal(cache: dict[int, object], key: int, cold: tuple[str | Template, ...]) -> Callable[[], bool]:
    """The `renew` of a generated loop whose body was written in while the `(( ))` texts `cold`
    were not generated (commands that would be compiled again once one is, Compiler.compiled):
    asked at each check of the guard, one text a time in turn, True once that one is; the loop
    is then forgotten in `cache` under `key` (asked for again, generated again at its next check)
    and the generated steps hand back (RENEW)."""
    turn = 0

    def renew() -> bool:
        nonlocal turn
        text = cold[turn % len(cold)]
        turn += 1
        if not generated_now(text):
            return False
        cache.pop(key, None)
        return True

    return renew


def never() -> bool:
    """The `renew` of a loop with no cold text."""
    return False


def while_source(
    comp: Compiler, node: A.While
) -> tuple[str, dict[str, object], tuple[str | Template, ...]] | None:
    """The factory's source for a `while`/`until` loop's steps, its namespace and the texts left
    cold in its body (see renewal), or None when none of its `(( ))` commands is written in."""
    w = Writer(loop=True)
    ind = 5  # (the level of the condition's and the body's statements in _WHILE)
    text = cond_text(node)
    cond = None
    if text is not None:
        cond = w.arith(text, ind, node.cond.items[0].cmd.line, _COND_COLD, "_c", True)  # type: ignore[attr-defined]
    body = w.body(comp, node.body, ind)
    if cond is None and body is None:
        return None
    again = []
    if cond is None:
        cond = block(_COND_COLD, ind - 1)
        again.append("_cond = again(cond_node, _cond)")
    if body is None:
        body = ["    " * ind + "_status = _body()"]
        again.append("_body = again(body_node, _body)")
    if w.cold:  # (a body left a closure because its only command's template was cold waits too)
        again += RENEW.splitlines()
    source = _WHILE.format(
        again="\n".join(block("\n".join(again or ["pass"]), 5)),
        cond="\n".join(cond),
        stop="not _c" if node.until else "_c",
        until=node.until,
        body="\n".join(body),
    )
    return source, w.namespace, w.cold


def while_loop(comp: Compiler, node: A.While, budget: int) -> Run | None:
    """The loop's steps as one function for `comp`'s shell (see the module's docstring); None
    when none of its `(( ))` commands is written in or the source would take `comp` past
    `budget` characters of generated source (funcgen.GEN_CHARS). The function returns the
    loop's status, or `-1 - status` when it hands back (RENEW) at the step in `loop.count`."""
    made = while_source(comp, node)
    if made is None or comp.generated + len(made[0]) > budget:
        return None
    source, namespace, cold = made
    comp.generated += len(source)
    factory: Callable[..., Run] = function_of(source, FILE, "make", namespace)
    ev = comp.ev
    st = ev.state

    def cond_failed(e: ArithError | ExpansionError) -> int:
        st.errexit_ignored += 1  # (a condition's failure: no `set -e`, no ERR trap)
        try:
            return ev.arith_cmd_failed(e)
        finally:
            st.errexit_ignored -= 1

    return factory(
        st,
        ev.sh,
        ev.sh._arith,
        st.run_mode,
        ev.sh.rt,
        ev.pr.procsubs,
        ev.pr.finish_procsubs,
        ev.arith_cmd_failed,
        cond_failed,
        ev.errexit_check,
        ev.body_again,
        renewal(comp.whiles, id(node), cold) if cold else never,  # type: ignore[arg-type]
        node.cond,
        node.body,
    )
