"""The plain paths of the commands a hot function body writes out inline, described once.

`local NAME[=WORD]...` of checked names, `NAME=WORD` alone and a call by a literal name that is
no builtin's (`f "$x"`: its words, the function looked up as it runs, call_function) are compiled
into closures
(compiler.py) and, in a hot function body, written out as statements of one generated function
(funcgen.py). Both are made here from one Step: Python source text with holes. compiler.py gets
the closure from the Step's factory (the text compiled once per Step into a function that takes
the holes' values as parameters, so each closure holds them as cells); funcgen.py writes the same
text into the body with each hole a constant of the body's namespace. A change to what such a
command does is made here, once, for both.

The text of a Step depends only on its key (the kind and a few flags decided from the syntax tree),
never on a script's text: a hole is filled with a name, either a parameter of the factory or a
namespace constant (`c3`) made by funcgen, or with an int (a line, a positional index). Every
Step's text runs after the run-mode test its caller makes (not plain: the slow way, with nothing
done), between the command's start and its status in `s`."""

from __future__ import annotations

from ..expand.arith import ArithError
from ..expand.arithops import MAX_DIGITS, remember
from ..expand.env import ExpansionError
from ..expand.segments import CHARGE_FROM
from ..expand.words import ARGV_HELD_MIN
from ..shvars.vars import (
    EXPORT,
    NAMEREF,
    TWO_GRAINS,
    VAR_OVERHEAD,
    AssignArg,
    Scope,
    Var,
    _found_below,
    valid_name,
)
from ..syntax import ast as A
from ..textcache import function_of
from .calls import (
    _NO_SOURCE,
    _UNDONE,
    SITE_CALL,
    SITE_TEST,
    _special_done,
    call_failed,
    call_function,
    direct_call,
    traps_after,
)
from .control import ReturnFromFunction
from .state import ONE_STATUS
from .variables import NOT_PLAIN, AssignError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from .executor import Executor
    from .state import ShellState

    Code = Callable[[], int]

# the shell's own objects a Step's text names: a factory's first parameters, and names of a
# generated body's namespace (funcgen)
SHELL = ("mode", "st", "sh", "ex", "expander", "procs")

# how a value is read: VALUE_FN its word's function (stringfn.value_fn), VALUE_POSITIONAL a
# positional parameter's plain text read in place (`$1`, `"$2"`: param_fn's positional_text)
VALUE_FN = "fn"
VALUE_POSITIONAL = "pos"
# (a generated body's only: funcgen.py) `$name` or `"$name"` of a name a preceding inline `local`
# of the body made, read in place from the function's scope while it is there, plain and short
VALUE_LOCAL = "local"
# (a generated body's only: funcgen.py) one `$(( ))` (`x=$((n + 1))`, `local r=$(( $1 % 3 ))`),
# evaluated by the text's statements written in by the body at the line ARITH_LINE (+ the value's
# index), which set `_sr` to the number, while the shared evaluator `ev` is free; in a nested
# evaluation (`ev.depth`), the value's function, as the closure evaluates it
VALUE_ARITH = "arith"
ARITH_LINE = "#arith"

# what starts every command in a Step, before its own work (the closures' prologue: $LINENO,
# $BASH_COMMAND, the command budget, the process substitutions open before it). RUNTIME reads the
# run's runtime and budget: per command in a closure, once per call in a generated body (the
# shell's runtime is never replaced while a function of it runs: Runtime.bind_run is per run)
RUNTIME = "rt = sh.rt\nb = rt.budget\n"
START = """\
st.line = {line}
if not st.in_trap:
    sh.current_command = {cmd}
b.commands += 1
if b.commands >= b.command_stop:
    b.command_slow()
ex.last_cmdsub_status = None
mark = len(procs) if procs else 0
"""

# a command's words about to be expanded (Expander.begin_argv, inline): they count afresh, and what
# the last command's large expansions held is given back
BEGIN_ARGV = "expander._arg_bytes = 0\nif expander._held:\n    expander.give_back_fields()\n"


def _traced(st: ShellState) -> bool:
    """Whether a DEBUG trap, `set -x` or `set -n` makes a compound command that is not plain
    (RunMode: what else it can be, gates, args, `set -k`, a signal, leaves `(( ))` and `case`
    here) take the walker's way."""
    opts = st.opts
    return bool(st.run_mode.debug or opts["xtrace"] or opts["noexec"])


