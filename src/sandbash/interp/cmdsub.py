"""`$( )` without a subshell where none can be told apart: `$(echo ok)`, `$(printf '%s' "$x")`, `$(get)`.

A command substitution runs in a subshell: whatever its commands change stays there. When its body
is one `echo` or `printf` (the builtins, not functions) whose words only read literal text and
variables, or a call with such words of a function whose body is only such commands, it changes
nothing a subshell would keep: it writes to its standard output and maybe an error message, and sets
`$?`, `$_`, PIPESTATUS and the current line, which are put back here (a call puts back its own
frame, scope and positional parameters as it returns). So this shell runs it itself (run_in_place),
with its standard output going to the capture, through a twin shell over the same state (parts of
its own: the shell's may be in the middle of expanding the command that holds the substitution),
and with `set -e` as the subshell would have it. When, besides, its words read no dynamic, special
or positional parameter and a function's commands are all echo, the output is made without running
the commands at all (direct_substitution): no capture, no call; and when its words are literal
text, the output is made once and used again (Plan.const; a function's whole output, FuncPlan.const,
while xpg_echo is as it was and the run's limits allow it). A body of one command of
_PURE_COMMANDS (`$(basename "$p")`), which reaches nothing of the shell's, runs in place too.

Anything a subshell could tell apart falls back to the real one: a word that runs code or assigns
(`$( )`, `$(( ))`, `${x=...}`, `${x?}`, `${x:1}`, `${x@P}`, indirection, subscripts), a variable
whose value a subshell reads differently (RANDOM, SRANDOM, BASHPID, BASH_SUBSHELL) or any nameref,
printf's `-v` or a format that is not literal text or has `%n`, redirections and assignments, a
function body with anything else (`local`, `return`, another call, redirections, a `( )` body);
and, when it runs: an echo or printf that is a function or disabled, a trap (DEBUG, ERR, EXIT...),
a pending signal, xtrace, nounset, failglob, POSIX mode, `set -k`, or command gates (policy, audit
and custom gates see the subshell as before).
"""

from __future__ import annotations

from collections.abc import Callable

from ..expand.segments import literal_text
from ..expand.words import ARGV_HELD_MIN
from ..limits import LimitExceeded, LimitKind
from ..posix.echo import echo_text
from ..shvars.vars import NAMEREF
from ..stdio.streams import BufferWriter, Stream, capture_bound
from ..syntax import ast as A
from ..syntax.escapes import locale_escapes
from ..syntax.lexer import is_name
from .builtin_table import lookup
from .control import AbortCommand, ExitShell

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .shell import Shell

# variables a subshell reads differently from its parent (or whose reading changes the parent)
_SUBSHELL_VARIES = frozenset({"RANDOM", "SRANDOM", "BASHPID", "BASH_SUBSHELL"})
_BUILTINS = ("echo", "printf")
_BODY_COMMANDS = ("echo", "printf", "local")  # what a function run in place may be made of
# what an echo may not read for its output to be made without running it (Plan.direct): the shell's
# dynamic variables, which the call of a function or a command before it changes (its frame, $_,
# PIPESTATUS, LINENO, BASH_COMMAND...); special and positional parameters are not names at all
_DIRECT_UNREAD = frozenset(
    {
        "BASH_ARGV0",
        "SECONDS",
        "LINENO",
        "EPOCHSECONDS",
        "EPOCHREALTIME",
        "FUNCNAME",
        "BASH_SOURCE",
        "BASH_LINENO",
        "PIPESTATUS",
        "GROUPS",
        "DIRSTACK",
        "SHELLOPTS",
        "BASHOPTS",
        "BASH_ARGC",
        "BASH_ARGV",
        "BASH_COMMAND",
        "_",
        "BASH_ALIASES",
        "BASH_CMDS",
        "HISTCMD",
    }
)


