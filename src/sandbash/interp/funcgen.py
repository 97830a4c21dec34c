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
- a command of a shape listed in Compiler.shapes (`local NAME[=WORD]` of one checked name,
  `NAME=WORD` alone) is written out inline: its closure's plain path, with the value of a word
  that is one positional parameter (`$1`, `"$2"`) read in place, and the body's budget looked
  up once;
- any other command calls its own closure, as the sequence would.

Every inline statement first tests the run mode, as its closure does first: when the shell is not
running plainly (set -x, a DEBUG trap, a queued signal, gates, ...) the statement is its closure,
which takes its own slow exit, at that point of the body and with nothing of the statement done.
What the inline code does not handle itself (a value that is not a short plain string, a name the
store declines) goes to the same helpers the closure calls, so the two cannot differ.

The source is made from the syntax tree only: every script-derived value (names, line numbers,
commands, closures) is a constant of the function's namespace (`c0`, `c1`, ...), never source
text. The namespace holds the shell's own objects, so the function belongs to that shell's
Compiler (one per run and subshell) and is never shared. A body of more than MAX_ITEMS commands,
or one whose source would pass the Compiler's GEN_CHARS budget, keeps its closures.
`SANDBASH_NO_FUNCGEN=1` (sandbash.switches) turns this tier off alone, for comparison."""

from __future__ import annotations

from ..expand.arith import ArithError
from ..expand.arithops import remember
from ..expand.env import ExpansionError
from ..expand.segments import CHARGE_FROM
from ..expand.words import ARGV_HELD_MIN
from ..syntax import ast as A
from .state import ONE_STATUS
from .variables import AssignError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from .compiler import Code, Compiler

    # (compiler._local_argv: `local`'s words to the builtin, handed in by the compiler, which
    # imports this module when a body is hot: this module is below it, as fastbuiltins is)
    LocalArgv = Callable[..., int]

BODY_HOT = 64  # calls of a body's compiled code before it is generated (Compiler.function_body)
MAX_ITEMS = 32  # commands of a body's top-level list
GEN_CHARS = 1 << 18  # characters of generated source a Compiler may make (about 2 MB of code)

# the prologue every inline statement opens with: what the closure does before its own work
# (its run-mode test first: not plain, the closure itself, which takes its slow exit)
_PROLOGUE = """\
    if not mode.plain:
        s = {code}()
    else:
        st.line = {line}
        if not st.in_trap:
            sh.current_command = {cmd}
        rt = sh.rt
        b = rt.budget
        b.commands += 1
        if b.commands >= b.command_stop:
            b.command_slow()
        ex.last_cmdsub_status = None
        mark = len(procs) if procs else 0
"""


class _Gen:
    """The source lines of one body and the constants they name."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.consts: dict[str, object] = {}
        self._names: dict[int, str] = {}  # (by id: the values are held in consts)

    def const(self, value: object) -> str:
        """The name of `value` in the namespace (one name for one object)."""
        name = self._names.get(id(value))
        if name is None:
            name = self._names[id(value)] = f"c{len(self.consts)}"
            self.consts[name] = value
        return name

    def emit(self, text: str, indent: int = 0) -> None:
        pad = " " * indent
        self.lines.extend(pad + line for line in text.splitlines())