def assignment_changed(st: ShellState) -> bool:
    """As _traced, for assignments alone, which a signal queued for the shell also sends the
    general way (exec_simple acts on it first)."""
    return _traced(st) or st.run_mode.signal


def local_argv(ex: Executor, cmd: A.SimpleCommand, pairs: list[tuple[str, str | None]], mark: int) -> int:
    """`local`'s expanded words as the builtin takes them (what compiler._assign_step makes), run
    the general way."""
    argv: list[str] = ["local"]
    for name, value in pairs:
        argv.append(
            name if value is None else AssignArg.make(name + "=" + value, name, None, False, value, None)
        )
    if len(argv) > ex.sh.rt.limits.max_arguments:
        ex.expander.end_argv(argv)
    return ex.run_argv(cmd, argv, None, None, mark)


# what a Step's text names besides the shell's objects and its holes: process-wide constants and
# functions only (a factory and a generated body share them; nothing of a run)
NAMESPACE: dict[str, object] = {
    "_ZERO": ONE_STATUS[0],  # (PIPESTATUS of a command of status 0)
    "ONE_STATUS": ONE_STATUS,
    "ARGV_HELD_MIN": ARGV_HELD_MIN,
    "CHARGE_FROM": CHARGE_FROM,
    "MAX_DIGITS": MAX_DIGITS,
    "local_argv": local_argv,
    "assignment_changed": assignment_changed,
    "remember": remember,
    "ExpansionError": ExpansionError,
    "ArithError": ArithError,
    "AssignError": AssignError,
    "Var": Var,
    "new_var": object.__new__,  # (as VarStore.declare_local: Var() through __init__ costs twice as much)
    "bind": dict.setdefault,  # (a name already in the store's local_names: Scope's own method adds it)
    "found_below": _found_below,
    "EXPORT": EXPORT,
    "NAMEREF": NAMEREF,
    "NOT_EXPORT": ~EXPORT,
    "VAR_OVERHEAD": VAR_OVERHEAD,
    "TWO_GRAINS": TWO_GRAINS,
    "call_function": call_function,
    "direct_call": direct_call,
    "call_failed": call_failed,
    "traps_after": traps_after,
    "special_done": _special_done,
    "ReturnFromFunction": ReturnFromFunction,
    "NO_SOURCE": _NO_SOURCE,
    "UNDONE": _UNDONE,
    "Scope": Scope,
}

_MAKERS_MAX = 256  # factories kept (one per key; past it the table starts again)
# a closure's scalar stores write store_plain's common case out (make_step's `inline`); the tests
# that compare the short path with set_var's general way turn it off (clearing _MAKERS)
CLOSURE_STORES_INLINE = True
_UNROLL = 4  # names of a checked `local` made one by one inline (more: VarStore.declare_each)


class Step:
    """One kind of command's plain path as text (`text`, after START) with `holes`, made by
    key() from its flags. `guard`: what the closure adds to `not mode.plain` before taking the
    slow way (an assignment's: assignment_changed)."""

    __slots__ = ("name", "text", "holes", "guard")

    def __init__(self, name: str, text: str, holes: tuple[str, ...], guard: str = "") -> None:
        self.name = name
        self.text = text
        self.holes = ("line", "cmd", *holes)
        self.guard = guard

    def source(self, fill: dict[str, str]) -> str:
        """The Step's statements (START, then its text) with each hole named as `fill` says."""
        return (START + self.text).format(**fill)

    def factory(self) -> Callable[..., Code]:
        """The function that makes this Step's closure from the shell's objects, the slow way and
        the holes' values (compiled once per key: _MAKERS)."""
        params = ", ".join((*SHELL, "slow", *(f"k_{h}" for h in self.holes)))
        body = _indent(RUNTIME + self.source({h: f"k_{h}" for h in self.holes}), 8)
        source = (
            f"def make({params}):\n"
            f"    def {self.name}():\n"
            f"        if not mode.plain{self.guard}:\n"
            f"            return slow()\n"
            f"{body}"
            f"        return s\n"
            f"    return {self.name}\n"
        )
        return function_of(source, "<steps>", "make", dict(NAMESPACE))


_MAKERS: dict[tuple[object, ...], tuple[Step, Callable[..., Code]]] = {}