class Plan:
    """A body that may run in place: its one command, the command's name, the variables its words
    read, and its words when they are all literal text that expands to itself (else None)."""

    __slots__ = ("cmd", "name", "names", "argv", "direct", "const")

    def __init__(self, cmd: A.SimpleCommand, name: str, names: tuple[str, ...]) -> None:
        self.cmd = cmd
        self.name = name
        self.names = names
        texts = [literal_text(w.parts) for w in cmd.words]
        self.argv: list[str] | None = None if None in texts else texts  # type: ignore[assignment]
        # an echo whose words expand alike with or without a call's frame, `set -e` and the rest
        # of what the subshell would change (`$-`): its output is made without running it
        self.direct = name in _BUILTINS and all(is_name(n) and n not in _DIRECT_UNREAD for n in names)
        # a direct echo or printf of literal words: what its output depends on (xpg_echo, the field
        # bound), the output, made once, and its value unless it has a null byte (warned each time)
        self.const: tuple[object, bytes, str | None] | None = None


class _Held:
    """The characters of text behind one of the process-wide plan caches below: the words of the
    nodes it holds alive and the outputs made once (Plan.const, FuncPlan.const). What those caches
    keep is charged to no run and outlives it (T-TEN-5): a node whose words are long is not
    remembered, an output over _LONGEST is made each time, and past _CHARS in all the cache starts
    again (printf '%60000s' made a 120 KB constant of 20 characters of text: 4096 of them held
    ~500 MB after the run)."""

    __slots__ = ("chars",)

    def __init__(self) -> None:
        self.chars = 0

    def admit(self, cache: dict[int, Any], size: int) -> bool:
        """Whether a node of `size` characters may be remembered in `cache` (counted if so)."""
        if size > _LONGEST:
            return False
        if len(cache) >= _CACHE_MAX or self.chars + size > _CHARS:
            cache.clear()
            self.chars = 0
        self.chars += size
        return True

    def room(self, size: int) -> bool:
        """Whether an output of `size` made once may be kept with a remembered plan (counted if so)."""
        if size > _LONGEST or self.chars + size > _CHARS:
            return False
        self.chars += size
        return True


_CACHE_MAX = 4096
_LONGEST = 4096  # characters: a node's words or a made output, at most, to be remembered
_CHARS = 1 << 19  # characters behind one cache's entries, at most


def _words_size(cmd: A.SimpleCommand) -> int:
    return sum(len(w.text) for w in cmd.words)


# per body that can run in place, its plan; keyed by the node's id (the node is held with it, so
# the id is not reused while it is remembered). A body that cannot is not remembered (it would hold
# a large tree alive): _examine rejects most at once.
_PLANS: dict[int, tuple[A.CommandList, Plan]] = {}
_PLANS_HELD = _Held()


class FuncPlan:
    """A function whose body is only echo/printf commands that read and `local` declarations: the
    variables they read or declare, whether one is `local`, and their plans when all are `direct`
    echo commands (else None)."""

    __slots__ = ("names", "echoes", "declares", "const")

    def __init__(self, plans: list[Plan]) -> None:
        self.names = tuple(n for plan in plans for n in plan.names)
        self.echoes = tuple(plans) if all(plan.direct and plan.name == "echo" for plan in plans) else None
        self.declares = any(plan.name == "local" for plan in plans)
        # echoes of literal words only (`get() { echo ok; }`): the xpg_echo setting the output was
        # made under, its value (no null byte), its size (below ARGV_HELD_MIN) and the most words
        # of one echo; made on the first call that makes the output (direct_substitution)
        self.const: tuple[bool, str, int, int] | None = None


# the same for a function's body (None: a command of it is not such echo/printf)
_FUNCS: dict[int, tuple[A.FuncDef, FuncPlan | None]] = {}
_FUNCS_HELD = _Held()


def _plan(body: A.CommandList) -> Plan | None:
    hit = _PLANS.get(id(body))
    if hit is not None and hit[0] is body:
        return hit[1]
    plan = _examine(body)
    if plan is not None and _PLANS_HELD.admit(_PLANS, _words_size(plan.cmd)):
        _PLANS[id(body)] = (body, plan)
    return plan