def generate(comp: Compiler, node: A.CommandList, local_argv: LocalArgv) -> Code | None:
    """The generated function for a function body's command list (None: too large, over the
    budget, or a list of one command, which the sequence does not wrap). Its `return` gives a
    returned status, as Compiler.function_body's code does."""
    items = node.items
    if len(items) < 2 or len(items) > MAX_ITEMS:
        return None
    ev = comp.ev
    gen = _Gen()
    last = len(items) - 1
    for i, item in enumerate(items):
        mark = comp.returns
        code = comp.item(item)
        returns = comp.returns != mark
        comp.returns = mark
        shape = comp.shapes.get(code) if not item.background else None
        c = gen.const(code)
        if shape is None:
            if i == last:
                gen.emit(f"    return {c}()")
                continue
            gen.emit(f"    s = {c}()")
        elif shape[0] == "local":
            _local(gen, c, shape)
        elif shape[0] == "locals":
            _locals(gen, c, shape)
        else:
            _scalar(gen, c, shape)
        if i == last:
            gen.emit("    return s")
        elif returns:
            gen.emit("    if s < 0:\n        return s")  # a `return` (compiler.returned)
    source = "def body():\n" + "\n".join(gen.lines) + "\n"
    if comp.generated + len(source) > GEN_CHARS:
        return None
    comp.generated += len(source)
    ex = ev.ex
    st = ex.state
    namespace: dict[str, object] = {
        "mode": st.run_mode,  # (never another: the state's own, see runmode.py)
        "st": st,
        "sh": ex.sh,
        "ex": ex,
        "procs": ex.pr.procsubs,
        "expander": ex.expander,
        "_ZERO": ONE_STATUS[0],  # (PIPESTATUS of a command of status 0, as compiler._ZERO)
        "_local_argv": local_argv,
        "remember": remember,
        "ExpansionError": ExpansionError,
        "ArithError": ArithError,
        "AssignError": AssignError,
        **gen.consts,
    }
    exec(compile(source, "<funcgen>", "exec"), namespace)
    return namespace["body"]  # type: ignore[return-value]


def _value(gen: _Gen, fn: object, word: A.Word | None, indent: int, v: str = "v") -> None:
    """`v = ` (or the name `v`) the value of an assignment's word (`fn`: its value_fn): a positional parameter's
    plain text up to CHARGE_FROM read in place (param_fn's positional_text), else `fn`."""
    f = gen.const(fn)
    index = _positional(word)
    if index is None:
        gen.emit(f"{v} = {f}()", indent)
        return
    gen.emit(
        f"pos = st.positional\n"
        f"if len(pos) >= {index} and type({v} := pos[{index - 1}]) is str and len({v}) <= {CHARGE_FROM}:\n"
        f"    pass\n"
        f"else:\n"
        f"    {v} = {f}()",
        indent,
    )


def _positional(word: A.Word | None) -> int | None:
    """N when the word is `$N` or `"$N"` (1-9, no operator): what param_fn plans as a positional
    index (fastparam.py) for a whole value."""
    if word is None or len(word.parts) != 1:
        return None
    p = word.parts[0]
    if type(p) is A.DQ and len(p.parts) == 1:
        p = p.parts[0]
    if type(p) is not A.Param or p.op is not None or p.sub is not None or p.prefix or p.names_suffix:
        return None
    name = p.name
    return int(name) if len(name) == 1 and "1" <= name <= "9" else None


def _local(gen: _Gen, c: str, shape: tuple[object, ...]) -> None:
    """Compiler._local_one's plain path, inline."""
    _, cmd, name, fn, word = shape
    assert isinstance(name, str)
    line = cmd.line  # type: ignore[attr-defined]
    n = gen.const(name)
    gen.emit(_PROLOGUE.format(code=c, line=line, cmd=gen.const(cmd)))
    gen.emit("expander.begin_argv()", 8)
    if fn is None:
        gen.emit("v = None", 8)
    else:
        gen.emit("try:", 8)
        _value(gen, fn, word, 12)  # type: ignore[arg-type]
        gen.emit(
            "except (ExpansionError, ArithError, AssignError) as e:\n"
            "    s = ex.words_failed(e, mark)\n"
            "else:\n"
            "    if len(v) > rt.limits.max_string_length:\n"
            "        sh.check_string(len(v))",
            8,
        )
    last_arg = n if fn is None else n + " + '=' + v"  # (run_argv: $_)
    declare = _declare(
        "rt.limits.max_arguments <= 1",
        f"st.vars.declare_local({n}, v)",
        f"s = _local_argv(ex, {gen.const(cmd)}, [({n}, v)], mark)",
        last_arg,
    )
    gen.emit("if " + declare, 8 if fn is None else 12)


def _declare(count: str, declare: str, general: str, last_arg: str) -> str:
    """The end of a `local`'s plain path (after `if `): the closures' tests of what sends it to
    the builtin (`count`: of the argument count), `declare` the names, else `general`; then
    $_ (`last_arg`), the process substitutions and the status, as _local_one and _local_many."""
    return (
        f"(\n"
        f"    st.opts['allexport']\n"
        f"    or st.shopts['localvar_inherit']\n"
        f"    or expander._arg_bytes >= {ARGV_HELD_MIN}\n"
        f"    or {count}\n"
        f"    or 'local' in st.functions\n"
        f"    or 'local' in st.disabled_builtins\n"
        f"    or not {declare}\n"
        f"):\n"
        f"    {general}\n"
        f"else:\n"
        f"    st.last_arg = {last_arg}\n"
        f"    if procs and len(procs) > mark:\n"
        f"        ex.pr.finish_procsubs(mark)\n"
        f"    st.last_status = 0\n"
        f"    st.pipestatus = _ZERO\n"
        f"    s = 0"
    )