def closure(ex: Executor, key: tuple[object, ...], slow: Code, values: dict[str, object]) -> Code:
    """The closure of the Step `key` names, with its holes' `values` (compiler.py)."""
    made = _MAKERS.get(key)
    if made is None:
        inline = CLOSURE_STORES_INLINE
        step = make_step(key, inline=inline and key[0] == "scalar", closure=inline)
        made = (step, step.factory())
        if len(_MAKERS) >= _MAKERS_MAX:
            _MAKERS.clear()
        _MAKERS[key] = made
    step, factory = made
    st = ex.state
    shell = (st.run_mode, st, ex.sh, ex, ex.expander, ex.pr.procsubs)
    return factory(*shell, slow, *(values[h] for h in step.holes))


def _indent(text: str, n: int) -> str:
    pad = " " * n
    return "".join(pad + line + "\n" for line in text.splitlines())


def make_step(key: tuple[object, ...], inline: bool = False, closure: bool = False) -> Step:
    """The Step of `key`: ("local", value), ("locals", checked, values...), ("scalar", value,
    store, append), ("arith",), ("return", dollar) or ("call", argv, plain), where a value is None (no value), VALUE_FN
    or VALUE_POSITIONAL (a generated body's also VALUE_LOCAL and VALUE_ARITH).
    `inline` (a generated body's, funcgen; a closure's for a scalar): the common case of
    VarStore.declare_local and of Variables.store_plain written out before the call to them, for
    a name known now. `closure` (compiler.py's closures): an arith step's store written out too
    (`x=$(( ... ))`). A `local` closure calls declare_local; the tree walker calls the methods
    (and so the spec tables, run compiled and with SANDBASH_TREE_WALKER=1, compare the
    written-out common cases with the methods)."""
    kind = key[0]
    if kind == "local":
        return _local_one(key[1], inline)  # type: ignore[arg-type]
    if kind == "locals":
        return _local_many(bool(key[1]), key[2:], inline)  # type: ignore[arg-type]
    if kind == "scalar":
        return _scalar(key[1], bool(key[2]), bool(key[3]), inline)  # type: ignore[arg-type]
    if kind == "arith":
        return _arith_scalar(closure)
    if kind == "return":
        return _return(bool(key[1]))
    if kind == "call":
        return _call(key[1], bool(key[2]), inline)  # type: ignore[arg-type]
    raise ValueError(f"no step {kind!r}")


def _value(v: str, how: str, k: str = "") -> tuple[str, tuple[str, ...]]:
    """The statements that set `v` to a value read `how`, and their holes (`fn{k}`, `index{k}`)."""
    if how == VALUE_FN:
        return f"{v} = {{fn{k}}}()\n", (f"fn{k}",)
    if how == VALUE_LOCAL:
        # (what param_fn's value() gives for a variable of the innermost scope, which its lookup
        # finds first: no reference to follow, a string; the name is not special, plain_name)
        return (
            f"var = st.vars.scopes[-1].get({{ref{k}}})\n"
            f"if var is not None and not var.attrs & NAMEREF and type({v} := var.value) is str and len({v}) <= CHARGE_FROM:\n"
            f"    pass\n"
            f"else:\n"
            f"    {v} = {{fn{k}}}()\n"
        ), (f"fn{k}", f"ref{k}")
    if how == VALUE_ARITH:
        # (the number's text remembered as text_fn remembers it: read back without parsing)
        return (
            f"if ev.depth:\n"
            f"    {v} = {{fn{k}}}()\n"
            f"else:\n"
            f"    {ARITH_LINE}{k}\n"
            f"    {v} = str(_sr)\n"
            f"    remember({v}, _sr)\n"
        ), (f"fn{k}",)
    assert how == VALUE_POSITIONAL
    return (
        f"pos = st.positional\n"
        f"if len(pos) >= {{index{k}}} and type({v} := pos[{{index{k}}} - 1]) is str and len({v}) <= CHARGE_FROM:\n"
        f"    pass\n"
        f"else:\n"
        f"    {v} = {{fn{k}}}()\n"
    ), (f"fn{k}", f"index{k}")