def _examine(body: A.CommandList) -> Plan | None:
    """The plan of a body of one simple command of words that only read: echo, printf, or what may
    be a function (_function_plan)."""
    if len(body.items) != 1 or body.items[0].background:
        return None
    return _command(body.items[0].cmd)


def _command(cmd: A.Command) -> Plan | None:
    if type(cmd) is not A.SimpleCommand or cmd.assigns or cmd.redirs or not cmd.words:
        return None
    words = cmd.words
    name = _literal(words[0])
    if name is None or name == "local":
        return None  # (`local`: _local)
    if name == "printf":
        fmt = _literal(words[1]) if len(words) > 1 else None
        if fmt is None or fmt.startswith("-") or _assigns_count(fmt):
            return None  # `-v VAR`, a format from a variable, or `%n`: printf may assign
    names: list[str] = []
    for word in words:
        if not _reads_only(word.parts, names):
            return None
    return Plan(cmd, name, tuple(names))


def _function_plan(fdef: A.FuncDef) -> FuncPlan | None:
    """The plan of a function whose commands are all echo/printf that only read
    (`get() { echo ok; }`), else None."""
    hit = _FUNCS.get(id(fdef))
    if hit is not None and hit[0] is fdef:
        return hit[1]
    fplan: FuncPlan | None = None
    body = fdef.body
    if type(body) is A.Group and body.body.items:
        plans: list[Plan] = []
        for item in body.body.items:
            plan = None if item.background else _command(item.cmd) or _local(item.cmd)
            if plan is None or plan.name not in _BODY_COMMANDS:
                break
            plans.append(plan)
        else:
            fplan = FuncPlan(plans)
    if _FUNCS_HELD.admit(_FUNCS, len(fdef.text)):  # (its node is held with its answer)
        _FUNCS[id(fdef)] = (fdef, fplan)
    return fplan


def _local(cmd: A.Command) -> Plan | None:
    """`local name=value ...` in a function: the variables it declares live in the call's own scope,
    dropped as it returns. Only names that begin with a lower-case letter (no special variable of
    the shell's: IFS, PATH, RANDOM... act on state beyond the scope), without options, subscripts,
    arrays or `+=`, with values that only read."""
    if type(cmd) is not A.SimpleCommand or cmd.assigns or cmd.redirs or len(cmd.words) < 2:
        return None
    words = cmd.words
    if _literal(words[0]) != "local":
        return None
    names: list[str] = []
    for word in words[1:]:
        parts = word.parts
        if len(parts) != 1:
            return None
        part = parts[0]
        if type(part) is A.Lit:
            name = part.text  # type: ignore[union-attr]
        elif type(part) is A.AssignWord:
            a = part.assign  # type: ignore[union-attr]
            if a.sub is not None or a.append or a.array is not None or a.value is None:
                return None
            if not _reads_only(a.value.parts, names):
                return None
            name = a.name
        else:
            return None
        if not (name[:1].islower() and name.isascii() and is_name(name)):
            return None
        names.append(name)  # (checked as one read: a nameref of the name falls back)
    return Plan(cmd, "local", tuple(names))


def _literal(word: A.Word) -> str | None:
    """A word's text when it is literal text only (quoted or not)."""
    out: list[str] = []
    for p in word.parts:
        t = type(p)
        if t is A.Lit or t is A.SQ or t is A.Esc:
            out.append(p.text)  # type: ignore[union-attr]
        elif t is A.DQ and all(type(q) is A.Lit for q in p.parts):  # type: ignore[union-attr]
            out.extend(q.text for q in p.parts)  # type: ignore[union-attr]
        else:
            return None
    return "".join(out)