def _scalar(gen: _Gen, c: str, shape: tuple[object, ...]) -> None:
    """Compiler.scalar's plain path, inline."""
    _, cmd, name, append, store, set_var, assign_fn, fn, word = shape
    gen.emit(_PROLOGUE.format(code=c, line=cmd.line, cmd=gen.const(cmd)))  # type: ignore[attr-defined]
    n = gen.const(name)
    gen.emit("try:", 8)
    if assign_fn is None:
        _value(gen, fn, word, 12)  # type: ignore[arg-type]
        store_v = f"{gen.const(set_var)}({n}, v, append={append!r})"
        if store is not None:  # (a name not special: store_plain first, as the closure)
            store_v = f"if not {gen.const(store)}({n}, v, {append!r}):\n    {store_v}"
        gen.emit(store_v, 12)
    else:
        # (`name=$(( text ))`: Shell.arith_assign_fn's function stores it, or gives the number)
        gen.emit(
            f"number = {gen.const(assign_fn)}()\n"
            f"if number is not None:\n"
            f"    v = str(number)\n"
            f"    remember(v, number)\n"
            f"    if not {gen.const(store)}({n}, v, False):\n"
            f"        {gen.const(set_var)}({n}, v)",
            12,
        )
    gen.emit(
        "except (ExpansionError, ArithError, AssignError) as e:\n"
        "    s = ex.assign_failed(e)\n"
        "else:\n"
        "    if ex.last_cmdsub_status or (procs and len(procs) > mark):\n"
        "        s = ex.assigned(mark)\n"
        "    else:\n"
        "        st.last_arg = ''\n"
        "        st.last_status = 0\n"
        "        st.pipestatus = _ZERO\n"
        "        s = 0",
        8,
    )


def _locals(gen: _Gen, c: str, shape: tuple[object, ...]) -> None:
    """Compiler._local_many's plain path for checked names (VarStore.declare_each), inline:
    every value expanded before any name is made."""
    _, cmd, names, fns, words = shape
    assert isinstance(names, tuple) and isinstance(fns, tuple) and isinstance(words, tuple)
    gen.emit(_PROLOGUE.format(code=c, line=cmd.line, cmd=gen.const(cmd)))  # type: ignore[attr-defined]
    gen.emit("expander.begin_argv()\nlimits = rt.limits", 8)
    values = [f"v{k}" if fn is not None else "None" for k, fn in enumerate(fns)]
    pairs = f"list(zip({gen.const(names)}, values))"
    general = f"s = _local_argv(ex, {gen.const(cmd)}, {pairs}, mark)"
    indent = 8
    if any(fns):
        gen.emit("try:", 8)
        for k, fn in enumerate(fns):
            if fn is not None:
                _value(gen, fn, words[k], 12, f"v{k}")
        texts = [v for v in values if v != "None"]
        longest = f"len({texts[0]})" if len(texts) == 1 else f"max({', '.join(f'len({v})' for v in texts)})"
        gen.emit(
            f"except (ExpansionError, ArithError, AssignError) as e:\n"
            f"    s = ex.words_failed(e, mark)\n"
            f"else:\n"
            f"    values = ({', '.join(values)},)\n"
            f"    if {longest} > limits.max_string_length:\n"
            f"        {general}",
            8,
        )
        keyword, indent = "elif ", 12  # (after the length's test)
    else:
        gen.emit(f"values = {gen.const((None,) * len(names))}", 8)
        keyword, indent = "if ", 8
    last = gen.const(names[-1])
    last_arg = last if values[-1] == "None" else f"{last} + '=' + {values[-1]}"  # (run_argv: $_)
    declare = f"st.vars.declare_each({gen.const(names)}, values)"
    gen.emit(keyword + _declare(f"{len(names)} >= limits.max_arguments", declare, general, last_arg), indent)