def _declared(count: str, declare: str, general: str, last_arg: str) -> str:
    """The end of a `local`'s plain path: the tests of what sends it to the builtin (`count`: of
    the argument count), `declare` (statements setting `ok`: the names made) else `general`; then
    $_ (`last_arg`, as run_argv sets it), the process substitutions and the status."""
    return (
        f"if (\n"
        f"    mode.local_why  # (set -a, localvar_inherit, a function `local`, the builtin off: RunMode)\n"
        f"    or expander._arg_bytes >= ARGV_HELD_MIN  # (Expander.argv_held's test, inline)\n"
        f"    or {count}\n"
        f"):\n"
        f"    s = {general}\n"
        f"else:\n"
        f"{_indent(declare, 4)}"
        f"    if not ok:\n"
        f"        s = {general}\n"
        f"    else:\n"
        f"        st.last_arg = {last_arg}\n"
        f"        if procs and len(procs) > mark:\n"
        f"            ex.pr.finish_procsubs(mark)\n"
        f"        st.last_status = 0\n"
        f"        st.pipestatus = _ZERO\n"
        f"        s = 0\n"
    )


def _declare_one(name: str, v: str, inline: bool) -> str:
    """Statements making the local `name` (a hole) with the value `v` (a variable, or None), as
    VarStore.declare_local does, setting `ok`: `inline`, its common case written out (a new plain
    local of the current function, within the memory already charged), anything else
    declare_local itself."""
    if not inline:
        return f"ok = st.vars.declare_local({name}, {v})\n"
    none = v == "None"
    size = "VAR_OVERHEAD" if none else f"VAR_OVERHEAD + (len({v}) if {v}.isascii() else 4 * len({v}))"
    # (no value: a temporary binding of the call's to inherit is declare_local's)
    # (with the globals and this scope alone, nothing is below: temp_below walks from this scope,
    # which does not hold the name, down to the globals, which it never looks at. The caller's
    # scope holding the name as no temporary binding, a recursion's `local left`, is the first
    # temp_below finds: none to inherit, without its walk)
    below = (
        f"\n    and not (\n"
        f"        len(scopes) > 2\n"
        f"        and {name} in vs.local_names\n"
        f"        and ((up := scopes[-2]).get({name}) is None or up.temp or up.tempvars is not None)\n"
        f"        and vs.temp_below({name}) is not None\n"
        f"    )"
        if none
        else ""
    )
    return (
        f"vs = st.vars\n"
        f"scopes = vs.scopes\n"
        f"scope = scopes[-1]\n"
        f"acct = vs.acct\n"
        f"n = {size}\n"
        f"if (\n"
        f"    scope.func\n"
        f"    and {name} not in scope\n"
        f"    and {name} not in vs.readonly_names{below}\n"
        f"    and acct.held + n <= acct.charged\n"
        f"):\n"
        f"    acct.held += n  # (max_memory before storing: within what is charged already)\n"
        f"    scope.acct = acct\n"
        f"    scope.size += n\n"
        f"    var = new_var(Var)\n"
        f"    var.value = {v}\n"
        f"    var.attrs = 0\n"
        f"    # a local hiding an exported variable is exported (bash's find(), from the scope\n"
        f"    # below; only the globals can hold a name local_names has not)\n"
        f"    names = vs.local_names\n"
        f"    if len(scopes) == 2 or {name} not in names:\n"
        f"        hidden = scopes[0].get({name})\n"
        f"        names.add({name})\n"
        f"    else:\n"
        f"        hidden = scopes[-2].get({name})\n"
        f"        if hidden is None:\n"
        f"            hidden = found_below(scopes, {name})\n"
        f"    if hidden is not None and hidden.attrs & EXPORT:\n"
        f"        var.attrs = EXPORT\n"
        f"    bind(scope, {name}, var)\n"
        f"    scope.locals.add({name})\n"
        f"    ok = True\n"
        f"else:\n"
        f"    ok = vs.declare_local({name}, {v})\n"
    )


def _local_one(how: str | None, inline: bool) -> Step:
    """`local NAME[=WORD]` of one valid name, not special: made by VarStore.declare_local, else
    the builtin's words (local_argv)."""
    declared = _declared(
        "rt.limits.max_arguments <= 1",
        _declare_one("{name}", "None" if how is None else "v", inline),
        "local_argv(ex, {cmd}, [({name}, v)], mark)",
        "{name}" if how is None else "{name} + '=' + v",
    )
    if how is None:
        return Step("local_one", BEGIN_ARGV + "v = None\n" + declared, ("name",))
    read, holes = _value("v", how)
    text = (
        BEGIN_ARGV + "try:\n"
        f"{_indent(read, 4)}"
        "except (ExpansionError, ArithError, AssignError) as e:\n"
        "    s = ex.words_failed(e, mark)\n"
        "else:\n"
        "    if len(v) > rt.limits.max_string_length:\n"
        "        sh.check_string(len(v))  # (as set_var: expanded as text, not as a word)\n"
        f"{_indent(declared, 4)}"
    )
    return Step("local_one", text, ("name", *holes))