def _assigns_count(fmt: str) -> bool:
    """Whether a printf format has a `%n` conversion (flags, width and precision may come between)."""
    i = fmt.find("%")
    while i >= 0:
        j = i + 1
        while j < len(fmt) and fmt[j] in "#-+ 0'123456789.*":
            j += 1
        if fmt[j : j + 1] == "n":
            return True
        i = fmt.find("%", j + 1 if fmt[j : j + 1] == "%" else j)
    return False


def _reads_only(parts: tuple[A.Part, ...], names: list[str]) -> bool:
    for p in parts:
        t = type(p)
        if t is A.Lit or t is A.SQ or t is A.Esc or t is A.Tilde:
            continue
        if t is A.DQ:
            if not _reads_only(p.parts, names):  # type: ignore[union-attr]
                return False
            continue
        if t is not A.Param:
            return False  # $( ), $(( )), <( ), braces, extglob: may run code or differ
        name = p.name  # type: ignore[union-attr]
        if p.sub is not None or p.prefix not in ("", "#") or name in _SUBSHELL_VARIES:  # type: ignore[union-attr]
            return False
        op: A.ParamOp | None = p.op  # type: ignore[union-attr,assignment]
        if op is not None and not _op_reads_only(op, names):
            return False
        names.append(name)
    return True


# operators that only read, given words that only read: trimming, replacing, case changes, a default
# or alternate word, and transformations but @P (a prompt string's expansion may run commands).
# Not `:=`/`=` (assign), `:?`/`?` (an error ends the shell), slices (arithmetic may assign).
_READING_OPS = frozenset({A.OpKind.TRIM, A.OpKind.REPL, A.OpKind.CASE})
_READING_TESTS = frozenset({A.Op.DEFAULT, A.Op.DEFAULT_UNSET, A.Op.ALTERNATE, A.Op.ALTERNATE_SET})


def _op_reads_only(op: A.ParamOp, names: list[str]) -> bool:
    kind = op.kind
    if not (
        kind in _READING_OPS
        or (kind is A.OpKind.TEST and op.op in _READING_TESTS)
        or (kind is A.OpKind.XFORM and op.op is not A.Op.AT_PROMPT)
    ):
        return False
    return all(w is None or _reads_only(w.parts, names) for w in (op.arg, op.arg2))


def _quiet(sh: Shell) -> bool:
    """Whether nothing at this point would tell a body run in place from its subshell: the shell
    runs plainly and untraced (RunMode: no gates, trap, signal queued for it, `set -x`, `set -k`
    (`echo a=b` is an assignment), `set -n`, API args waiting), no other shell option that acts on
    the commands, and echo and printf are the builtins (not functions, not disabled)."""
    st = sh.state
    if not st.run_mode.untraced:  # (any trap: a subshell resets them)
        return False
    opts = st.opts
    functions, disabled = st.functions, st.disabled_builtins
    return not (
        opts["nounset"]
        or opts["posix"]  # (a special builtin would be found before a function of its name)
        or st.shopts["failglob"]
        or "echo" in functions
        or "printf" in functions
        or "echo" in disabled
        or "printf" in disabled
    )


def _no_nameref(sh: Shell, names: tuple[str, ...]) -> bool:
    vars_ = sh.state.vars
    for n in names:
        var = vars_.find(n)
        if var is not None and var.attrs & NAMEREF:
            return False
    return True


