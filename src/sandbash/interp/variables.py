"""Variable semantics: lookup with namerefs and dynamic variables, and
assignment with attributes (readonly, integer, case conversion, arrays)."""

from __future__ import annotations

import time

from ..expand.arith import ArithError
from ..expand.arithops import INTS, wrap
from ..expand.env import ExpansionError
from ..limits import LimitExceeded, LimitKind, MemoryHold
from ..shvars.arrays import (
    ALIAS_BUCKETS,
    ELEMENT_OVERHEAD,
    FILENAME_BUCKETS,
    AssocArray,
    IndexedArray,
    elements_bytes,
    text_bytes,
)
from ..shvars.vars import (
    ARRAY,
    ASSOC,
    CAPITALIZE,
    EXPORT,
    INTEGER,
    LOWER,
    NAMEREF,
    NOASSIGN,
    READONLY,
    SPECIAL_ASSIGN,
    THROUGH,
    TWO_GRAINS,
    UPPER,
    VAR_OVERHEAD,
    ElementsVar,
    Scope,
    Value,
    Var,
    VarStore,
    is_array_ref_text,
    value_size,
)
from ..syntax.ast import Lit, Param, Subscript
from ..syntax.errors import ParseError, ParseLimit
from ..syntax.lexer import is_name
from .control import AbortCommand
from .state import init_bash_argv

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    from ..syntax import ast as A
    from .shell import Shell
    from .state import ShellState

_DYNAMIC = frozenset(
    {
        "BASH_ARGV0",
        "HISTCMD",
        "RANDOM",
        "SRANDOM",
        "SECONDS",
        "LINENO",
        "BASHPID",
        "EPOCHSECONDS",
        "EPOCHREALTIME",
        "FUNCNAME",
        "BASH_SOURCE",
        "BASH_LINENO",
        "PIPESTATUS",
        "BASH_SUBSHELL",
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
    }
)
# the alias and command hash tables seen as associative arrays: an element assigned adds an
# entry, `unset` of an element does nothing (bash)
_TABLES = frozenset({"BASH_ALIASES", "BASH_CMDS"})


def hash_entry(path: str) -> str:
    """The hash table's entry for a command found at `path` (`hash -p`, BASH_CMDS[name]=path)."""
    return f"{'command' if path.startswith(('/bin/', '/usr/bin/')) else 'script'}:{path}"


# the dynamic variables bash's listings show, with their listed attributes
_LISTED_DYNAMIC = {
    "BASHOPTS": READONLY,
    "BASHPID": INTEGER,
    "BASH_ALIASES": ASSOC,
    "BASH_ARGC": ARRAY,
    "BASH_ARGV": ARRAY,
    "BASH_ARGV0": 0,
    "BASH_CMDS": ASSOC,
    "BASH_COMMAND": 0,
    "BASH_LINENO": ARRAY,
    "BASH_SOURCE": ARRAY,
    "BASH_SUBSHELL": 0,
    "DIRSTACK": ARRAY,
    "EPOCHREALTIME": 0,
    "EPOCHSECONDS": 0,
    "FUNCNAME": ARRAY,
    "GROUPS": ARRAY,
    "HISTCMD": INTEGER,
    "LINENO": 0,
    "PIPESTATUS": ARRAY,
    "RANDOM": INTEGER,
    "SECONDS": 0,
    "SHELLOPTS": READONLY,
    "SRANDOM": INTEGER,
    "_": 0,
}
_LISTED_WITH_VALUE = frozenset(
    {
        "BASHOPTS",
        "SHELLOPTS",
        "BASH_ARGC",
        "BASH_ARGV",
        "BASH_LINENO",
        "BASH_SOURCE",
        "FUNCNAME",
        "PIPESTATUS",
        "_",
    }
)

# the kept variables whose value is stored, not computed: listed without it until it is read or
# assigned (bash's COMP_WORDBREAKS: its getter stores the value as it is first read), so a read
# goes through the dynamic lookup (_VALUED_DYNAMIC) and an element assignment the general path
# (_ELEMENT_SPECIAL), where Variables marks it read
_STORED_KEPT = frozenset({"COMP_WORDBREAKS"})
# the dynamic scalars whose value bash's variable keeps as it is read (the getter stores it) or,
# for some, assigned: a listing (`declare -p`, `set`) shows that value, or none before either
_KEPT = _STORED_KEPT | frozenset(
    {
        "RANDOM",
        "SRANDOM",
        "SECONDS",
        "BASH_ARGV0",
        "LINENO",
        "BASHPID",
        "EPOCHSECONDS",
        "EPOCHREALTIME",
        "BASH_SUBSHELL",
        "HISTCMD",
        "BASH_COMMAND",
    }
)
# the integer ones (bash's att_integer): an assigned value is kept as its arithmetic value;
# LINENO and SECONDS (until a read makes it an integer) keep a decimal number, else 0
_KEPT_INTEGER = frozenset({"RANDOM", "SRANDOM", "HISTCMD"})
# the dynamic variables with bash's integer attribute, which an array made of one keeps (`-ai`)
_INTEGER_DYNAMIC = frozenset({"RANDOM", "SRANDOM", "SECONDS", "BASHPID", "HISTCMD"})

_READONLY_DYNAMIC = frozenset({"SHELLOPTS", "BASHOPTS"})
# the option lists every shell stores as readonly variables without a value (Shell.init_variables):
# their value is computed as they are read, their attributes (exported) are the stored variable's
OPTION_VARS = frozenset({"SHELLOPTS", "BASHOPTS"})
# the call stack arrays: `FUNCNAME=x` does nothing (no message, status 0), as in bash
_NOASSIGN = NOASSIGN
# the largest new array push_values charges as one change with the old one's release (a scalar's
# way), not made beside it first: a transient of at most this many bytes (see CHARGE_FROM)
SMALL_ARRAY_BYTES = 16 * 1024
# dynamic variables that stay dynamic when assigned (the value seeds or offsets them, or is
# ignored), until `unset` takes their special meaning away for good, as in bash
_STAYS_DYNAMIC = frozenset(
    {
        "RANDOM",
        "SRANDOM",
        "SECONDS",
        "LINENO",
        "BASHPID",
        "EPOCHSECONDS",
        "EPOCHREALTIME",
        "BASH_ARGV0",
        "HISTCMD",
        "BASH_SUBSHELL",
        "BASH_COMMAND",
    }
)
# the names whose assigned variable lookup still reads as the shell's value (PIPESTATUS: while
# it is an indexed array, which bash overwrites after each command; `_`, which bash's
# bind_lastarg overwrites after each command, a function's local one too: `read x _` or
# `for _ in ...` leave $_ the last word, as any command)
_VALUED_DYNAMIC = _STAYS_DYNAMIC | OPTION_VARS | _STORED_KEPT | {"PIPESTATUS", "_"}


def _compat_value(value: str) -> int:
    """A BASH_COMPAT value as a level (`5.1` and `51` are 51), 0 when bash refuses it."""
    digits = value[0] + value[2] if len(value) == 3 and value[1] == "." else value
    if len(digits) == 2 and digits.isascii() and digits.isdigit() and 31 <= int(digits) <= 52:
        return int(digits)
    return 0


def _intrand32(last: int) -> int:
    """bash's generator for $RANDOM (Park and Miller's minimal standard, Schrage's method): the
    same seed gives the same sequence as bash 5.2 (`RANDOM=42; echo $RANDOM` is 17772)."""
    ret = last or 123459876
    h, low = divmod(ret, 127773)
    t = 16807 * low - 2836 * h
    return t + 0x7FFFFFFF if t < 0 else t


# names whose element assignment does more than store it (set_var's general path)
_ELEMENT_SPECIAL = (
    _TABLES | _NOASSIGN | _READONLY_DYNAMIC | _STAYS_DYNAMIC | SPECIAL_ASSIGN | _STORED_KEPT | {"DIRSTACK"}
)

# names Variables.store_plain never stores: their assignment does more than store the value
# (_special_assign), stores nothing (the call stack arrays) or keeps nothing while the value is
# computed as it is read (a second `BASHPID=5` must not keep "5" where the first kept nothing)
NOT_PLAIN = _ELEMENT_SPECIAL | _DYNAMIC
# the attributes under which storing a value may read another variable, so a temporary binding
# (`IFS=, read -r r`) must be in place: a reference (it may name the bound one), an integer (its
# value is evaluated: `IFS+1`)
BINDING_READERS = NAMEREF | INTEGER


# the variables bash hands to setlocale() as they are assigned (LANG is not checked there)
_LOCALE_VARS = frozenset({"LC_ALL", "LC_CTYPE", "LC_COLLATE", "LC_MESSAGES", "LC_NUMERIC", "LC_TIME"})
_CTYPE_VARS = ("LC_ALL", "LC_CTYPE", "LANG")  # what decides the character type, in that order
# the special variables whose hook reads the whole value: `LC_ALL+=.x` names `C.x` (bash's sv_*
# functions read the variable after the assignment)
_WHOLE_VALUE_HOOKS = _LOCALE_VARS | {"LANG", "BASH_XTRACEFD", "BASH_COMPAT"}
# the shopts POSIX mode turns on (bash's posix_vars)
POSIX_SHOPTS = ("interactive_comments", "sourcepath", "expand_aliases", "inherit_errexit", "shift_verbose")


_COMMON_LOCALES = frozenset({"C.UTF-8", "C.utf8", "C", "POSIX"})


def locale_known(name: str) -> bool:
    """Whether setlocale() takes `name` here: the sandbox has the C and POSIX locales only (with
    glibc's spellings of C.UTF-8)."""
    if name in _COMMON_LOCALES:  # (asked at every pattern a non-ASCII value meets: locale_bytes)
        return True
    return name in ("C", "POSIX") or (name[:2] == "C." and name[2:].lower().replace("-", "") == "utf8")


# a subscript taken as it is, not expanded again (bash's ASS_NOEXPAND: `declare A[$k]=v`, `read
# A[$k]` under assoc_expand_once)
AS_EXPANDED = Subscript(None, None)