def _local_many(checked: bool, hows: tuple[str | None, ...], inline: bool) -> Step:
    """`local` of several words (or one name the store checks as it runs): every value expanded
    before any name is made, the names made by VarStore.declare_each when `checked` (valid,
    distinct and not special as written), else by declare_locals, which checks them."""
    values = [f"v{k}" if how is not None else "None" for k, how in enumerate(hows)]
    pairs = "list(zip({names}, values))"
    general = f"local_argv(ex, {{cmd}}, {pairs}, mark)"
    if checked and inline and len(hows) <= _UNROLL:
        # each name as _declare_one makes it, in turn (VarStore.declare_each: at the first that
        # cannot be, the builtin gets all the words, those before made already)
        declare = ""
        for k in reversed(range(len(hows))):
            one = _declare_one(f"{{name{k}}}", values[k], inline)
            declare = one + (f"if ok:\n{_indent(declare, 4)}" if declare else "")
    elif checked:
        declare = "ok = st.vars.declare_each({names}, values)\n"
    else:
        declare = f"ok = st.vars.declare_locals({pairs})\n"
    last_arg = "{last}" if values[-1] == "None" else "{last} + '=' + " + values[-1]
    declared = _declared(f"{len(hows)} >= limits.max_arguments", declare, general, last_arg)
    holes: list[str] = ["names", "last"]
    if checked and inline and len(hows) <= _UNROLL:
        holes += (f"name{k}" for k in range(len(hows)))
    text = BEGIN_ARGV + "limits = rt.limits\n"
    texts = [v for v in values if v != "None"]
    if not texts:
        return Step("local_many", text + "values = {nones}\n" + declared, (*holes, "nones"))
    reads = ""
    for k, how in enumerate(hows):
        if how is not None:
            read, more = _value(f"v{k}", how, str(k))
            reads += read
            holes += more
    longest = f"len({texts[0]})" if len(texts) == 1 else f"max({', '.join(f'len({v})' for v in texts)})"
    text += (
        "try:\n"
        f"{_indent(reads, 4)}"
        "except (ExpansionError, ArithError, AssignError) as e:\n"
        "    s = ex.words_failed(e, mark)\n"
        "else:\n"
        f"    values = ({', '.join(values)},)\n"
        f"    if {longest} > limits.max_string_length:\n"
        f"        s = {general}\n"
        f"    el{_indent(declared, 4)[4:]}"
    )
    return Step("local_many", text, tuple(holes))


# the end of an assignment's plain path: a status to give or process substitutions to close
# (Executor.assigned), else `$_` emptied and status 0, as assigned() leaves them
_ASSIGNED = """\
except (ExpansionError, ArithError, AssignError) as e:
    s = ex.assign_failed(e)
else:
    if ex.last_cmdsub_status or (procs and len(procs) > mark):
        s = ex.assigned(mark)
    else:
        st.last_arg = ''
        st.last_status = 0
        st.pipestatus = _ZERO
        s = 0
"""


def _scalar(how: str, store: bool, append: bool, inline: bool) -> Step:
    """`NAME=WORD` or `NAME+=WORD` alone: stored by Variables.store_plain (`store`: the name is not
    special, NOT_PLAIN) while it is an existing plain variable, else by set_var."""
    read, holes = _value("v", how)
    stored = f"{{set_var}}({{name}}, v, append={append!r})\n"
    if store:
        stored = f"if not {{store}}({{name}}, v, {append!r}):\n    {stored}"
    if store and inline and not append:
        stored = _store_plain("{name}", "v") + "el" + stored
    text = "try:\n" + _indent(read + stored, 4) + _ASSIGNED
    return Step(
        "scalar",
        text,
        ("name", "set_var", *(("store",) if store else ()), *holes),
        " and assignment_changed(st)",
    )