def direct_substitution(sh: Shell, body: A.CommandList) -> tuple[str, int] | None:
    """The value and status of `$( )` when its body is one `direct` echo or printf, or a call
    without arguments of a function of only `direct` echo commands: made without a subshell, a
    twin (unless a word reads a variable) or a call. Each command counts as one, the call too; the
    output is bounded as a capture is. None when the body needs running (run_in_place, else its
    subshell)."""
    plan = _plan(body)
    if plan is None or not _quiet(sh):
        return None
    st = sh.state
    const = plan.const
    if const is not None and const[2] is not None:  # (set only on a direct echo or printf)
        limits = sh.rt.limits
        size = len(const[1])
        if (
            const[0] == (st.shopts["xpg_echo"] if plan.name == "echo" else limits.max_string_length)
            and size <= limits.max_output_size
            and size <= limits.max_string_length
            and len(plan.argv) <= limits.max_arguments  # type: ignore[arg-type]
        ):
            sh.rt.budget.command()
            return const[2], 0
    fplan: FuncPlan | None = None
    if plan.direct:
        plans: tuple[Plan, ...] = (plan,)
        names = plan.names
    else:
        fplan = _direct_callee(sh, plan)
        if fplan is None:
            return None
        fconst = fplan.const
        if fconst is not None and fconst[0] == st.shopts["xpg_echo"] and _const_fits(sh, fconst):
            return _const_call(sh, fplan, fconst[1])
        plans, names = fplan.echoes, fplan.names  # type: ignore[assignment]
    if names and not _no_nameref(sh, names):
        return None
    max_arguments = sh.rt.limits.max_arguments
    if any(p.argv is not None and len(p.argv) > max_arguments for p in plans):
        return None  # (the command reports max_arguments: Executor.expand_argv)
    budget = sh.rt.budget
    if plan is not plans[0]:
        budget.command()  # (the call)
    if plan.name == "printf":
        budget.command()
        return _printf(sh, plan)
    max_size, size_limit = _capture_limit(sh)
    xpg = st.shopts["xpg_echo"]
    held = _PLANS_HELD if fplan is None else _FUNCS_HELD  # (where the plans are remembered)
    out: list[bytes] = []
    size = 0
    for p in plans:
        budget.command()
        const = p.const
        if const is not None and const[0] == xpg:
            data = const[1]
        elif p.argv is not None:
            data = _echo_bytes(sh, p.argv, xpg)
            if (
                len(data) < ARGV_HELD_MIN and _locale_free(p.argv) and held.room(2 * len(data))
            ):  # (its bytes and its text)
                p.const = (xpg, data, _constant_text(data))
        else:
            data = _echo_bytes(sh, _twin(sh).ex.expand_argv(p.cmd.words), xpg)
        size += len(data)
        if size > max_size:
            raise LimitExceeded(size_limit, max_size)
        out.append(data)
    value = _value(sh, out, size)
    if (
        fplan is not None
        and size < ARGV_HELD_MIN
        and all(p.argv is not None and _locale_free(p.argv) for p in plans)
    ):
        data = b"".join(out)
        if 0 not in data and held.room(size):  # (a null byte is warned of at each call: captured_text)
            argc = max(len(p.argv) for p in plans)  # type: ignore[arg-type]
            fplan.const = (xpg, value, size, argc)
    return value, 0


def _const_fits(sh: Shell, const: tuple[bool, str, int, int]) -> bool:
    """Whether a function's constant output is within this run's limits as its commands would find
    it: the capture's bound (the nearer of max_output_size and max_string_length) and each echo's
    word count (max_arguments). Else the commands run and report the limit as before."""
    limits = sh.rt.limits
    size = const[2]
    return (
        size <= limits.max_output_size
        and size <= limits.max_string_length
        and const[3] <= limits.max_arguments
    )


def _const_call(sh: Shell, fplan: FuncPlan, value: str) -> tuple[str, int]:
    """`$(get)` of a function of literal echo commands whose output is made already: the call and
    each command counted as running them counts them (max_command_count, the deadline's tick)."""
    command = sh.rt.budget.command
    command()  # (the call)
    for _ in fplan.echoes:  # type: ignore[union-attr]
        command()
    return value, 0


def _echo_bytes(sh: Shell, argv: list[str], xpg: bool) -> bytes:
    return echo_text(argv[1:], xpg, byte_locale=sh.locale_bytes)[0].encode("utf-8", "surrogateescape")


def _locale_free(argv: list[str]) -> bool:
    """Whether echo or printf makes the same of these words in every locale (a literal command's
    output is then kept): no quote ('X: a character's code), no text that is not ASCII (%q), no
    \\u or \\U escape (the C locale writes it back)."""
    return not any("'" in a or '"' in a or not a.isascii() or locale_escapes(a) for a in argv)