class AssignError(Exception):
    """A failed assignment (readonly, bad subscript, ...): message already
    formatted as bash prints it after `bash: line N: `. `fatal` errors end a
    non-interactive shell when they happen in an assignment statement. A builtin that assigns
    (read, printf -v, mapfile) puts its name before a `named` one, as bash does."""

    def __init__(self, message: str, fatal: bool = True, named: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.fatal = fatal
        self.named = named


class ReadonlyError(AssignError):
    """`NAME: readonly variable`: the one failed store that ends an arithmetic expression (bash's
    expr.c jumps out when the variable it bound is readonly; any other failed store is reported and
    the expression goes on with its value: Shell.arith_set)."""


def valid_ref_target(value: str) -> bool:
    """What a nameref may name (bash's valid_nameref_value): a name, or a name[subscript] whose
    subscript is not empty and ends at the last character (`a[]`, `a[1"]` are no reference)."""
    return is_name(value) or is_array_ref_text(value)


class ElementError(ExpansionError):
    """An arithmetic error in an array element's subscript or integer value: bash reports it
    without the name of the builtin that assigns (`declare -a v=([1+]=3)`, `declare v[1+]=2`)."""

    @classmethod
    def of(cls, e: ExpansionError) -> ExpansionError:
        if (type(e) is not ExpansionError and type(e) is not IntValueError) or not e.located:
            return e
        return cls(e.message, e.fatal, e.exits, arith=e.arith)


class IntValueError(ExpansionError):
    """An integer variable's value failed as arithmetic: reported in the name of the builtin that
    assigns it, an element's too (`read 'a[0]'`, `declare a[0]=1/0`), unless a compound
    assignment gives it (`declare -ai a=([0]=1/0)`: an ElementError)."""


class EmptySubscript(AssignError):
    """An array subscript in arithmetic that expands to nothing (`$(( a[$unset] ))`)."""

    def __init__(self) -> None:
        super().__init__("bad array subscript", fatal=False)


class CircularRef(AssignError):
    """A chain of namerefs that comes back to itself (`local -n v=v`)."""

    def __init__(self, name: str) -> None:
        super().__init__(f"warning: {name}: circular name reference", fatal=False)
        self.name = name


class Variables:
    """Every variable read and write of one shell: lookup through namerefs and dynamic
    variables, assignment with attributes (readonly, integer, case conversion, arrays).
    Depends on the shell's state and on the shell itself for what a subscript or an integer
    value needs (arithmetic, subscript expansion, string limits, messages)."""

    __slots__ = ("sh", "state")

    def __init__(self, sh: Shell, state: ShellState) -> None:
        self.sh = sh
        self.state = state

    # Mixin for Shell: every variable read and write goes through here.

    def _dynamic(self, name: str, listing: bool = False) -> Var | None:
        var = self._computed(name, listing)
        if not listing:
            st = self.state
            if name in _KEPT:
                if name in _STORED_KEPT:
                    st.dyn_values[name] = None  # (read: listed with the stored value from now on)
                elif var is not None:
                    st.dyn_values[name] = var.value  # type: ignore[assignment]
                    if name == "SECONDS":
                        st.seconds_integer = True
            elif name == "GROUPS":
                st.groups_read = True
        return var

    def _computed(self, name: str, listing: bool) -> Var | None:
        """The dynamic variable `name` as it reads now (None: no such dynamic variable)."""
        st = self.state
        rt = self.sh.rt
        if name in st.unspecial:
            return None
        if name == "RANDOM":
            return Var(str(self._random()), INTEGER)
        if name == "SRANDOM":
            return Var(str(st.rng.getrandbits(32)), INTEGER)
        if name == "SECONDS":
            # whole seconds since the shell started or SECONDS was assigned (floored: SECONDS=-5 reads -5;
            # // 1 floors as math.floor does, without loading math: a shared library, ~0.5 M instructions)
            return Var(str(int((time.monotonic() - self.sh.seconds_base) // 1)), INTEGER)
        if name == "BASH_ARGV0":
            return Var(st.arg0)
        if name == "LINENO":
            return Var(str(st.line))
        if name == "BASHPID":
            return Var(str(st.bashpid or rt.identity.pid), INTEGER)
        if name == "EPOCHSECONDS":
            return Var(str(int(rt.clock())))
        if name == "EPOCHREALTIME":
            return Var(f"{rt.clock():.6f}")
        if name in ("FUNCNAME", "BASH_SOURCE", "BASH_LINENO"):
            return self._call_stack_var(name)
        if name == "PIPESTATUS":
            return Var(IndexedArray([str(s) for s in st.pipestatus]), ARRAY)
        if name == "BASH_SUBSHELL":
            return Var(str(st.subshell + st.subshell_base))
        if name == "GROUPS":
            # (not readonly: bash ignores an assignment to it, att_noassign)
            return Var(IndexedArray([str(rt.identity.gid)]), ARRAY)
        if name == "HISTCMD":
            # bash's get_histcmd: 0 while history is off, else the current command's number less
            # the one being executed (at least 1)
            number = max(1, st.history_base + len(st.history) - 2) if st.opts["history"] else 0
            return Var(str(number), INTEGER)
        if name == "DIRSTACK":
            return Var(IndexedArray([self.state.fs.cwd] + list(st.dirstack)), ARRAY)
        if name == "SHELLOPTS":
            return Var(":".join(k for k, v in sorted(st.opts.items()) if v), READONLY)
        if name == "BASHOPTS":
            return Var(":".join(k for k, v in sorted(st.shopts.items()) if v), READONLY)
        if name in ("BASH_ARGC", "BASH_ARGV"):
            if st.argv_stack is None and not st.frames and not st.argv_debug and not listing:
                init_bash_argv(st)  # (bash's get_bash_argv: a read at the top level fills them)
            if name == "BASH_ARGV":
                return Var(IndexedArray(list(st.argv_stack or ())), ARRAY)
            return Var(IndexedArray([str(n) for n in st.argc_stack]), ARRAY)
        if name == "BASH_COMMAND":
            return Var(self.sh.command_text())
        if name in _TABLES:
            return Var(self._table_array(name), ASSOC | self.state.table_attrs.get(name, 0))
        if name == "_":
            return Var(self.state.last_arg)
        return None

    def listing(self) -> dict[str, Var]:
        """Every variable a listing shows (`declare -p`, `set`, `readonly`): the scopes' own, and
        the dynamic ones bash keeps in its table, as bash lists them: the arrays with their
        value, most scalars declared without one (bash computes those only when read)."""
        out = self.state.vars.visible()
        unspecial = self.state.unspecial
        shown = out.get("PIPESTATUS")
        if shown is not None and "PIPESTATUS" not in unspecial:
            out["PIPESTATUS"] = self.lookup("PIPESTATUS") or shown  # (an assigned one shows the statuses)
        for name in _STORED_KEPT:
            stored = out.get(name)
            if stored is not None and name not in self.state.dyn_values:
                out[name] = Var(None, stored.attrs)  # (bash's: stored when first read)
        for name in OPTION_VARS:
            if name in out:
                out[name] = self.lookup(name) or out[name]
        kept = self.state.dyn_values
        for name, attrs in _LISTED_DYNAMIC.items():
            if name in unspecial:
                continue
            value: Value = None
            if name in out:
                held = out[name]
                if name in _KEPT and not self._function_local(name, held):
                    # (assigned, exported or readonly: bash's cell holds what was kept)
                    if name == "SECONDS" and self.state.seconds_integer:
                        attrs |= INTEGER
                    out[name] = Var(kept.get(name), attrs | held.attrs)
                continue
            if name in _KEPT:
                value = kept.get(name)
                if name == "SECONDS" and self.state.seconds_integer:
                    attrs |= INTEGER
            elif name == "GROUPS" and self.state.groups_read:
                groups = self._computed(name, True)
                value = groups.value if groups is not None else None
            elif name in _LISTED_WITH_VALUE:
                var = self._dynamic(name, listing=True)  # (a listing fills no BASH_ARGV: bash's)
                value = var.value if var is not None else None
                if name == "FUNCNAME" and not self.state.frames:
                    value = None
            elif attrs & ARRAY:
                value = IndexedArray()  # filled when read (GROUPS, DIRSTACK)
            elif attrs & ASSOC:
                value = self._table_array(name)
                attrs |= self.state.table_attrs.get(name, 0)
            out[name] = Var(value, attrs)
        return out

    def _table_array(self, name: str) -> AssocArray:
        """BASH_ALIASES and BASH_CMDS: the alias and command hash tables as associative arrays."""
        # bash copies the table bucket by bucket, each entry to the front of its bucket: the
        # copy has the oldest first within a bucket (set here newest first)
        if name == "BASH_ALIASES":
            arr = AssocArray(ALIAS_BUCKETS)
            for k, v in reversed(self.state.aliases.items()):
                arr.set(k, v)
        else:
            arr = AssocArray(FILENAME_BUCKETS)
            for k, v in reversed(self.state.hashed.items()):
                arr.set(k, v.partition(":")[2])
        return arr

    def _random(self) -> int:
        """The next $RANDOM, as bash's brand(): never the same number twice in a row."""
        st = self.state
        if st.random_pin is not None:
            return st.random_pin
        if st.rand_seed is None:  # a new shell or subshell: seeded from the shell's generator
            st.rand_seed = st.rng.getrandbits(32)
        while True:
            st.rand_seed = seed = _intrand32(st.rand_seed)
            value = ((seed >> 16) ^ (seed & 0xFFFF)) & 0x7FFF
            if value != st.last_random:
                st.last_random = value
                return value

    def pin_random(self, value: int | None) -> int | None:
        """Make every read of $RANDOM give `value` (None: the generator again) and return the
        pin before: an expansion bash reads RANDOM for several times uses one of the values
        (params.random_reads)."""
        before = self.state.random_pin
        self.state.random_pin = value
        return before

    def _call_stack_var(self, name: str) -> Var:
        """FUNCNAME, BASH_SOURCE and BASH_LINENO: innermost call first. FUNCNAME is empty
        outside functions (bash keeps it invisible there; `caller` still sees it)."""
        if name == "FUNCNAME" and not self.state.frames:
            return Var(None, ARRAY)  # (declared without a value: `declare -p` shows no `=()`)
        k = ("FUNCNAME", "BASH_SOURCE", "BASH_LINENO").index(name)
        return Var(IndexedArray([entry[k] for entry in self.call_stack()]), ARRAY)

    def call_stack(self) -> list[tuple[str, str, str]]:
        """(name, file, line it was called from) per call, innermost first: each function, each
        sourced file ("source", where it was sourced), and for a script run from a file its own
        entry ("main", its path, 0) at the bottom."""
        st = self.state
        # built outermost first, then turned round
        calls: list[tuple[str, str, str]] = [("main", st.script or st.arg0, "0")] if st.mode == "file" else []
        sourced = list(zip(st.sources, st.source_lines, strict=False))
        i = 0
        for depth, f in enumerate(st.frames):
            while i < len(sourced) and sourced[i][1][1] <= depth:
                calls.append(("source", sourced[i][0], str(sourced[i][1][0])))
                i += 1
            calls.append((f[0], f[1], str(f[2])))
        for path, (line, _depth) in sourced[i:]:
            calls.append(("source", path, str(line)))
        calls.reverse()
        return calls

    def main_source(self) -> str:
        return {"c": "environment", "s": "main"}.get(self.state.mode, self.state.script or self.state.arg0)

    # ------------------------------------------------------------ lookup

    def _function_local(self, name: str, var: Var) -> bool:
        """Whether `var` is a local some function declared (`local RANDOM`) or a temporary binding
        (`RANDOM=5 eval ...`, `SECONDS=9 f`: bash's assign_in_env makes a plain variable of the
        temporary environment): an ordinary variable, even for the names bash computes when they
        are read."""
        for scope in reversed(self.state.vars.scopes):
            if scope.get(name) is var:
                if scope.temp:
                    return True
                return scope.func and (
                    name in scope.locals or bool(scope.tempvars and name in scope.tempvars)
                )
        return False

    def _pipestatus_shown(self, var: Var) -> bool:
        """Whether an assigned PIPESTATUS reads as the last pipeline's statuses: bash's
        set_pipestatus_array rewrites the variable after every command when it is an indexed
        array, and from the first command on the global one is always that (`PIPESTATUS=5` sets
        its element 0); a function's local scalar, associative or valueless array is left alone."""
        if var.attrs & ASSOC:
            return False
        return not self._function_local("PIPESTATUS", var) or (
            bool(var.attrs & ARRAY) and var.value is not None
        )

    def is_dynamic_array(self, name: str, var: Var) -> bool:
        """Whether the global `var` of `name` is one of the shell's own arrays (PIPESTATUS,
        DIRSTACK, FUNCNAME, BASH_ALIASES, ...), which bash keeps as arrays whatever was assigned
        to them until `unset` takes their meaning away (`declare -n` refuses to make one a
        reference)."""
        if not _LISTED_DYNAMIC.get(name, 0) & (ARRAY | ASSOC) or name in self.state.unspecial:
            return False
        return var.value is None or name == "PIPESTATUS"  # (`PIPESTATUS=5` set its element 0)

    def is_dynamic(self, name: str) -> bool:
        """A variable whose value is computed when it is read, assigned or not (RANDOM, SECONDS...,
        SHELLOPTS and BASHOPTS, which are stored without a value)."""
        return (name in _STAYS_DYNAMIC or name in OPTION_VARS) and name not in self.state.unspecial

    def lookup(self, name: str) -> Var | None:
        store = self.state.vars
        scopes = store.scopes
        var = scopes[-1].get(name)
        if var is None:
            # the innermost other scope that has it (VarStore.find, without its call): the
            # globals, when no scope above them binds the name (VarStore.local_names)
            if name not in store.local_names:
                var = scopes[0].get(name)
            else:
                i = len(scopes) - 2
                while i >= 0:
                    var = scopes[i].get(name)
                    if var is not None:
                        break
                    i -= 1
        if var is not None:
            if var.attrs & NAMEREF and var.value:
                return self._deref(var, name)
            if name in _VALUED_DYNAMIC and name not in self.state.unspecial:
                if name == "PIPESTATUS":
                    if self._pipestatus_shown(var):
                        statuses = IndexedArray([str(s) for s in self.state.pipestatus])
                        return Var(statuses, var.attrs | ARRAY)
                elif name == "_" or not self._function_local(name, var):
                    dyn = self._dynamic(name)
                    return Var(dyn.value, var.attrs | dyn.attrs) if dyn is not None else var
            return var
        if name in _DYNAMIC:
            return self._dynamic(name)
        return None

    def _deref(self, var: Var, name: str) -> Var | None:
        seen = {name}
        target = var.value
        for _ in range(8):
            if not isinstance(target, str) or not target:
                return None
            base, _, sub = target.partition("[")
            if sub:
                return self._deref_element(base, sub[:-1])
            if base in seen:
                return self._circular(name, base)
            seen.add(base)
            nxt = self.state.vars.find(base)
            if nxt is None:
                return self._dynamic(base) if base in _DYNAMIC else None
            if not (nxt.attrs & NAMEREF) or not nxt.value:
                # (a stored SECONDS or SHELLOPTS: its value is computed as it is read)
                return self.lookup(base) if base in _VALUED_DYNAMIC else nxt
            target = nxt.value
        return None

    def _deref_element(self, base: str, key: str) -> Var | None:
        """What a nameref to `base[key]` reads. An indexed subscript is evaluated even when the
        array is unset (`set -u` sees its names); a negative one out of range is reported, and the
        reference reads as unset (bash)."""
        arr = self.state.vars.find(base)
        v = arr.value if arr is not None else None
        if key in ("@", "*"):
            if isinstance(v, (IndexedArray, AssocArray)):
                return self._whole_array(v, key)
            return Var(v, 0) if v is not None else None
        if isinstance(v, AssocArray) or (arr is not None and arr.attrs & ASSOC):
            got = v.get(self.sh.subscript_key(key)) if isinstance(v, AssocArray) else None
        else:
            try:
                index = self.eval_index(key, v if isinstance(v, IndexedArray) else None)
            except AssignError:
                self.sh.report_error(f"{base}: bad array subscript")
                return None
            got = v.get(index) if isinstance(v, IndexedArray) else (v if index == 0 else None)
        return Var(got, 0) if got is not None else None

    def _whole_array(self, v: IndexedArray | AssocArray, key: str) -> Var | None:
        """A nameref to `A[@]` or `A[*]` reads as the elements joined, as `"${A[*]}"` joins them
        (`@` with a space), and keeps the elements for an unbraced `"$ref"` (ElementsVar)."""
        if not v:
            return None
        sep = " "
        if key == "*":
            ifs = self.state.vars.find("IFS")
            sep = ifs.value[:1] if ifs is not None and isinstance(ifs.value, str) else " "
        values = v.values()
        return ElementsVar(sep.join(values), values, key == "*")

    def _circular(self, name: str, base: str) -> Var | None:
        """bash's find_variable_nameref on a circular chain: a warning, then, inside a function
        where the name is local, the global variable of that name (namerefs not followed)."""
        self.sh.warn(f"{name}: circular name reference")
        scope = self._circular_scope(base)
        return scope.get(base) if scope is not None else None

    def _circular_scope(self, base: str) -> Scope | None:
        vars_ = self.state.vars
        if vars_.function_scope() is None or (
            base in vars_.globals and vars_.find(base) is vars_.globals[base]
        ):
            return None
        return vars_.globals

    def scope_done(self, done: Scope) -> None:
        """A function's scope has been popped: the options `local -` saved come back, and the
        call's temporary bindings marked to outlive it go to the caller."""
        saved = done.get("-") if "-" in done.locals else None
        if saved is not None and isinstance(saved.value, str):
            want = set(saved.value.split())
            for name, on in list(self.state.opts.items()):
                if on != (name in want):
                    self.set_option(name, not on)
        if done.propagate:
            self.propagate_temp(done)

    def posix_mode(self, on: bool) -> None:
        """Turn POSIX mode on or off with what bash's posix_initialize does to the shopts: on
        turns on those POSIX asks for; off gives back those `POSIXLY_CORRECT=1 cmd` saved, else
        turns expand_aliases and shift_verbose off (inherit_errexit and the rest stay on)."""
        st = self.state
        st.opts["posix"] = on
        shopts = st.shopts
        if on:
            for key in POSIX_SHOPTS:
                shopts[key] = True
        elif st.posix_saved is not None:
            shopts.update(zip(POSIX_SHOPTS, st.posix_saved, strict=True))
            st.posix_saved = None
        else:
            shopts["expand_aliases"] = shopts["shift_verbose"] = False

    def save_posix(self) -> None:
        """`POSIXLY_CORRECT=v cmd` is bound: keep the shopts posix mode changes, for posix_env_done."""
        self.state.posix_saved = tuple(self.state.shopts[key] for key in POSIX_SHOPTS)

    def posix_env_done(self) -> None:
        """A command (not a special builtin, whose bindings bash leaves in effect) ran with
        `POSIXLY_CORRECT=v` before it: POSIX mode follows the variable seen now."""
        var = self.state.vars.find("POSIXLY_CORRECT")
        self.posix_mode(var is not None and var.value is not None)

    def set_option(self, name: str, on: bool) -> None:
        """Turn a `set -o` option on or off: ignoreeof also sets IGNOREEOF to 10 or unsets it
        (bash's set_ignoreeof; assigning IGNOREEOF turns the option on), posix POSIXLY_CORRECT
        to y (bash's set_posix_mode)."""
        if name == "posix" and self.state.opts[name] == on:
            return  # (bash: no change, so the shopts posix mode set are left as they are now)
        self.state.opts[name] = on
        var = {"ignoreeof": ("IGNOREEOF", "10"), "posix": ("POSIXLY_CORRECT", "y")}.get(name)
        if var is None:
            return
        try:
            if on:
                self.set_var(*var)
            else:
                self.unset_var(var[0])
        except AssignError as e:
            self.sh.error(e.message)

    def import_options(self, env: Mapping[str, str]) -> None:
        """A new bash process turns on the options its environment's SHELLOPTS (`set -o` names) and
        BASHOPTS (shopt names) list, after its command line's (bash's initialize_shell_options and
        initialize_bashopts): `export SHELLOPTS` passes `set -e` on to the scripts a script runs. An
        unknown `set -o` name is reported, an unknown shopt name skipped, as bash does."""
        shell_opts = env.get("SHELLOPTS")
        if shell_opts is not None:
            for name in colon_units(shell_opts):
                if name not in self.state.opts:
                    self.sh.write_err(f"{self.sh.err_name()}: line 0: {name}: invalid option name\n")
                    continue
                self.set_option(name, True)
                if name in ("vi", "emacs"):
                    self.state.opts["emacs" if name == "vi" else "vi"] = False
        bash_opts = env.get("BASHOPTS")
        if bash_opts is not None:
            shopts = self.state.shopts
            for name in colon_units(bash_opts):
                # (login_shell and restricted_shell say how the shell started: never imported)
                if name in shopts and name not in ("login_shell", "restricted_shell"):
                    shopts[name] = True

    def propagate_temp(self, done: Scope) -> None:
        """A function has returned: its call's temporary bindings that `export`, `readonly` or
        `declare -x/-r` marked go to the caller's scope with their value and attributes (bash
        5.2's push_func_var), and on from a caller that is a function when that one returns."""
        vars_ = self.state.vars
        dest = vars_.scopes[-1]
        for name in sorted(done.propagate or ()):
            var = done.get(name)
            if var is None or not done.tempvars or name not in done.tempvars:
                continue
            cur = dest.get(name)
            if cur is not None and cur.attrs & READONLY:
                self.sh.error(f"{name}: readonly variable")
                continue
            new = var.copy()
            if cur is not None:
                new.attrs |= cur.attrs
            _charge(vars_, dest, value_size(new.value) - (value_size(cur.value) if cur else -VAR_OVERHEAD))
            dest[name] = new
            if new.attrs & READONLY:
                vars_.readonly_names.add(name)
            if dest is not vars_.globals:
                dest.tempvars = (dest.tempvars or set()) | {name}
                dest.propagate = (dest.propagate or set()) | {name}

    def resolve_name(self, name: str) -> tuple[str, str | None]:
        """Follow namerefs: the variable (and element) an assignment to `name` changes."""
        seen: set[str] = set()
        cur = name
        while True:
            var = self.state.vars.find(cur)
            if var is None or not (var.attrs & NAMEREF) or not isinstance(var.value, str) or not var.value:
                return cur, None
            if cur in seen:
                raise CircularRef(name)
            seen.add(cur)
            target = var.value
            base, _, sub = target.partition("[")
            if sub:
                return base, sub[:-1]
            cur = base

    def nameref_target(self, name: str) -> str | None:
        var = self.state.vars.find(name)
        if var is not None and var.attrs & NAMEREF and isinstance(var.value, str):
            return var.value
        return None

    def get_str(self, name: str) -> str | None:
        var = self.lookup(name)
        if var is None:
            return None
        v = var.value
        if isinstance(v, str) or v is None:
            return v
        if isinstance(v, IndexedArray):
            return v.get(0)
        return v.get("0")

    def var_names(self) -> list[str]:
        """The names `compgen -v` and `${!prefix*}` give, sorted as bash sorts them: every variable
        a listing shows (the dynamic ones too: RANDOM, EPOCHSECONDS, BASH_SOURCE, GROUPS...) but
        one declared without a value (`declare x`, `local -a y`, FUNCNAME outside a function:
        bash's invisible variables), which `declare -p` shows and these do not. An invisible local
        hides nothing: the name is there while an outer scope holds it set (bash's flatten)."""
        names = {
            name
            for name, var in self.listing().items()
            if var is not None
            and (
                var.value is not None
                or name in _KEPT
                or (name in _LISTED_DYNAMIC and name not in _LISTED_WITH_VALUE)
            )
        }
        for scope in self.state.vars.scopes[:-1]:
            names.update(name for name, var in scope.items() if var is not None and var.value is not None)
        return sorted(names)

    def eval_index(
        self,
        sub: str,
        arr: IndexedArray | None,
        parsed: A.Subscript | None = None,
        arith: bool = False,
        text: str | None = None,
    ) -> int:
        """An indexed subscript's value (negative: counted back from the end of `arr`). `arith`:
        read inside arithmetic, where an empty subscript as written is EmptySubscript.
        `text`: the subscript already expanded (what expand_sub_text gives)."""
        if text is None and parsed is not None:
            text = self.sh.expand_sub_text(sub, parsed)
        elif text is None:
            text = (
                self.sh.expand_sub_text(sub)
                if ("$" in sub or "`" in sub or '"' in sub or "\\" in sub)
                else sub
            )
        if arith and not sub:
            # (`$(( a[$e] ))` expanded to `a[]`; let's `a[$e]` expands to nothing inside the
            # arithmetic, an index of 0, as bash's expr.c evaluates an empty subscript)
            raise EmptySubscript()
        try:
            value = self.sh.arith_eval(text)
        except ArithError:
            raise
        if value < 0:
            if arr is None or value + arr.max_index() + 1 < 0:
                raise AssignError(f"{sub}: bad array subscript")
            value += arr.max_index() + 1
        return value

    # ------------------------------------------------------------ assignment

    def table_target(self, name: str, scope: Scope | None = None) -> bool:
        """Whether an assignment to `name` in `scope` (None: where the name is found) changes
        the alias or command hash table itself, as bash's BASH_ALIASES/BASH_CMDS do: an element,
        a compound assignment (`BASH_CMDS=([cat]=/bin/rm)`, `+=`, `declare -A`, `declare -g`,
        `readonly`, `export` at the top level), never a local of that name (`local -A BASH_CMDS`
        in a function makes an ordinary variable) nor after `unset` made the name ordinary."""
        if name not in _TABLES or name in self.state.unspecial:
            return False
        vars_ = self.state.vars
        return (scope is None or scope is vars_.scopes[0]) and vars_.find(name) is None

    def table_readonly(self, name: str) -> bool:
        """Whether `readonly BASH_CMDS` (or BASH_ALIASES) made the table's variable readonly: bash
        then refuses every assignment to it (an element, a list, `read`, `printf -v`, `unset`),
        while `hash -p`, `hash -r`, `alias` and `unalias` still change the table itself."""
        return bool(self.state.table_attrs.get(name, 0) & READONLY) and self.table_target(name)

    def table_put(self, name: str, key: str, value: str, append: bool = False) -> None:
        """One entry of the alias or command hash table (`BASH_CMDS[cat]=/bin/rm` is `hash -p
        /bin/rm cat`: the policy decides on the program the name then runs); `+=` appends to
        the alias's text or the entry's path, as bash does."""
        if self.table_readonly(name):
            raise ReadonlyError(f"{name}: readonly variable")
        if name == "BASH_ALIASES":
            aliases = self.state.aliases
            aliases[key] = aliases.get(key, "") + value if append else value
            return
        hashed = self.state.hashed
        if append and key in hashed:
            value = hashed[key].partition(":")[2] + value
        hashed[key] = hash_entry(value)

    def _reference_home(self, ref: str, target: str) -> Scope | None:
        """Where bash's bind_variable puts a value assigned through `ref`, a function's local
        reference to `target`, when that is not where a plain assignment to `target` would: it
        resolves from the reference's own scope down, so a called function's local `target` and
        a temporary binding above (`IFS=: read q` with q a reference to IFS) are not seen; a
        target found nowhere is a global. None: the plain way (a global reference resolves from
        the top; a chain of references is left to it too)."""
        scopes = self.state.vars.scopes
        i, var = self.state.vars.find_scope(ref)
        if i <= 0 or var is None or not scopes[i].func or var.value != target:
            return None
        home = scopes[0]
        for j in range(i, -1, -1):
            found = scopes[j].get(target)
            if found is not None:
                if found.attrs & NAMEREF:
                    return None
                home = scopes[j]
                break
        return None if home is self._scope_for_write(target)[0] else home

    def _scope_for_write(self, name: str) -> tuple[Scope, Var | None]:
        scopes = self.state.vars.scopes
        for i in range(len(scopes) - 1, -1, -1):
            v = scopes[i].get(name)
            if v is not None:
                return scopes[i], v
        return scopes[0], None

    def _convert(self, var: Var | None, value: str, attrs: int, append_to: str | None = None) -> str:
        if attrs & INTEGER:
            try:
                n = self.sh.arith_eval(value) if value.strip() else 0
            except ArithError as e:
                raise IntValueError(e.render(), 1, exits=True) from None
            if append_to is not None:
                try:
                    # the sum wraps at 64 bits as bash's intmax_t does (`n+=1` past INT64_MAX)
                    n = wrap(n + (self.sh.arith_eval(append_to) if append_to.strip() else 0))
                except ArithError as e:
                    raise IntValueError(e.render(), 1, exits=True) from None
            return str(n)
        if append_to is not None:
            value = append_to + value
        if attrs & (UPPER | LOWER | CAPITALIZE):
            from ..expand import casemap  # (declare -u/-l/-c only: not imported by every run)

            c_locale = not value.isascii() and self.locale_bytes()  # (bytes: only ASCII letters change)
            if attrs & UPPER:
                return casemap.upper(value, c_locale)
            if attrs & LOWER:
                return casemap.lower(value, c_locale)
            return casemap.capitalize(value, c_locale)
        return value

    def store_plain(self, name: str, value: str, append: bool = False) -> bool:
        """`name=value` (`name+=value`) when `name` is an existing variable without attributes
        beyond -x whose value is a string or nothing yet (`local v; v=$1`), and `set -a` is off:
        what set_var's general way does for it (the length checked, the memory charged, then the
        value stored), True. False, nothing done: any other variable, or none. The caller has
        tested that `name` is not in NOT_PLAIN (set_var as it runs, the compiler once)."""
        state = self.state
        store = state.vars
        scopes = store.scopes
        home = scopes[-1]
        found = home.get(name)
        if found is None:
            # the innermost other scope that has it (VarStore.find_scope, without its call): the
            # globals, when no scope above them binds the name (VarStore.local_names)
            if name not in store.local_names:
                home = scopes[0]
                found = home.get(name)
                if found is None:
                    return False
            else:
                i = len(scopes) - 2
                while i >= 0:
                    home = scopes[i]
                    found = home.get(name)
                    if found is not None:
                        break
                    i -= 1
                else:
                    return False
        text = found.value
        if text is None:
            text = ""
        elif type(text) is not str:
            return False
        if found.attrs & ~EXPORT or state.opts["allexport"]:
            return False
        size = len(text) + len(value) if append else len(value)
        if size > self.sh.rt.limits.max_string_length:
            self.sh.check_string(size)
        # the change in bytes as value_size counts them (text appended to is wide when either
        # part is), charged before the value is stored: a limit leaves the old one
        n = (size if value.isascii() and (not append or text.isascii()) else 4 * size) - (
            len(text) if text.isascii() else 4 * len(text)
        )
        if n:
            state.vars.charge(home, n)
        if append:
            found.value = None  # drop the reference so += extends the text in place
            text += value
            value = text
        found.value = value
        return True

    def store_fields(
        self, names: list[str], plain: list[bool], fields: list[str], bound: bool = False
    ) -> int:
        """read's fields stored into its names in order (a name past the fields gets ""): each as
        store_plain would store it while it can (`plain[k]`: the name is not in NOT_PLAIN; an
        existing variable without attributes beyond -x holding a string or nothing), with the
        same charge, else by set_var: one call a line in place of one a name, the store's lookups
        made once (`IFS=, read -r a b c` in a loop). The callers' records are within
        max_string_length (_read_record's check, the compiled reads'), so is each field: no
        length is checked here. An error (readonly, a limit) leaves that name's old value and the
        names before it stored, as set_var's one at a time do. `bound`: read runs under a
        temporary `IFS=TEXT` binding that is not pushed (interp/fastread): the first name that is
        no such plain variable and whose store may read the binding (BINDING_READERS) and the
        names after it are left for the caller to store with the binding pushed (a name given
        twice is such a variable at its first too: names.index finds where). The count of names
        stored."""
        state = self.state
        store = state.vars
        globals_ = store.scopes[0]
        get = globals_.get
        local_names = store.local_names
        acct = store.acct
        count = len(names)
        if len(fields) < count:  # (the names past the fields get "": padded once, not tested each)
            fields = fields + [""] * (count - len(fields))
        # (attributes that need set_var's way; so does `set -a`, which exports what it stores)
        other = -1 if state.opts["allexport"] else ~EXPORT
        for name, value, is_plain in zip(names, fields, plain, strict=False):  # (as long: padded above)
            if not is_plain:
                if bound and self._reads_binding(name):
                    return names.index(name)
                self.set_var(name, value)
                continue
            if name in local_names:  # (a scope above the globals may bind it: store_plain's search)
                if not self.store_plain(name, value):
                    if bound and self._reads_binding(name):
                        return names.index(name)
                    self.set_var(name, value)
                continue
            found = get(name)
            if found is None or found.attrs & other:
                if bound and self._reads_binding(name):
                    return names.index(name)
                self.set_var(name, value)
                continue
            text = found.value
            if type(text) is not str:
                if text is not None:  # (an array: set_var stores its element 0)
                    if bound and self._reads_binding(name):
                        return names.index(name)
                    self.set_var(name, value)
                    continue
                text = ""
            # the change in bytes as value_size counts them, charged before the value is stored
            # (no length check: a field is within the record, which is within max_string_length)
            if value.isascii() and text.isascii():
                n = len(value) - len(text)
            else:
                size = len(value)
                n = (size if value.isascii() else 4 * size) - (len(text) if text.isascii() else 4 * len(text))
            if n:
                # (VarStore.charge: MemAccount.add's common case inline, within the grains charged)
                held = acct.held + n
                if held >= 0 and acct.charged - TWO_GRAINS <= held <= acct.charged and globals_.acct is acct:
                    acct.held = held
                    globals_.size += n
                else:
                    store.charge(globals_, n)
            found.value = value
        return count

    def store_field(self, name: str, value: str) -> bool:
        """store_fields' way for one name (`IFS= read -r line`, `read -r` into REPLY: a `while read`
        loop stores one field a line), without its lists: True when `name` (not in NOT_PLAIN) is a
        global that no scope above binds, without attributes beyond -x and not under `set -a`,
        holding a string or nothing, or a name store_plain stores where a scope above may bind
        it, and now holds `value`, charged as store_fields charges it (a limit leaves the old
        value); False: nothing done (store_fields' way)."""
        state = self.state
        store = state.vars
        if name in store.local_names:  # (a scope above the globals may bind it: store_plain's search)
            return self.store_plain(name, value)
        globals_ = store.scopes[0]
        found = globals_.get(name)
        if found is None or found.attrs & ~EXPORT or state.opts["allexport"]:
            return False
        text = found.value
        if type(text) is not str:
            if text is not None:
                return False
            text = ""
        if value.isascii() and text.isascii():
            n = len(value) - len(text)
        else:
            size = len(value)
            n = (size if value.isascii() else 4 * size) - (len(text) if text.isascii() else 4 * len(text))
        if n:
            acct = store.acct  # (VarStore.charge's common case inline, as store_fields has it)
            held = acct.held + n
            if held >= 0 and acct.charged - TWO_GRAINS <= held <= acct.charged and globals_.acct is acct:
                acct.held = held
                globals_.size += n
            else:
                store.charge(globals_, n)
        found.value = value
        return True

    def _set_last_arg(self, value: str, append: bool) -> None:
        """`_` assigned while no variable of that name exists (`read x _`, `printf -v _ v`, `for _
        in ...`, `_=v`): `$_` is the last word of the command before (state.last_arg), which bash
        keeps in its variable `_` and rebinds as each command ends; the value is held there until
        then, not in a variable that would hide the words of every later command."""
        st = self.state
        if append:
            value = st.last_arg + value
            if len(value) > self.sh.rt.limits.max_string_length:
                self.sh.check_string(len(value))
        st.last_arg = value

    def _reads_binding(self, name: str) -> bool:
        """Storing into `name` may read a temporary IFS binding (store_fields' `bound`)."""
        var = self.state.vars.find(name)
        return var is not None and bool(var.attrs & BINDING_READERS)

    def set_var(
        self,
        name: str,
        value: str,
        *,
        sub: str | None = None,
        append: bool = False,
        scope: Scope | None = None,
        parsed: A.Subscript | None = None,
    ) -> None:
        """Assign a scalar (or one element when `sub` is given; `parsed`: `sub` as the parser read it)."""
        if sub is None and scope is None and name not in NOT_PLAIN and self.store_plain(name, value, append):
            return  # the common case: an existing plain string variable
        if sub is not None and scope is None and sub and name not in _ELEMENT_SPECIAL:
            if self._set_plain_element(name, value, sub, append, parsed):
                return
        if name == "_" and sub is None and scope is None and self.state.vars.find(name) is None:
            self._set_last_arg(value, append)
            return
        if (sub or (sub is None and scope is None)) and self.table_target(name, scope):
            # `BASH_CMDS=/bin/x` is the entry of key 0 (bash's assoc `A=v`); `+=` replaces it there
            key = "0" if sub is None else self.sh.subscript_key(sub, parsed)
            self.table_put(name, key, value, append and sub is not None)
            return
        if sub is not None and scope is None and name == "DIRSTACK" and name not in self.state.unspecial:
            # an element replaces that stack entry (dirs +N); the current directory (0) stays
            index = self.eval_index(sub, None, parsed)
            stack = self.state.dirstack
            if 1 <= index <= len(stack):
                stack[index - 1] = stack[index - 1] + value if append else value
            return
        if name in _NOASSIGN and name not in self.state.unspecial:
            return  # bash's att_noassign: assignments are ignored until `unset` makes the name ordinary
        # (an element written through a reference names the reference when refused: bash)
        written = name if sub is not None else None
        asked = name
        if scope is None and self.state.vars.find(name) is not None:
            try:
                target, tsub = self.resolve_name(name)
            except CircularRef as e:
                # in a function, bash warns and assigns the global variable of that name;
                # elsewhere the warning ends the command line (as a readonly assignment does)
                scope = self._circular_scope(name)
                if scope is None:
                    e.fatal = True
                    raise
                self.sh.warn(f"{name}: circular name reference")
                target, tsub = name, None
            if (
                tsub is not None
                and target == name
                and (self.nameref_target(name) or "")[: len(name) + 1] == name + "["
            ):
                # `local -n r=r[1]; r=x`: a reference to an element of itself (bash)
                raise AssignError(f"`{target}[{tsub}]': not a valid identifier")
            if tsub is not None:
                if sub is not None:
                    # (named: `read er[k]`, `printf -v 'er[k]'` and (( )) put their name before it)
                    raise AssignError(f"`{target}[{tsub}]': not a valid identifier", fatal=False, named=True)
                sub, parsed = tsub, None
            if scope is None and sub is None and tsub is None:
                scope = self._reference_home(name, target)
            name = target
            if sub and scope is None and self.table_target(name):  # `declare -n r=BASH_CMDS; r[cat]=...`
                self.table_put(name, self.sh.subscript_key(sub, parsed), value, append)
                return
        if sub == "":
            raise AssignError(f"{name}[]: bad array subscript")  # `a[]=x` (bash's valid_array_reference)
        if sub is not None and scope is None and name in _STAYS_DYNAMIC:
            self.ordinary_array(name)  # (`RANDOM[1]=3`: bash's convert_var_to_array)
        if scope is None:
            target_scope, var = self._scope_for_write(name)
            if (
                var is not None
                and var.attrs & THROUGH
                and target_scope is self.state.vars.scopes[-1]
                and name == asked
            ):
                # (not through a reference: bash's resolution finds the binding itself)
                self._store_through(name, value, sub, append, parsed)
        else:
            target_scope, var = scope, scope.get(name)
        if (var is not None and var.attrs & READONLY) or (var is None and name in _READONLY_DYNAMIC):
            if sub is not None and var is not None and isinstance(var.value, IndexedArray | None):
                self._readonly_index(name, var, sub, parsed)
            raise ReadonlyError(f"{written or name}: readonly variable")
        if (
            var is not None
            and var.attrs & NAMEREF
            and sub is None
            and not append
            and not valid_ref_target(value)
        ):
            # a nameref without a target takes the value as the name it refers to
            raise AssignError(f"`{value}': not a valid identifier", named=True)
        if var is not None and var.attrs & NAMEREF and sub is not None:
            if not var.value:
                raise AssignError("`': not a valid identifier", named=True)  # `declare -n r; r[0]=x`
            self.drop_nameref(name, var)  # a chain that ends at an element of a reference
        ordinary = name in _STAYS_DYNAMIC and (
            target_scope.temp or (var is not None and self._function_local(name, var))
        )
        # (`local SECONDS=10` is a plain variable: the shell's clock is not reset; `LC_ALL=x prog`
        # binds it for the program alone; but `PATH=x prog` empties the hash table, as bash's
        # sv_path: else `hash -p /bin/rm cat; PATH=... cat f` ran rm under a policy that denies it)
        if not ordinary and not (
            target_scope.temp and name != "PATH" and self._for_program(target_scope.owner)
        ):
            if append and name in _WHOLE_VALUE_HOOKS and var is not None and isinstance(var.value, str):
                self._special_assign(name, var.value + value)
            else:
                self._special_assign(name, value)
        self.sh.check_string(len(value))
        vars_ = self.state.vars
        # set -a exports what a scalar assignment sets, not an element (bash: arr[1]=x, x[3]=1)
        allexport = self.state.opts["allexport"] and sub is None
        if var is None:
            _charge(vars_, target_scope, VAR_OVERHEAD)
            var = Var(None, EXPORT if allexport else 0)
            target_scope[name] = var
        elif allexport:
            var.attrs |= EXPORT
        attrs = var.attrs
        cur = var.value
        if sub is not None:
            try:
                self._set_element(name, var, sub, value, append, target_scope, parsed)
            except IntValueError:
                raise
            except ExpansionError as e:
                raise ElementError.of(e) from None
            return
        if cur is None and attrs & (ARRAY | ASSOC):
            # declared as an array but unset (`declare -a a`): `a=x` sets element 0
            cur = var.value = IndexedArray() if attrs & ARRAY else AssocArray()
        if isinstance(cur, IndexedArray):
            old = cur.get(0) if append else None
            _store(vars_, target_scope, cur, 0, self._convert(var, value, attrs, old))
            return
        if isinstance(cur, AssocArray):
            old = cur.get("0") if append else None
            _store(vars_, target_scope, cur, "0", self._convert(var, value, attrs, old))
            return
        old_s = (cur or "") if append else None
        new: str | None = self._convert(var, value, attrs, old_s)
        if name in _STAYS_DYNAMIC and name not in self.state.unspecial and not ordinary:
            new = None  # the value seeded (or offset) the variable: reading it stays dynamic
        _charge(vars_, target_scope, value_size(new) - value_size(cur))
        var.value = new

    def ordinary_array(self, name: str, reads: int = 2) -> None:
        """A dynamic variable (RANDOM, SECONDS, LINENO, ...) made an array, by an element's or a
        list's assignment or `declare -a/-A`: bash's convert_var_to_array keeps the value as
        element 0 (read `reads` times: the last is kept) with the variable's integer attribute,
        and the variable is an ordinary one from then on (`echo $RANDOM` gives that element).
        Nothing for a function's own local of that name, or a name made ordinary already."""
        st = self.state
        if name not in _STAYS_DYNAMIC or name in st.unspecial:
            return
        scope, var = self._scope_for_write(name)
        if scope.temp or (var is not None and self._function_local(name, var)):
            return
        dyn = None
        for _ in range(reads):
            dyn = self._dynamic(name)
        st.unspecial.add(name)
        value = dyn.value if dyn is not None and isinstance(dyn.value, str) else None
        attrs = INTEGER if name in _INTEGER_DYNAMIC else 0
        if var is None:
            _charge(st.vars, scope, VAR_OVERHEAD + value_size(value))
            scope[name] = Var(value, attrs)
            return
        _charge(st.vars, scope, value_size(value) - value_size(var.value))
        var.value = value
        var.attrs |= attrs

    def _store_through(
        self, name: str, value: str, sub: str | None, append: bool, parsed: A.Subscript | None
    ) -> None:
        """A builtin's store into its own temporary binding (`OPTIND=2 getopts ...`, `v=1 printf
        -v v x`, `PWD=/x cd /`) is made to the variable the binding hides too, which keeps it
        after the command, as bash's bind_variable writes temporary_env and then shell_variables
        (the binding is no context of its own but for eval, source, unset, mapfile, read and fc:
        executor's OWN_CONTEXT). The caller then stores into the binding itself."""
        store = self.state.vars
        temp = store.pop()
        try:
            self.set_var(name, value, sub=sub, append=append, parsed=parsed)
        finally:
            store.push(temp)

    def _set_plain_element(
        self,
        name: str,
        value: str,
        sub: str,
        append: bool,
        parsed: A.Subscript | None,
        key_fn: Callable[[], str] | None = None,
        text_fn: Callable[[], str] | None = None,
    ) -> bool:
        """`a[i]=v`, `m[$k]=v` for an existing array without attributes beyond -a/-A/-x (no
        readonly, nameref, integer or case): what the general path does, in its order (the value's
        length, the key or index, the element count, then the memory), without its searches for
        references and special names. False (nothing done) for any other variable. `key_fn`: what
        subscript_key(sub, parsed) gives, `text_fn` what expand_sub_text(sub, parsed) gives (an
        index's text before arithmetic), as the compiler bound them (expand/stringfn.py)."""
        vars_ = self.state.vars
        i, var = vars_.find_scope(name)
        if var is None or var.attrs & ~(ARRAY | ASSOC | EXPORT):
            return False
        cur = var.value
        if type(cur) is AssocArray:
            self.sh.check_string(len(value))
            try:
                key = key_fn() if key_fn is not None else self.sh.subscript_key(sub, parsed)
            except ExpansionError as e:
                raise ElementError.of(e) from None
            if key == "":
                raise AssignError(f"{name}[{sub}]: bad array subscript")
            self._put(vars_.scopes[i], cur, key, value, append)
            return True
        if type(cur) is IndexedArray and sub != "@" and sub != "*":
            self.sh.check_string(len(value))
            index = element_index(
                name,
                sub,
                lambda: self.eval_index(sub, cur, parsed, text=text_fn() if text_fn is not None else None),
            )
            self._put(vars_.scopes[i], cur, index, value, append)
            return True
        return False

    def _put(self, scope: Scope, arr: IndexedArray | AssocArray, key: Any, value: str, append: bool) -> None:
        """Store one element of an array held in `scope` whose key or index and value were checked:
        the element count (max_array_elements counts keys, as indices), then the memory charged to
        the scope. element_setter's closure (the compiled `a[k]=x`) and store_index (the arithmetic's
        `a[k%3]++`) do the same inline: keep the three in step."""
        self.sh.check_array(len(arr) + 1)
        old = arr.get(key) if append else None
        _store(self.state.vars, scope, arr, key, value if old is None else old + value)

    def store_index(self, name: str, index: int, value: str) -> bool:
        """`(( a[k%3]++ ))`, `(( a[i*2+1] += k ))`: the element store of the arithmetic evaluator
        with the index it already computed (Shell.arith_index evaluated the subscript once and
        resolved a negative one): _set_plain_element's indexed branch without a second evaluation,
        the same checks in its order (the value's length, the element count, then the memory).
        False (nothing done) for anything else: not an existing indexed array without attributes
        beyond -a/-x (readonly, nameref, integer, case, associative: set_var's way), a special
        name, a negative index (set_var resolves it and reports `bad array subscript`)."""
        if index < 0 or name in _ELEMENT_SPECIAL:
            return False
        # (_put's steps and the scope search inline: this is the arithmetic's hot path)
        vars_ = self.state.vars
        scopes = vars_.scopes
        i = len(scopes) - 1
        while True:
            var = scopes[i].get(name)
            if var is not None:
                break
            if i == 0:
                return False
            i -= 1
        cur = var.value
        if var.attrs & ~(ARRAY | EXPORT) or type(cur) is not IndexedArray:
            return False
        sh = self.sh
        sh.check_string(len(value))
        sh.check_array(len(cur) + 1)
        _store(vars_, scopes[i], cur, index, value)
        return True

    def store_key(self, name: str, key: str, value: str) -> bool:
        """`(( m[$w]++ ))`, `(( m["$w"] += 2 ))`: the arithmetic evaluator's store of an associative
        element whose key text has nothing left to expand (no `$`, backquote, quote or backslash:
        subscript_key gives it back as it is, and so does assoc_expand_once's as-is key), so the
        key is that text: _set_plain_element's associative branch without set_var's searches, the
        same checks in its order (the value's length, the element count, then the memory), inline
        as store_index's. False (nothing done) for anything else: a key with something to expand
        (it is expanded where set_var expands it, as often), not an existing associative array
        without attributes beyond -A/-x (readonly, nameref, integer, case: set_var's way), a
        special name (BASH_ALIASES, BASH_CMDS)."""
        if name in _ELEMENT_SPECIAL or "$" in key or "`" in key or "'" in key or '"' in key or "\\" in key:
            return False
        vars_ = self.state.vars
        scopes = vars_.scopes
        i = len(scopes) - 1
        while True:
            var = scopes[i].get(name)
            if var is not None:
                break
            if i == 0:
                return False
            i -= 1
        cur = var.value
        if var.attrs & ~(ASSOC | EXPORT) or type(cur) is not AssocArray:
            return False
        sh = self.sh
        sh.check_string(len(value))
        sh.check_array(len(cur) + 1)
        _store(vars_, scopes[i], cur, key, value)
        return True

    def element_setter(
        self,
        name: str,
        sub: str,
        append: bool,
        parsed: A.Subscript | None,
        key_fn: Callable[[], str] | None,
        text_fn: Callable[[], str] | None,
    ) -> Callable[[str], bool]:
        """_set_plain_element(name, value, sub, append, parsed, key_fn, text_fn) for a compiled
        `name[sub]=value` (Compiler.element), everything but the value bound: the same checks in
        the same order (the value's length, the key or index, the element count, then the
        memory), the scope search inlined, and an index whose text is a literal name or
        expression (`a[k]=x`, `a[i+1]=x`) evaluated without expand_sub_text (its text is the
        subscript as written: parsed.arith is None or one literal part) by its Shell.arith_fn.
        False: not an existing array
        without attributes beyond -a/-A/-x (set_var's way)."""
        state = self.state
        sh = self.sh
        check_string = sh.check_string
        check_array = sh.check_array
        eval_index = self.eval_index
        subscript_key = sh.subscript_key
        whole = sub == "@" or sub == "*"  # (`a[@]=x`: set_var reports it)
        arith = parsed.arith if parsed is not None else None
        literal: str | None = None
        if arith is not None and len(arith.parts) == 1 and type(arith.parts[0]) is Lit:
            literal = arith.parts[0].text
        elif parsed is not None and arith is None:
            literal = sub  # (`a[i]`, `a[i+1]`: nothing to expand, the text as written is read)
        # a literal that is a lone name (`a[k]=x`): its value read here as `$k`'s is below (a plain
        # number, or one arithmetic stored), anything else evaluated as the text (eval_index)
        named: str | None = None
        if literal is not None and arith is None and is_name(literal) and literal not in NOT_PLAIN:
            named, literal = literal, None
        # (a literal that is no plain number: arith_eval bound)
        index_fn = sh.arith_fn(literal) if literal is not None and not plain_index(literal) else None
        # a subscript that is one parameter: `a[${#a[@]}]` (the count of this array, which the
        # parameter's lookup would find: a name found here is no reference, not dynamic) and
        # `a[$i]` (a plain variable's value, when plain_index takes it; else the text's way)
        counted = False
        ref: str | None = None
        if literal is None and arith is not None and len(arith.parts) == 1 and type(arith.parts[0]) is Param:
            p = arith.parts[0]
            plain = p.op is None and not p.names_suffix
            if plain and p.prefix == "#" and p.name == name and (p.sub == "@" or p.sub == "*"):
                counted = True
            elif plain and not p.prefix and p.sub is None and is_name(p.name) and p.name not in NOT_PLAIN:
                ref = p.name
        ref = named or ref
        ints = INTS
        bad = f"{name}[{sub}]: bad array subscript"

        def set_element(value: str) -> bool:
            vars_ = state.vars
            scopes = vars_.scopes
            i = len(scopes) - 1
            var = scopes[i].get(name)
            if var is None:
                if name not in vars_.local_names:  # (only the globals may have it: store_plain's search)
                    i = 0
                    var = scopes[0].get(name)
                    if var is None:
                        return False
                else:
                    while True:
                        i -= 1
                        if i < 0:
                            return False
                        var = scopes[i].get(name)
                        if var is not None:
                            break
            if var.attrs & ~(ARRAY | ASSOC | EXPORT):
                return False
            cur = var.value
            if type(cur) is AssocArray:
                check_string(len(value))
                try:
                    key = key_fn() if key_fn is not None else subscript_key(sub, parsed)
                except ExpansionError as e:
                    raise ElementError.of(e) from None
                if key == "":
                    raise AssignError(bad)
                check_array(len(cur) + 1)  # (max_array_elements counts keys, as indices)
                old = cur.get(key) if append else None
                _store(vars_, scopes[i], cur, key, value if old is None else old + value)
                return True
            if type(cur) is not IndexedArray or whole:
                return False
            limits = sh.rt.limits  # (check_string and check_array inline: the limit read, then called)
            if len(value) > limits.max_string_length:
                check_string(len(value))
            try:
                if literal is not None:
                    if index_fn is None:
                        index = int(literal)
                    else:
                        index = index_fn()  # (what eval_index does with the text)
                        if index < 0:
                            index += cur.max_index() + 1
                            if index < 0:
                                raise AssignError(bad)
                elif counted:
                    index = len(cur)
                else:
                    index = -1
                    if ref is not None:
                        found = scopes[-1].get(ref)
                        if found is None and len(scopes) > 1:  # (VarStore.find, the innermost first)
                            found = vars_.find(ref)
                        if found is None or found.attrs & NAMEREF:
                            pass
                        elif (n := ints.get(v := found.value)) is not None:  # type: ignore[arg-type]
                            index = n  # (a number arithmetic stored; a negative one: the text's way)
                        else:
                            # (plain_index inline: `$i` as a number, which its text would be)
                            if (
                                type(v) is str
                                and v.isdigit()
                                and v.isascii()
                                and len(v) < 19
                                and (v[0] != "0" or len(v) == 1)
                            ):
                                index = int(v)
                    if index < 0:
                        text = text_fn() if text_fn is not None else None
                        if text is not None and plain_index(text):
                            index = int(text)  # (arith_eval's own shortcut, without the calls)
                        else:
                            index = eval_index(sub, cur, parsed, text=text)
            except ArithError as e:  # (bash -c exits, a script goes on with its next line)
                raise ElementError.of(ExpansionError(e.render(), 1, exits=True, arith=True)) from None
            except ExpansionError as e:
                raise ElementError.of(e) from None
            except AssignError:
                raise AssignError(bad) from None
            count = len(cur) + 1
            if count > limits.max_array_elements:
                check_array(count)
            if append:
                old = cur.get(index)
                if old is not None:
                    value = old + value
            _store(vars_, scopes[i], cur, index, value)
            return True

        return set_element

    def push_values(self, name: str, values: list[str], append: bool) -> bool:
        """`a+=(x y)` / `a=(x y)` (words without keys) for an existing indexed array without
        attributes beyond -a/-x: set_array's common case without its item tuples, the element
        count checked and the memory charged before anything is stored. False (nothing done):
        any other variable (set_array's way, which reports what it refuses)."""
        vars_ = self.state.vars
        scopes = vars_.scopes
        if name not in vars_.local_names:  # (VarStore.find_scope's globals case, inline)
            scope = scopes[0]
            found = scope.get(name)
        else:
            i, found = vars_.find_scope(name)
            scope = scopes[i]
        if found is None or found.attrs & ~(ARRAY | EXPORT) or name in _NOASSIGN:
            return False
        arr = found.value
        if type(arr) is not IndexedArray:
            return False
        limit = self.sh.rt.limits.max_array_elements  # (Shell.check_array inline)
        n = elements_bytes(values)
        if append:
            if len(arr) + len(values) > limit:
                raise LimitExceeded(LimitKind.MAX_ARRAY_ELEMENTS, limit)
            if n:
                vars_.charge(scope, n)
            arr.extend(values, n)
        else:
            if len(values) > limit:
                raise LimitExceeded(LimitKind.MAX_ARRAY_ELEMENTS, limit)
            old = arr.nbytes
            if n <= SMALL_ARRAY_BYTES:
                # a small array (`read -a` of a line, `a=(x y z)` in a loop) charged as a scalar
                # is: the change, once, before the new one is made
                if n != old:
                    vars_.charge(scope, n - old)
                found.value = IndexedArray(values, n)
            else:
                # the new array is charged before it is made (the old one is alive until replaced)
                vars_.charge(scope, n)
                found.value = IndexedArray(values, n)
                if old:
                    vars_.charge(scope, -old)
        found.attrs |= ARRAY
        return True

    def set_values(
        self, name: str, values: list[str], append: bool = False, by_builtin: bool = False
    ) -> None:
        """`name=(words)`, `read -a`, `mapfile` of values without keys: push_values, else
        set_array's general way with the item list it takes charged before it is made (held until
        the array is filled: a million items are 72 MB beside their values)."""
        if self.push_values(name, values, append):
            return
        with MemoryHold(self.sh.rt.budget) as held:
            held.charge(len(values) * ITEM_BYTES)
            self.set_array(name, [(None, v, False) for v in values], append=append, by_builtin=by_builtin)

    def drop_nameref(self, name: str, var: Var) -> None:
        """An element is assigned to a nameref (`declare -a r[1]=x`, a chain ending at `r[1]`):
        bash warns, and the reference becomes an ordinary variable without a value."""
        self.sh.warn(f"{name}: removing nameref attribute")
        var.attrs &= ~NAMEREF
        if var.value is not None:
            scope = self._scope_for_write(name)[0]
            _charge(self.state.vars, scope, -value_size(var.value))
            var.value = None

    def _set_element(
        self,
        name: str,
        var: Var,
        sub: str,
        value: str,
        append: bool,
        scope: Scope | None = None,
        parsed: A.Subscript | None = None,
    ) -> None:
        """One element of `var` (made an array if it is not one), charged as it changes the value.
        The key or index first: a bad one leaves the variable as it was (`declare -a a; a[1+]=x`),
        and its expansion may assign the variable itself (`b[b[0]=5]=q`, `m[$((m[a]=1))]=v`):
        bash stores into what that made, and that assignment charged itself."""
        assoc = isinstance(var.value, AssocArray) or bool(var.attrs & ASSOC)
        if assoc:
            key = self.sh.subscript_key(sub, parsed)
            if key == "":
                raise AssignError(f"{name}[{sub}]: bad array subscript")
            index = 0
        else:
            if sub in ("@", "*"):
                raise AssignError(f"{name}[{sub}]: bad array subscript")  # (the variable unchanged)
            cur = var.value
            arr = (
                cur
                if isinstance(cur, IndexedArray)
                else IndexedArray([cur] if isinstance(cur, str) else None)
            )
            try:
                index = self.eval_index(sub, arr, parsed)
            except ArithError as e:  # (bash -c exits, a script goes on with its next line)
                raise ExpansionError(e.render(), 1, exits=True, arith=True) from None
            except AssignError:
                raise AssignError(f"{name}[{sub}]: bad array subscript") from None
        cur = var.value
        if scope is None:
            scope = self._scope_for_write(name)[0]
        vars_ = self.state.vars
        if assoc:
            if not isinstance(cur, AssocArray):
                _charge(vars_, scope, -value_size(cur))
                cur = var.value = AssocArray()  # (`declare -A m` unset until an element is set)
            self.sh.check_array(len(cur) + 1)  # (max_array_elements counts keys, as indices)
            old = cur.get(key) if append else None
            _store(
                vars_,
                scope,
                cur,
                key,
                self._convert(var, value, var.attrs, old) if (append or var.attrs) else value,
            )
            return
        if not isinstance(cur, IndexedArray):
            # a scalar becomes element 0 (`x=1; x[2]=y`): its text stays charged, its element's overhead too
            _charge(vars_, scope, ELEMENT_OVERHEAD if isinstance(cur, str) else 0)
            cur = var.value = IndexedArray([cur] if isinstance(cur, str) else None)
        self.sh.check_array(len(cur) + 1)
        old2 = cur.get(index) if append else None
        _store(
            vars_,
            scope,
            cur,
            index,
            self._convert(var, value, var.attrs, old2) if (append or var.attrs) else value,
        )

    def _readonly_index(self, name: str, var: Var, sub: str, parsed: A.Subscript | None) -> None:
        """bash computes an element's index before it finds the array readonly: `c[-9]=x` on a
        readonly array is a bad subscript first (the index is not computed a second time)."""
        if var.attrs & ASSOC or sub in ("@", "*"):
            return
        arr = var.value if isinstance(var.value, IndexedArray) else None
        try:
            self.eval_index(sub, arr, parsed)
        except AssignError:
            raise AssignError(f"{name}[{sub}]: bad array subscript") from None

    def set_array(
        self,
        name: str,
        items: list[tuple[str | None, str, bool]],
        *,
        append: bool = False,
        assoc: bool | None = None,
        scope: Scope | None = None,
        by_builtin: bool = False,
    ) -> None:
        """Assign `name=( ... )`: items are (key or None, value, key+=). `by_builtin`: the values
        are a builtin's (read -a, mapfile), which names itself in an integer value's error (bash)."""
        if self.noassign(name):
            raise AbortCommand(1)  # `BASH_ARGC=(x)`, `declare GROUPS=(1)`: bash drops the line, silently
        if scope is None and assoc is None:
            # the common case: values without keys for an existing plain indexed array
            vars_ = self.state.vars
            i, found = vars_.find_scope(name)
            if (
                found is not None
                and type(found.value) is IndexedArray
                and not found.attrs & ~(ARRAY | EXPORT)
                and all(key is None for key, _, _ in items)
            ):
                old = found.value
                assert type(old) is IndexedArray
                self.sh.check_array(len(items) + (len(old) if append else 0))
                before = old.nbytes
                n = items_bytes(items)
                _charge(
                    vars_, vars_.scopes[i], n
                )  # (before the array is filled: the old one lives on till then)
                arr = old if append else IndexedArray()
                index = arr.max_index() + 1
                for _, value, _ in items:
                    arr.set(index, value)
                    index += 1
                found.attrs |= ARRAY
                found.value = arr
                _charge(vars_, vars_.scopes[i], arr.nbytes - before - n)
                return
        target, tsub = self.resolve_name(name)
        if tsub is not None:
            raise AssignError(f"`{target}[{tsub}]': not a valid identifier", fatal=False, named=True)
        written, name = name, target
        if self.table_target(name, scope):
            self.fill_table(name, items)
            return
        if scope is None and name in _STAYS_DYNAMIC:
            self.ordinary_array(name, 1 if append else 2)  # (`RANDOM+=(7)`: [0] is what it reads)
        if scope is None:
            target_scope, var = self._scope_for_write(name)
        else:
            target_scope, var = scope, scope.get(name)
        if var is not None and var.attrs & READONLY:
            raise ReadonlyError(f"{written}: readonly variable")  # (a reference's own name: bash)
        if var is None:
            _charge(self.state.vars, target_scope, VAR_OVERHEAD)
            var = Var(None, 0)  # (set -a exports no new array, as bash)
            target_scope[name] = var
        elif var.attrs & NAMEREF:
            # `declare -n r; r=(1 2)`: a reference with no target becomes an array
            self.sh.error(f"warning: {name}: removing nameref attribute")
            var.attrs &= ~NAMEREF
            var.value = None
        # a `[key]=value` item's value was expanded as text, not as a word: max_string_length here
        check = self.sh.check_string
        for _, value, _ in items:
            check(len(value))
        before = value_size(var.value)
        # what the filled array adds, charged before it is filled (an upper bound: each item a new
        # element, keys included), then settled at what it holds once filled
        pre = items_bytes(items)
        _charge(self.state.vars, target_scope, pre)
        try:
            self._fill_array(name, var, items, append, assoc)
        except ExpansionError as e:
            if by_builtin and type(e) is IntValueError:
                raise
            raise ElementError.of(e) from None
        finally:
            _charge(self.state.vars, target_scope, value_size(var.value) - before - pre)

    def fill_table(self, name: str, items: list[tuple[str | None, str, bool]]) -> None:
        """`BASH_CMDS=(...)`, `+=` alike: bash adds each element to the table (nothing is
        emptied), keys and values paired as for any associative array, `[k]+=v` appending to
        the entry there; entries the list does not change keep their hit counts."""
        if self.table_readonly(name):
            raise ReadonlyError(f"{name}: readonly variable")
        before = self._table_array(name)
        scratch = Var(self._table_array(name), ASSOC)
        self._fill_array(name, scratch, items, True, True)
        table = scratch.value
        assert isinstance(table, AssocArray)
        for key, value in table.items():  # (as many as max_array_elements let _fill_array make)
            if before.get(key) != value:
                self.table_put(name, key, value)

    def compound_items(self, value: str, assoc: bool = False) -> list[tuple[str | None, str, bool]]:
        """The expanded words of a compound assignment given as a string, `(...)` (`declare -a
        a='(1 $x)'`, as bash's assign_array_var_from_string): parsed, then expanded as written
        (`assoc`: for an associative array, each word one string).
        A syntax error is reported as bash words it and discards the command."""
        inner = value[1:-1]
        parser = self.sh.make_parser("(" + inner + "\n)")
        parser.pos = 1
        try:
            array = parser.parse_array_items()
            if parser.src[parser.pos :].strip():
                raise ParseError("syntax error near unexpected token `)'", 1)
        except ParseLimit as e:
            raise LimitExceeded(LimitKind(e.limit), e.value) from None
        except ParseError as e:
            e.source_line = inner.split("\n", 1)[0]
            e.line = self.state.line  # bash names the line of the declare command
            self.sh.syntax_error(e, "array assign")
            raise AbortCommand(2) from None
        return self.sh.ex.expand_array_items(array, assoc, declared=True)

    def _fill_array(
        self, name: str, var: Var, items: list[tuple[str | None, str, bool]], append: bool, assoc: bool | None
    ) -> None:
        is_assoc = (var.attrs & ASSOC) != 0 or isinstance(var.value, AssocArray) if assoc is None else assoc
        if is_assoc:
            had = var.value
            if not isinstance(had, AssocArray):
                arr_a = AssocArray()
            else:  # (bash empties the table it has, of its size: assoc_flush)
                arr_a = had if append else AssocArray(had.buckets)
            var.attrs |= ASSOC
            pending_key: str | None = None
            # bash 5.1+: a list whose first word has no subscript pairs keys and values
            # (`a=(k1 v1 k2 v2)`, where a later `[k]=v` is a plain word); otherwise every
            # word needs one, and a word without one is reported and skipped
            pairs = bool(items) and items[0][0] is None
            for key, value, key_append in items:
                if pairs:
                    if key is not None:
                        value = f"[{key}]{'+' if key_append else ''}={value}"
                    if pending_key is None:
                        pending_key = value
                        continue
                    arr_a.set(pending_key, self._convert(var, value, var.attrs))
                    pending_key = None
                    continue
                if key is None:
                    self.sh.error(f"{name}: {value}: must use subscript when assigning associative array")
                    continue
                if key == "":
                    self.sh.error(f"[]={value}: bad array subscript")
                    continue
                # (`a=([k]=1 [k]+=2)` appends to the value k had before the list: bash reads the
                # variable, still the old array; `a+=(...)` fills that array itself)
                if not key_append:
                    old = None
                elif append:
                    old = arr_a.get(key)
                else:
                    old = had.get(key) if isinstance(had, AssocArray) else None
                arr_a.set(key, self._convert(var, value, var.attrs, old))
            if pending_key is not None:
                arr_a.set(pending_key, "")
            var.value = arr_a
            self.sh.check_array(len(arr_a))
            return
        cur = var.value
        if append and isinstance(cur, IndexedArray):
            arr = cur
        elif append and isinstance(cur, str):
            arr = IndexedArray([cur])
        else:
            arr = IndexedArray()
        var.attrs |= ARRAY
        # the variable is the new array as it is filled: a subscript that reads it sees the
        # elements set before (`a=([0]=5 [a[0]]=x)` sets [5])
        var.value = arr
        try:
            self._fill_indexed(var, arr, items)
        except Exception:
            # bash fills the array as it goes: after a bad subscript or integer value the old
            # elements are gone and those before it stay (a scalar is an array now)
            var.value = arr
            self.sh.check_array(len(arr))
            raise
        var.value = arr
        self.sh.check_array(len(arr))

    def _fill_indexed(self, var: Var, arr: IndexedArray, items: list[tuple[str | None, str, bool]]) -> None:
        index = arr.max_index() + 1
        for key, value, key_append in items:
            if key is not None:
                if key in ("", "*", "@"):
                    # bash reports the element and goes on with the others
                    why = "bad array subscript" if key == "" else "cannot assign to non-numeric index"
                    self.sh.error(f"[{key}]={value}: {why}")
                    continue
                try:
                    index = self.eval_index(key, arr)
                except ArithError as e:  # (bash -c exits, a script goes on with its next line)
                    raise ExpansionError(e.render(), 1, exits=True, arith=True) from None
                except AssignError:
                    # bash reports the element and goes on with the others
                    self.sh.error(f"[{key}]={value}: bad array subscript")
                    continue
                old = arr.get(index) if key_append else None
                arr.set(index, self._convert(var, value, var.attrs, old))
            else:
                arr.set(index, self._convert(var, value, var.attrs))
            index += 1

    def locale_bytes(self) -> bool:
        """Characters are bytes: the locale in effect is C/POSIX. It follows LC_ALL, LC_CTYPE,
        LANG (the first one set); one naming a locale this system lacks left the one before."""
        for name in _CTYPE_VARS:
            value = self.get_str(name)
            if value:
                if locale_known(value):
                    return value in ("C", "POSIX")
                stuck = self.state.ctype_stuck
                return True if stuck is None else stuck  # (one from the environment: C)
        return True

    def _ctype_changes(self, name: str, value: str | None) -> None:
        """Before LC_ALL, LC_CTYPE or LANG takes `value` (None: unset): when the locale it leaves
        in charge is one this system lacks, the one in effect now stays."""
        now = self.locale_bytes()
        for n in _CTYPE_VARS:
            v = (value or "") if n == name else (self.get_str(n) or "")
            if v:
                if not locale_known(v):
                    self.state.ctype_stuck = now
                return

    def _kept_number(self, name: str, value: str) -> int:
        """What an assignment to SECONDS, LINENO or an integer dynamic variable keeps (and gives
        the listing): arithmetic once it is an integer (RANDOM, SECONDS once read or `declare
        -i`: SECONDS=abc is 0), else a decimal number or 0 (bash's legal_number: SECONDS=2+3 is
        0 before SECONDS was read)."""
        st = self.state
        as_int = name in _KEPT_INTEGER
        if name == "SECONDS":
            var = st.vars.find(name)
            as_int = st.seconds_integer or (var is not None and bool(var.attrs & INTEGER))
        text = value.strip()
        if text.lstrip("-").isdigit():
            number = int(text)
        elif as_int:
            number = self.sh.arith_eval(text or "0")
        else:
            from ..posix.testexpr import TestError, integer  # (test's module: not at start-up)

            try:
                number = integer(value)
            except TestError:
                number = 0
        st.dyn_values[name] = str(number)
        return number

    def _for_program(self, command: str) -> bool:
        """Whether a temporary binding is for a program (or a name nothing answers to): bash's
        assign_in_env puts it in that command's environment only, where no special variable's
        hook runs (`LC_ALL=bad prog` warns of nothing; before a builtin or a function it does)."""
        if not command:
            return False
        st = self.state
        if command in st.functions:
            return False
        from .builtin_table import is_builtin

        return command in st.disabled_builtins or not is_builtin(command)

    def _special_assign(self, name: str, value: str) -> None:
        if name in _CTYPE_VARS:
            self._ctype_changes(name, value)
        if name in _KEPT and name not in self.state.unspecial:
            if name in _STORED_KEPT:
                self.state.dyn_values[name] = None  # (listed with its value from now on)
            elif name == "SRANDOM" or name == "HISTCMD" or name == "LINENO":
                self._kept_number(name, value)  # (RANDOM's and SECONDS' below, as they are used)
        if name == "_":
            self.state.last_arg = value  # (read as that until the command ends: `for _ in 1 2`)
        elif name == "RANDOM":
            # bash's sbrand: RANDOM is an integer variable, so its value is arithmetic; 32 bits kept
            seed = self._kept_number(name, value)
            self.state.rand_seed = seed & 0xFFFFFFFF
            self.state.last_random = 0
        elif name == "SECONDS":
            self.sh.seconds_base = time.monotonic() - self._kept_number(name, value)
        elif name == "BASH_SUBSHELL" and name not in self.state.unspecial:
            # bash's assign_subshell: the level is the value as a decimal number, else 0
            from ..posix.testexpr import TestError, integer  # (test's module: not at start-up)

            try:
                level = integer(value)
            except TestError:
                level = 0
            self.state.subshell_base = level - self.state.subshell
        elif name == "OPTIND":
            self.state.getopts_pos = 0
        elif name == "BASH_ARGV0" and name not in self.state.unspecial:
            if self.state.mode == "file" and not self.state.script:
                self.state.script = self.state.arg0
            self.state.arg0 = value
            self.state.shell_name = None  # (bash's assign_bash_argv0 sets shell_name too)
        elif name == "POSIXLY_CORRECT":
            self.posix_mode(True)  # bash: setting it turns posix mode on, unsetting off
        elif name == "IGNOREEOF":
            self.state.opts["ignoreeof"] = True
        elif (
            name in _LOCALE_VARS
            and value
            and not locale_known(value)
            and (name == "LC_ALL" or not self.sh.get_str("LC_ALL"))
        ):  # LC_ALL, when set, wins
            self.sh.warn(f"setlocale: {name}: cannot change locale ({value}): No such file or directory")
        elif name == "PATH":
            self.state.hashed.clear()
        elif name == "BASH_XTRACEFD" and value and not (value.isdigit() and int(value) in self.state.fds):
            self.sh.error(f"BASH_XTRACEFD: {value}: invalid value for trace file descriptor")
        elif name == "BASH_COMPAT" and value and not _compat_value(value):
            # bash's sv_shcompat: `N.N` or `NN`, from 3.1 to this shell's 5.2
            self.sh.error(f"BASH_COMPAT: {value}: compatibility value out of range")

    def is_assoc(self, name: str) -> bool:
        """Whether an assignment to `name` (through namerefs) changes an associative array."""
        try:
            name, sub = self.resolve_name(name)
        except AssignError:
            return False
        var = self.state.vars.find(name)
        if sub is not None:
            return False
        if var is None:
            return self.table_target(name)
        return var.attrs & ASSOC != 0 or isinstance(var.value, AssocArray)

    def noassign(self, name: str) -> bool:
        """bash's att_noassign (the call stack arrays, GROUPS): assignments do nothing, until
        `unset` makes the name an ordinary variable."""
        return name in _NOASSIGN and name not in self.state.unspecial

    def unset_var(self, name: str, *, nameref: bool = False, force: bool = False) -> bool:
        """`unset NAME` (`nameref`: the reference itself, `unset -n`); `force`: even a readonly
        one, as bash unsets a finished coprocess's NAME_PID."""
        if not nameref:
            name, sub = self.resolve_name(name)
            if sub is not None:
                return self.unset_element(name, sub, via_ref=True)
        if name in _CTYPE_VARS:
            self._ctype_changes(name, None)
        if name == "PATH":
            self.state.hashed.clear()  # bash empties its hash table (`unset PATH`, through a nameref too)
        elif name == "POSIXLY_CORRECT":
            self.posix_mode(False)
        elif name == "IGNOREEOF":
            self.state.opts["ignoreeof"] = False
        if self.table_readonly(name) and not force:
            raise AssignError(f"{name}: cannot unset: readonly variable")
        if name in _DYNAMIC and name not in ("_", "PIPESTATUS"):
            # (PIPESTATUS is made again, an array, when the `unset` command ends: bash)
            self.state.unspecial.add(name)  # bash: an unset dynamic variable is an ordinary one from now on
        scopes = self.state.vars.scopes
        for i in range(len(scopes) - 1, -1, -1):
            var = scopes[i].get(name)
            if var is None:
                continue
            if var.attrs & THROUGH and i == len(scopes) - 1:
                # (a builtin's temporary binding stays for the rest of it, bash's temporary_env:
                # `OPTARG=x getopts ...` at the end unsets the OPTARG it hides)
                continue
            if var.attrs & READONLY and not force:
                raise AssignError(f"{name}: cannot unset: readonly variable")
            scope = scopes[i]
            # a local unset in its own function (or anywhere with localvar_unset)
            # stays local but unset, hiding the outer variable, as bash does
            top_func = next((k for k in range(len(scopes) - 1, -1, -1) if scopes[k].func), -1)
            # (a builtin's temporary binding made local, `v=t eval 'local v=x'`, is the local of
            # the function it runs in: i above top_func)
            if (
                (scope.func or scope.temp)
                and name in scope.locals
                and (i >= top_func or self.state.shopts.get("localvar_unset"))
            ):
                _charge(self.state.vars, scope, -value_size(var.value))
                # (a call's temporary binding made local stays exported, as bash's makunbound)
                tempvar = scope.temp or (scope.tempvars is not None and name in scope.tempvars)
                scope[name] = Var(None, var.attrs & EXPORT if tempvar else 0)
            else:
                _charge(self.state.vars, scope, -value_size(var.value) - VAR_OVERHEAD)
                del scope[name]
            return True
        return True

    def unset_element(self, name: str, sub: str, *, expanded: bool = False, via_ref: bool = False) -> bool:
        """`unset NAME[SUB]`; `expanded`: an associative key is not expanded again (bash's
        W_ARRAYREF); `via_ref`: `unset r` with r a reference to that element, where a scalar's
        element other than 0 is passed over silently, as bash does."""
        try:
            target, tsub = self.resolve_name(name)  # `unset r[0]` with r a reference to an array
        except AssignError:
            target, tsub = name, None
        name = target
        if tsub is not None:
            sub = tsub  # (a reference to an element: that element, whatever the subscript, as bash)
        var = self.state.vars.find(name)
        if var is None and self.table_readonly(name):
            raise AssignError(f"{name}: cannot unset: readonly variable")
        if (
            (var is None or (var.value is None and not var.attrs & (READONLY | ARRAY | ASSOC)))
            and sub
            and name in _STAYS_DYNAMIC
            and name not in self.state.unspecial
        ):
            # a dynamic variable is a scalar with a value: `unset RANDOM[0]` unsets it (and its
            # meaning), another element is no array's (bash's unset_builtin)
            try:
                index = self.eval_index(sub, None) if sub not in ("@", "*") else -1
            except AssignError:  # a negative index
                index = -1
            if index != 0:
                if via_ref:
                    return True
                raise AssignError(f"{name}: not an array variable")
            return self.unset_var(name)
        if var is None or sub == "":
            # (BASH_ALIASES, BASH_CMDS: bash leaves the tables alone; `unset 'a[]'` names no element)
            return True
        if var.attrs & READONLY:
            raise AssignError(f"{name}: cannot unset: readonly variable")
        v = var.value
        if sub in ("@", "*") and not isinstance(v, AssocArray):
            # bash 5.2: `unset A[@]` empties an indexed array but keeps the variable and its
            # attributes (before, and under BASH_COMPAT=51, it unset the array); for an
            # associative array `@` and `*` are ordinary keys (below)
            if isinstance(v, IndexedArray) and self.compat_level() < 52:
                scope, _ = self._scope_for_write(name)
                _charge(self.state.vars, scope, -v.nbytes - VAR_OVERHEAD)
                del scope[name]
            elif isinstance(v, IndexedArray):
                scope, _ = self._scope_for_write(name)
                _charge(self.state.vars, scope, -v.nbytes)
                var.value = IndexedArray()
            elif v is not None:
                raise AssignError(f"{name}: not an array variable")
            return True
        before = value_size(v)
        if isinstance(v, AssocArray):
            # assoc_expand_once: the word's expansion was the only one (`unset 'a[$k]'` is key $k)
            once = expanded or self.state.shopts.get("assoc_expand_once")
            v.unset(sub if once else self.sh.subscript_key(sub))
        elif isinstance(v, IndexedArray) or (v is None and var.attrs & ARRAY):
            # (`declare -a a` with no value yet is an empty array: a negative index is still bad)
            arr = v if isinstance(v, IndexedArray) else IndexedArray()
            try:
                index = self.eval_index(sub, arr)  # (bash expands an index again even then)
            except AssignError:
                raise AssignError(f"[{sub}]: bad array subscript") from None  # sic: bash leaves out the name
            arr.unset(index)
        elif isinstance(v, str) or (v is None and not var.attrs & ASSOC):
            try:
                index = self.eval_index(sub, None)
            except AssignError:  # a negative index
                index = -1
            if index != 0:
                if via_ref:
                    return True
                raise AssignError(f"{name}: not an array variable")  # (bash: status 1)
            scope, _ = self._scope_for_write(name)
            _charge(self.state.vars, scope, -before - VAR_OVERHEAD)
            del scope[name]
            return True
        after = value_size(v)
        if before != after:
            _charge(self.state.vars, self._scope_for_write(name)[0], after - before)
        return True

    def compat_level(self) -> int:
        """BASH_COMPAT as a level (`5.1` and `51` are 51); 52, this shell's own, when unset or
        not a level bash knows."""
        var = self.state.vars.find("BASH_COMPAT")
        value = var.value if var is not None else None
        if not isinstance(value, str):
            return 52
        return _compat_value(value) or 52

    def exported_env(self) -> dict[str, str]:
        env: dict[str, str] = {}
        for scope in self.state.vars.scopes:
            for name, var in scope.items():
                v = var.value
                if v is None:
                    if name not in OPTION_VARS or not var.attrs & EXPORT:
                        continue  # unset (`local v`): invisible, an outer exported v is what commands see
                    v = self._dynamic(name).value  # type: ignore[union-attr]  # (`export SHELLOPTS`)
                if var.attrs & EXPORT:
                    if isinstance(v, str):
                        env[name] = v
                    else:
                        env.pop(name, None)  # (an exported array hides the name: arrays are not passed)
                # (a local that is not exported leaves an outer exported one in the environment,
                # as bash's all_exported_variables)
        if self.state.exported_funcs:
            self._export_functions(env)
        return env

    def _export_functions(self, env: dict[str, str]) -> None:
        """`export -f f`: BASH_FUNC_f%%=() {  ...}, after the variables (bash's
        make_func_export_array); a child shell defines the function from it."""
        from ..syntax.bashprint import exported_function_text

        functions = self.state.functions
        for name in sorted(self.state.exported_funcs):
            fdef = functions.get(name)
            if fdef is not None:
                env[f"BASH_FUNC_{name}%%"] = exported_function_text(fdef)


def colon_units(text: str) -> list[str]:
    """`text` cut at colons as bash's extract_colon_unit reads a path list: a leading colon and
    each doubled one give an empty unit, a trailing colon one more (":a::" is "", "a", "")."""
    units = text.split(":")
    if len(units) > 1 and units[-1] == "" and units[-2] == "":
        units.pop()  # (the unit after a colon that ends the text is read only once)
    return units if text else []


def element_index(name: str, sub: str, read: Callable[[], int]) -> int:
    """`read()`, an indexed element's subscript evaluated for a store (`a[sub]=v`, `(( a[sub] = v
    ))`), with its errors as that store reports them: arithmetic's as an element's (bash -c exits,
    a script goes on with its next line), a refusal (a negative index before the start) as
    `name[sub]: bad array subscript`."""
    try:
        return read()
    except ArithError as e:
        raise ElementError.of(ExpansionError(e.render(), 1, exits=True, arith=True)) from None
    except ExpansionError as e:
        raise ElementError.of(e) from None
    except AssignError:
        raise AssignError(f"{name}[{sub}]: bad array subscript") from None


def plain_index(text: str) -> bool:
    """`text` is an index arith_eval would give as it is: ASCII decimal digits, no octal leading
    zero, short enough not to wrap (the element stores' and Shell.arith_get/arith_set's test for a
    subscript evaluated once already: `int(text)` is then its value)."""
    return text.isdigit() and text.isascii() and len(text) < 19 and (text[0] != "0" or len(text) == 1)


# one (None, value, False) item of set_array's list: the tuple and its place in the list
ITEM_BYTES = 72


def items_bytes(items: list[tuple[str | None, str, bool]]) -> int:
    """What filling an array with `items` (key or None, value, key+=) can add: each a new element
    with its key (elements_bytes when no item has a key)."""
    n = ELEMENT_OVERHEAD * len(items)
    for key, value, _ in items:
        n += len(value) if value.isascii() else 4 * len(value)
        if key is not None:
            n += text_bytes(key)
    return n


def _store(vars_: VarStore, scope: Scope, arr: IndexedArray | AssocArray, key: Any, value: str) -> None:
    """Store one element of `arr` (held in `scope`), charged before it is stored: an element
    replaced, what its new text adds (what set adds to the array's nbytes: `(( m[$k] += n ))` and
    `s[$k]=$(( ... ))` in a loop replace one each step); a new one, an upper bound, then the
    difference given back once stored. A charge refused by max_memory leaves the array as it was
    (a Session's shell holds nothing it was not charged)."""
    old = arr.get(key)
    if old is not None:
        n = text_bytes(value) - text_bytes(old)
        if n:
            vars_.charge(scope, n)
        arr.set(key, value)
        return
    pre = text_bytes(value) + ELEMENT_OVERHEAD
    if type(key) is str:
        pre += text_bytes(key)
    vars_.charge(scope, pre)
    before = arr.nbytes
    arr.set(key, value)
    n = arr.nbytes - before - pre
    if n:
        vars_.charge(scope, n)


def _charge(vars_: VarStore, scope: Scope, n: int) -> None:
    """Charge `n` bytes (negative: give back) held in `scope` to the run's memory budget."""
    if n:
        vars_.charge(scope, n)