def _store_plain(name: str, v: str) -> str:
    """`name=v`'s common case inline, as Variables.store_plain stores it: an existing variable
    without attributes beyond -x holding a string or nothing yet, of the current function or of the globals
    (a name no scope above them binds), `set -a` off, the value within max_string_length. Ends
    with an open `if` whose `el`+`if` the caller adds (store_plain, then set_var)."""
    return (
        f"vs = st.vars\n"
        f"scopes = vs.scopes\n"
        f"home = scopes[-1]\n"
        f"found = home.get({name})\n"
        f"if found is None and {name} not in vs.local_names:\n"
        f"    home = scopes[0]\n"
        f"    found = home.get({name})\n"
        f"if (\n"
        f"    found is not None\n"
        f"    and not found.attrs & NOT_EXPORT\n"
        f"    and ((old := found.value) is None or type(old) is str)\n"
        f"    and len({v}) <= rt.limits.max_string_length\n"
        f"    and not st.opts['allexport']\n"
        f"):\n"
        f"    # the change in bytes, charged before the value is stored (a limit leaves the old one)\n"
        f"    n = (len({v}) if {v}.isascii() else 4 * len({v})) - (\n"
        f"        0 if old is None else len(old) if old.isascii() else 4 * len(old)\n"
        f"    )\n"
        f"    if n:  # (MemAccount.add's common case inline: within the grains already charged)\n"
        f"        acct = vs.acct\n"
        f"        held = acct.held + n\n"
        f"        if held >= 0 and acct.charged - TWO_GRAINS <= held <= acct.charged:\n"
        f"            acct.held = held\n"
        f"            home.acct = acct\n"
        f"            home.size += n\n"
        f"        else:\n"
        f"            vs.charge(home, n)\n"
        f"    found.value = {v}\n"
    )


def _arith_scalar(inline: bool) -> Step:
    """`NAME=$(( TEXT ))` of a name not special: its ArithAssign's generated function (`hot`)
    evaluates and stores it, called here with the shared evaluator `aev` while that is free and
    max_string_length has room for any number (its own closure's tests: arith.ArithAssign); else
    its `cold()` gives the number, stored here (`inline`: store_plain's common case written out
    first)."""
    stored = "if not {store}({name}, v, False):\n    {set_var}({name}, v)\n"
    if inline:
        stored = _store_plain("{name}", "v") + "el" + stored
    text = (
        "try:\n"
        "    hot = {assign}.hot\n"
        "    if hot is not None and not {aev}.depth and rt.limits.max_string_length >= MAX_DIGITS:\n"
        "        number = hot({aev})\n"
        "    else:\n"
        "        number = {assign}.cold()\n"
        "    if number is not None:\n"
        "        v = str(number)\n"
        "        remember(v, number)  # (as text_fn: read back without parsing)\n" + _indent(stored, 8)
    ) + _ASSIGNED
    return Step("scalar", text, ("name", "set_var", "store", "assign", "aev"), " and assignment_changed(st)")


def _return(dollar: bool) -> Step:
    """`return` or `return N` of literal words (Compiler.return_cmd): in a function, outside a
    trap, the builtin neither a function's name nor disabled, the returned status (`returns`,
    compiler.returned's; `dollar`: no N, $?'s) after the words' count starts afresh as literal_argv
    starts it (Expander.begin_argv, inline); else `general`, which expands the words and asks."""
    status = "-1 - st.last_status" if dollar else "{returns}"
    text = (
        "if (\n"
        "    st.frames\n"
        "    and not st.in_trap\n"
        "    and {nwords} <= rt.limits.max_arguments\n"
        "    and st.functions.get('return') is None\n"
        "    and 'return' not in st.disabled_builtins\n"
        "):\n"
        f"{_indent(BEGIN_ARGV, 4)}"
        f"    s = {status}\n"
        "else:\n"
        "    s = {general}(mark)\n"
    )
    return Step("return_cmd", text, ("nwords", "returns", "general"))


# a call's words: ARGV_FN its argv function (Compiler._argv_fn's), ARGV_QUOTED a literal name and
# one "$x" of a plain scalar, read in place (the argv_scalar closure's work)
ARGV_FN = "fn"
ARGV_QUOTED = "dq"
# the slow way of a call's closure: anything but gates that hold no policy (an audit's, which
# run_argv asks: the step's own text leaves the function's lookup to it while there are gates)
_CALL_GUARD = " and (mode.beyond_gates() or ((g := sh.rt.gates) is not None and g.policy is not None))"