def _constant_text(data: bytes) -> str | None:
    return None if 0 in data else data.rstrip(b"\n").decode("utf-8", "surrogateescape")


def _value(sh: Shell, out: list[bytes], size: int) -> str:
    """The value of a direct body's output pieces, `size` bytes in all (within the capture's bound).
    Not charged to max_memory when small, as a command's argv below ARGV_HELD_MIN (one at a time);
    a larger one is held while it becomes the value."""
    if size < ARGV_HELD_MIN:
        return captured_text(sh, out[0] if len(out) == 1 else b"".join(out))
    budget = sh.rt.budget
    budget.charge_memory(size)
    try:
        return captured_text(sh, b"".join(out))
    finally:
        budget.release_memory(size)


# the plans of pipelines' first stages, as _PLANS (a simple command that has none is remembered
# too, when its words are short: _Held)
_STAGES: dict[int, tuple[A.Command, Plan | None]] = {}
_STAGES_HELD = _Held()


def direct_stage(sh: Shell, cmd: A.Command) -> bytes | None:
    """The output of a pipeline's first stage (`echo "$a" | tr a-z A-Z`) when it is one `direct`
    echo, or a printf that reports nothing, of output below ARGV_HELD_MIN (its status is 0): made
    as direct_substitution makes it, without a thread or a subshell, for the next stage to read.
    None when the stage needs running."""
    hit = _STAGES.get(id(cmd))
    if hit is not None and hit[0] is cmd:
        plan = hit[1]
    elif type(cmd) is not A.SimpleCommand or cmd.assigns or cmd.redirs:
        return None  # (_command's answer at once: nothing to remember of a node that may be large)
    else:
        plan = _command(cmd)
        if _STAGES_HELD.admit(_STAGES, _words_size(cmd)):
            _STAGES[id(cmd)] = (cmd, plan)
    if plan is None or not plan.direct or not _quiet(sh):
        return None
    if plan.names and not _no_nameref(sh, plan.names):
        return None
    if plan.argv is not None and len(plan.argv) > sh.rt.limits.max_arguments:
        return None
    argv = plan.argv if plan.argv is not None else _twin(sh).ex.expand_argv(plan.cmd.words)
    if plan.name == "echo":
        data = _echo_bytes(sh, argv, sh.state.shopts["xpg_echo"])
    else:
        text = _printf_text(sh, argv, sh.rt.limits.max_string_length)
        if text is None:
            return None
        data = text.encode("utf-8", "surrogateescape")
    if len(data) >= ARGV_HELD_MIN:
        return None  # (held by the pipe a little at a time, as it is read)
    sh.rt.budget.command()
    return data


def _direct_callee(sh: Shell, plan: Plan) -> FuncPlan | None:
    """The plan of the function a body calls, when the call can be left out: no arguments, a body
    of `direct` echo commands only, and no limit or FUNCNEST the call would reach."""
    st = sh.state
    fdef = st.functions.get(plan.name)
    if fdef is None or plan.name in _BUILTINS or plan.argv is None or len(plan.argv) != 1:
        return None
    fplan = _function_plan(fdef)
    if fplan is None or fplan.echoes is None or len(st.frames) >= sh.rt.limits.max_call_depth:
        return None  # (the call in its subshell reports max_call_depth)
    if st.frames and st.vars.find("FUNCNEST") is not None:
        return None
    return fplan


def _capture_limit(sh: Shell) -> tuple[int, LimitKind]:
    bound = capture_bound(sh.rt.limits)
    return bound["max_size"], bound["size_limit"]


