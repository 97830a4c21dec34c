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
- a command made from a step (steps.py: `local NAME[=WORD]...`, `NAME=WORD` alone; Compiler.shapes
  holds its key and its holes' values) is written out inline: the step's text, the very text its
  closure was compiled from, with its holes named as constants of the body; the run's runtime and
  budget are read once a call (steps.RUNTIME), the budget still charged at every command;
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

from ..syntax import ast as A
from ..textcache import function_of
from .steps import NAMESPACE, RUNTIME, SHELL, VALUE_FN, VALUE_LOCAL, make_step

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .compiler import Code, Compiler

BODY_HOT = 64  # calls of a body's compiled code before it is generated (Compiler.function_body)
MAX_ITEMS = 32  # commands of a body's top-level list
GEN_CHARS = 1 << 18  # characters of generated source a Compiler may make (about 2 MB of code)


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
    gen = _Gen()
    gen.emit(RUNTIME, 4)  # (once a call: steps.RUNTIME)
    declared: set[str] = set()  # (names an inline `local` before made)
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
        else:
            # the step's text, as its closure runs it, after the same run-mode test: not plain,
            # the closure itself, which takes its own slow exit
            key, values = shape
            step = make_step(_reading_locals(key, values, declared), inline=True)
            gen.emit(f"    if not mode.plain:\n        s = {c}()\n    else:")
            gen.emit(step.source({h: gen.hole(values[h]) for h in step.holes}), 8)
            if key[0] == "local":
                declared.add(values["name"])  # type: ignore[arg-type]
            elif key[0] == "locals":
                declared.update(values["names"])  # type: ignore[arg-type]
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
    shell = (st.run_mode, st, ex.sh, ex, ex.expander, ex.pr.procsubs)  # (steps.SHELL)
    namespace: dict[str, object] = {**NAMESPACE, **dict(zip(SHELL, shell)), **gen.consts}  # noqa: B905
    return function_of(source, "<funcgen>", "body", namespace)


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