def _call(argv: str, plain: bool, inline: bool) -> Step:
    """A simple command of words alone whose name is literal text and no builtin's, as
    Compiler._call makes it: the words expanded (`argv`: ARGV_FN or ARGV_QUOTED; `plain`: the
    variable of "$x" may be read from the innermost scope, its name never computed as read),
    then the function the name finds as it runs called, while there are no gates and bash is not
    in POSIX mode, by call_function (direct_call for words worth charging while it runs;
    `inline`, a generated loop's or body's: its common case as calls.SITE_CALL does it, in
    place); a name that finds no function goes to run_argv's dispatch, which looks again."""
    if argv == ARGV_FN:
        words = "argv = {argv}()\n"
        holes: tuple[str, ...] = ("argv",)
    else:
        first = "{scopes}[-1].get({var})" if plain else "None"
        words = (
            BEGIN_ARGV + "expander._at_empty = False\n"
            f"var = {first}\n"
            "if var is None or var.attrs & NAMEREF:\n"
            "    var = {lookup}({var})\n"
            "if var is not None and type(var) is Var and type(v := var.value) is str and len(v) <= CHARGE_FROM:\n"
            "    argv = [{name}, v]\n"
            "else:\n"
            "    argv = [{name}]\n"
            "    {rest}(var, argv)\n"
            "if len(argv) > rt.limits.max_arguments:\n"
            "    expander.end_argv(argv)\n"
        )
        holes = ("var", "lookup", "rest", *(("scopes",) if plain else ()))
    called = "s = call_function({ev}, {name}, fdef, argv, None, {site}, mark)\n"
    if inline:
        called = f"if (\n{_indent(SITE_TEST, 4)}):\n{_indent(SITE_CALL, 4)}else:\n    {called}"
    text = (
        "try:\n"
        f"{_indent(words, 4)}"
        "except (ExpansionError, ArithError, AssignError) as e:\n"
        "    s = ex.words_failed(e, mark)\n"
        "else:\n"
        "    if not argv:\n"
        "        s = ex.no_words({cmd}, mark)\n"
        "    elif rt.gates is None and not st.opts['posix'] and (fdef := st.functions.get({name})) is not None:\n"
        "        if expander._arg_bytes >= ARGV_HELD_MIN:  # (Expander.argv_held's test: charged while it runs)\n"
        "            s = direct_call({ev}, {name}, fdef, argv, mark, {site})\n"
        "        else:\n"
        "            try:\n"
        f"{_indent(called, 16)}"
        "            except AssignError as e:\n"
        "                s = call_failed({ev}, e, argv, mark)\n"
        "    else:\n"
        "        s = ex.run_argv({cmd}, argv, None, None, mark)\n"
    )
    return Step("simple", text, ("name", "ev", "site", *holes), _CALL_GUARD)


def _lone_param(word: A.Word | None) -> str | None:
    """The name of a word that is only `$NAME` or `"$NAME"` (no operator, subscript or prefix)."""
    if word is None or len(word.parts) != 1:
        return None
    p = word.parts[0]
    if type(p) is A.DQ and len(p.parts) == 1:
        p = p.parts[0]
    if type(p) is not A.Param or p.op is not None or p.sub is not None or p.prefix or p.names_suffix:
        return None
    return p.name


def positional(word: A.Word | None) -> int | None:
    """N when the word is `$N` or `"$N"` (1-9, no operator): what param_fn plans as a positional
    index (fastparam.py) for a whole value."""
    name = _lone_param(word)
    return int(name) if name is not None and len(name) == 1 and "1" <= name <= "9" else None


def plain_name(word: A.Word | None) -> str | None:
    """NAME when the word is `$NAME` or `"$NAME"` of a name whose value is read as it is stored
    (not special: NOT_PLAIN)."""
    name = _lone_param(word)
    return name if name is not None and valid_name(name) and name not in NOT_PLAIN else None


def one_arith(word: A.Word | None) -> A.ArithSub | None:
    """The `$(( ))` of a word that is only that, bare or double-quoted (`x=$((n + 1))`,
    `x="$((n + 1))"`: an assignment's value is the number's text either way), else None."""
    parts = word.parts if word is not None else ()
    if len(parts) == 1 and type(parts[0]) is A.DQ:
        parts = parts[0].parts
    if len(parts) == 1 and type(p := parts[0]) is A.ArithSub:
        return p
    return None


def value_how(word: A.Word | None) -> tuple[str | None, int | None]:
    """How a value word is read (None: no value) and its positional index when read in place."""
    if word is None:
        return None, None
    index = positional(word)
    return (VALUE_FN, None) if index is None else (VALUE_POSITIONAL, index)