def _printf(sh: Shell, plan: Plan) -> tuple[str, int]:
    """A `direct` printf's value and status: its output made by the format's own code when it
    reports nothing (no error, no warning), else the builtin run on a capture. The output of literal
    words is made once (for this max_string_length, which bounds its fields)."""
    limit = sh.rt.limits.max_string_length
    const = plan.const
    if const is not None and const[0] == limit:
        data = const[1]
    else:
        argv = plan.argv if plan.argv is not None else _twin(sh).ex.expand_argv(plan.cmd.words)
        text = _printf_text(sh, argv, limit)
        if text is None:
            return _printf_builtin(sh, plan, argv)
        data = text.encode("utf-8", "surrogateescape")
        if plan.argv is not None and _locale_free(argv) and _PLANS_HELD.room(2 * len(data)):
            plan.const = (limit, data, _constant_text(data))
    max_size, size_limit = _capture_limit(sh)
    if len(data) > max_size:
        raise LimitExceeded(size_limit, max_size)
    return _value(sh, [data], len(data)), 0


_format_printf: Callable[..., tuple[str, int]] | None = None


def _printf_text(sh: Shell, argv: list[str], limit: int) -> str | None:
    """printf's output for `argv` (a literal format without `-v` or `%n`), or None when the builtin
    must run: it would report an error or a warning, a field is wider than `limit`, or the format
    has a `(` (%(...)T reads the clock and the exported TZ)."""
    global _format_printf
    fmt = argv[1]
    if "(" in fmt:
        return None
    if _format_printf is None:
        from ..posix.printf import format_printf  # (loaded on first use, as the builtin does)

        _format_printf = format_printf
    errors: list[str] = []
    byte_chars = True if _locale_free(argv) else sh.locale_bytes()
    try:
        text, _ = _format_printf(fmt, argv[2:], errors.append, max_field=limit, byte_chars=byte_chars)
    except ValueError:  # (FieldTooWide: the builtin reports max_string_length)
        return None
    return None if errors else text


def _printf_builtin(sh: Shell, plan: Plan, argv: list[str]) -> tuple[str, int]:
    """Run a `direct` printf with its standard output on a capture (its errors name its line). The
    capture charges max_memory as it grows and gives it back here (what it charged is its size)."""
    st = sh.state
    printf = lookup("printf")
    assert printf is not None
    budget = sh.rt.budget
    max_size, size_limit = _capture_limit(sh)
    out = BufferWriter(charge=budget.charge_memory, max_size=max_size, size_limit=size_limit)
    saved = st.line, st.fds.get(1)
    st.line = plan.cmd.line
    st.fds[1] = out
    try:
        status = printf(sh, argv)
        return captured_text(sh, out.getvalue()), status
    finally:
        st.line, stdout = saved
        if stdout is None:
            del st.fds[1]
        else:
            st.fds[1] = stdout
        if out.size:
            budget.release_memory(out.size)


def captured_text(sh: Shell, data: bytes) -> str:
    """A substitution's value from its output: null bytes dropped (with bash's warning), trailing
    newlines removed."""
    if 0 in data:  # (the byte as an int: `b"\0" in data` raises and clears a TypeError in CPython first)
        sh.warn("command substitution: ignored null byte in input")
        data = data.replace(b"\0", b"")
    return data.rstrip(b"\n").decode("utf-8", "surrogateescape")


def run_in_place(sh: Shell, body: A.CommandList, out: Stream) -> int | None:
    """Run `body` in `sh` itself with its standard output on `out` (the capture), when no subshell
    could tell the difference: its status; None when it needs the subshell."""
    plan = _plan(body)
    if plan is None or not _quiet(sh):
        return None
    st = sh.state
    name, names = plan.name, plan.names
    if name not in _BUILTINS:
        fdef = st.functions.get(name)
        if fdef is None and name in _PURE_COMMANDS:
            return _run_command(sh, plan, out) if not names or _no_nameref(sh, names) else None
        fplan = None if fdef is None else _function_plan(fdef)
        if fplan is None:
            return None
        if fplan.declares and ("local" in st.functions or "local" in st.disabled_builtins):
            return None
        names += fplan.names
    if names and not _no_nameref(sh, names):
        return None
    twin = _twin(sh)
    opts = st.opts
    saved = (st.line, st.last_arg, st.pipestatus, st.fds.get(1), opts["errexit"])
    st.fds[1] = out
    if not st.shopts["inherit_errexit"]:
        opts["errexit"] = False
    try:
        return twin.ex.exec_simple(plan.cmd)
    except (ExitShell, AbortCommand) as e:
        return e.status  # (`set -e` with inherit_errexit: the subshell would end, not this shell)
    finally:
        st.line, st.last_arg, st.pipestatus, stdout, opts["errexit"] = saved
        if stdout is None:
            del st.fds[1]
        else:
            st.fds[1] = stdout


# commands whose run reaches nothing of the shell's but their arguments, the environment, the
# standard streams and the file system (which a subshell shares too): no sub-command (Ctx.run), no
# random numbers (a subshell's generator is seeded anew), no host state
_PURE_COMMANDS = frozenset(
    {
        "basename",
        "dirname",
        "date",
        "cat",
        "head",
        "tail",
        "wc",
        "tr",
        "cut",
        "seq",
        "rev",
        "tac",
        "uname",
        "whoami",
        "id",
        "hostname",
        "nproc",
        "realpath",
        "readlink",
        "md5sum",
        "sha1sum",
        "sha256sum",
        "base64",
        "uniq",
        "nl",
        "fold",
        "expr",
    }
)


def _run_command(sh: Shell, plan: Plan, out: Stream) -> int | None:
    """`$(basename "$p")`: one command of _PURE_COMMANDS (found as the built-in command, not a
    function, builtin or script), run by this shell on the capture as its subshell would run it. Not
    with jobs or a coprocess (a command's end reports them), host or box mode. Nothing is hashed, as
    the subshell's hash table would be dropped with it."""
    rt = sh.rt
    if rt.jobs or rt.host is not None or rt.spawner is not None or sh.pr.coproc is not None:
        return None
    if lookup(plan.name) is not None:  # (run_in_place asked _quiet: no API args wait)
        return None
    st = sh.state
    twin = _twin(sh)
    cached = st.hashed.get(plan.name)
    if cached is not None:
        kind, _, where = cached.partition(":")  # (no hit counted: the subshell's table would count it)
    else:
        kind, where = twin.ex.find_command(plan.name)
    if kind != "command":
        return None  # not found, a script of that name: the subshell says so or runs it
    rt.budget.command()
    ex = twin.ex
    argv = list(plan.argv) if plan.argv is not None else ex.expand_argv(plan.cmd.words)
    held = twin.expander.argv_held()
    if held:
        rt.budget.charge_memory(held)
    saved = st.line, st.fds.get(1)
    st.line = plan.cmd.line
    st.fds[1] = out
    try:
        env = twin.va.exported_env()
        if ex.sets_underscore:
            env["_"] = where  # (as run_external: the program's path)
        return ex.run_registry(where.rsplit("/", 1)[-1], argv, env)
    finally:
        st.line, stdout = saved
        if stdout is None:
            del st.fds[1]
        else:
            st.fds[1] = stdout
        if held:
            rt.budget.release_memory(held)


def _twin(sh: Shell) -> Shell:
    """A shell over `sh`'s own state, with parts of its own (an executor, an expander, an evaluator:
    `sh`'s may be in the middle of the command whose word holds the substitution). Made once per
    shell; Shell.release frees it with the shell."""
    twin: Shell | None = sh.__dict__.get("_inplace_twin")
    if twin is None:
        twin = sh.twin()
        sh.__dict__["_inplace_twin"] = twin
    twin.rt = sh.rt  # (a job's shell gets a runtime of its own after it is made)
    twin.seconds_base = sh.seconds_base  # ($SECONDS: assigning it moves the base)
    twin.subst_depth = sh.subst_depth + 1
    twin.eval_depth = sh.eval_depth
    twin.call_depth = sh.call_depth
    return twin
