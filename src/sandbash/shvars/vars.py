"""Shell variables: values, attributes and dynamic scopes.

A `Var` holds a str, an `IndexedArray`, an `AssocArray`, or None (declared
but unset, like `local x`). `VarStore` is a stack of scopes searched from the
innermost function outwards (bash's dynamic scoping). Attribute semantics that
need evaluation (integer, case conversion) live in `interp/state.ShellState`.
This package sits below expansion, which reads variables through its injected environment
and needs only these types.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..syntax.arith import subscript_end
from .arrays import ELEMENT_OVERHEAD, AssocArray, IndexedArray

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ..limits import Budget
    from ..syntax.ast import FuncDef

EXPORT = 1
READONLY = 2
INTEGER = 4
LOWER = 8
UPPER = 16
NAMEREF = 32
ARRAY = 64
ASSOC = 128
TRACE = 256
CAPITALIZE = 512
# No attribute of bash's: the mark of a builtin's temporary binding (`OPTIND=2 getopts ...`) that a
# store reaches through to the variable it hides, as bash's bind_variable writes temporary_env and
# then shell_variables (interp/variables.py's set_var). Never printed; every fast store path leaves
# a variable with attributes beyond -x to set_var, which is what takes it there.
THROUGH = 1024

# variables whose assignment does more than store the value (variables.set_var); PATH's empties
# the hash table (bash's sv_path), made by `local PATH` or `(( PATH = 1 ))` too
SPECIAL_ASSIGN = frozenset(
    {
        "PATH",
        "RANDOM",
        "SECONDS",
        "OPTIND",
        "BASH_ARGV0",
        "BASH_SUBSHELL",
        "POSIXLY_CORRECT",
        "IGNOREEOF",
        "BASH_XTRACEFD",
        "BASH_COMPAT",
        "LANG",
        "LC_ALL",
        "LC_CTYPE",
        "LC_COLLATE",
        "LC_MESSAGES",
        "LC_NUMERIC",
        "LC_TIME",
    }
)

# bash's att_noassign variables (the call stack arrays, GROUPS): an assignment does nothing, and
# a function may not make one local, until `unset` makes the name ordinary (interp/variables.py)
NOASSIGN = frozenset({"FUNCNAME", "BASH_SOURCE", "BASH_LINENO", "BASH_ARGC", "BASH_ARGV", "GROUPS"})

# in bash's order (builtins/setattr.def, var_attribute_string): `declare -irtxl`, ${x@a}
ATTR_LETTERS = (
    (ARRAY, "a"),
    (ASSOC, "A"),
    (INTEGER, "i"),
    (NAMEREF, "n"),
    (READONLY, "r"),
    (TRACE, "t"),
    (EXPORT, "x"),
    (LOWER, "l"),
    (UPPER, "u"),
)

Value = str | IndexedArray | AssocArray | None


class Var:
    __slots__ = ("value", "attrs")

    def __init__(self, value: Value = None, attrs: int = 0) -> None:
        self.value = value
        self.attrs = attrs

    def copy(self) -> Var:
        v = self.value
        if isinstance(v, (IndexedArray, AssocArray)):
            v = v.copy()
        return Var(v, self.attrs)

    def is_set(self) -> bool:
        return self.value is not None

    def __repr__(self) -> str:
        return f"Var({self.value!r}, {self.attrs})"


class ElementsVar(Var):
    """What a nameref to `A[@]` or `A[*]` reads: the elements joined (`value`, as `"${A[*]}"`
    joins them), and the elements themselves, which an unbraced `"$ref"` expands to as bash
    expands it ("${A[@]}": one word each; `"${ref}"` stays the joined string)."""

    __slots__ = ("elements", "star")

    def __init__(self, value: str, elements: list[str], star: bool) -> None:
        super().__init__(value, 0)
        self.elements = elements
        self.star = star


# What a variable costs beyond its value (the Var, its scope's dict slot, its name).
VAR_OVERHEAD = 160
# The budget is charged in grains, so most assignments only add to a counter.
_GRAIN = 64 * 1024
TWO_GRAINS = 2 * _GRAIN  # (MemAccount.add's common case, tested inline by calls.call_function)


def split_array_ref(ref: str, quotes: bool = True, once: bool = False) -> tuple[str, str | None] | None:
    """`name` or `name[subscript]` as the builtins that take a variable name read it
    (read, printf -v, declare, unset -v): None when the subscript's `]` is not the last
    character (`A[]]`, `A[a]b]`, `A[x[y]`). `quotes`: quotes and backslashes hide brackets.
    `once` (assoc_expand_once): the subscript runs to the last `]`, as bash takes an
    already expanded `A[$k]` (bash tells it by the word as written, which builtins here
    do not see: the lenient reading is the one scripts rely on)."""
    i = ref.find("[")
    if i < 0:
        return ref, None
    end = len(ref) - 1 if once and ref.endswith("]") else subscript_end(ref, i + 1, quotes)
    if end != len(ref) - 1:
        return None
    return ref[:i], ref[i + 1 : end]


class ArrayRefArg(str):
    """An argument written as an array reference (`unset A[$k]`, not `"A[$k]"`) to one of the
    builtins in ARRAYREF_BUILTINS, whose expansion stayed one field (bash's W_ARRAYREF): its
    subscript is all between the first `[` and the last `]`, already expanded."""

    def name_sub(self) -> tuple[str, str]:
        i = self.index("[")
        return self[:i], self[i + 1 : -1]


# the builtins bash marks such arguments for (mkbuiltins' arrayvar_builtins)
ARRAYREF_BUILTINS = frozenset(
    {"declare", "let", "local", "printf", "read", "test", "[", "typeset", "unset", "wait"}
)


def is_array_ref_text(text: str) -> bool:
    """Whether a word as written is bash's valid_array_reference: a name, then a subscript
    that is not empty and whose `]` is the last character."""
    parts = split_array_ref(text) if text[-1:] == "]" else None
    if parts is None or not parts[1]:
        return False
    name = parts[0]
    return name.isascii() and name.isidentifier()


# What one positional parameter holds beyond its text: its str header and its place in the list
# (62 bytes measured with tracemalloc for `set -- $(seq 200000)`)
PARAM_OVERHEAD = 64


def params_size(params: list[str]) -> int:
    """Bytes a list of positional parameters holds, conservatively."""
    return PARAM_OVERHEAD * len(params) + sum(len(p) if p.isascii() else 4 * len(p) for p in params)


class Params(list[str]):
    """Positional parameters a shell made for itself (`set`, `shift`, a snapshot's), charged to its
    account (max_memory) as `nbytes` while they are its list (ShellState.set_positional). A call's
    own list stays a plain list: call_function charges its arguments for as long as it runs."""

    __slots__ = ("nbytes",)

    nbytes: int


# What a subshell's copy of the positional parameters holds beyond the strings it shares (a
# pointer each: the strings stay its parent's, charged there)
PARAM_COPY = 8


def value_size(value: Value) -> int:
    """Bytes a variable's value holds, conservatively."""
    if value is None:
        return 0
    if type(value) is str:
        return len(value) if value.isascii() else 4 * len(value)
    return value.nbytes  # type: ignore[union-attr]


class MemAccount:
    """What one shell's variables hold, charged to the run's budget in grains of
    _GRAIN bytes (so the per-assignment cost is an addition and a compare).
    `add` charges before the caller stores the value: if it raises, nothing changed."""

    __slots__ = ("budget", "held", "charged", "closed")

    def __init__(self, budget: Budget | None = None) -> None:
        self.budget = budget
        self.held = 0
        self.charged = 0
        self.closed = False

    def add(self, n: int) -> None:
        held = self.held + n
        charged = self.charged
        # (the common case first, in one chained compare: within the grains already charged)
        if not charged - 2 * _GRAIN <= held <= charged or held < 0:
            if held < 0:
                held = 0  # never credit more than was charged (a subshell's shared values)
            if held > charged or held + 2 * _GRAIN < charged:
                self._settle(held)
        self.held = held

    def _settle(self, held: int) -> None:
        want = (held // _GRAIN + 1) * _GRAIN
        budget = self.budget
        if budget is not None:
            if want > self.charged:
                budget.charge_memory(want - self.charged)
            else:
                budget.release_memory(self.charged - want)
        self.charged = want

    def rebind(self, budget: Budget) -> None:
        """A Session's next run: what the shell holds is charged to the new run's budget."""
        self.budget = None
        budget.charge_memory(self.charged)
        self.budget = budget

    def close(self) -> None:
        """The shell is gone: give everything back."""
        if not self.closed and self.budget is not None and self.charged:
            self.budget.release_memory(self.charged)
        self.charged = self.held = 0
        self.closed = True


class AssignArg(str):
    """An argument of a declaration builtin written as an assignment
    (`declare a=(1 2)`, `local x=$y`): the text plus the parsed pieces."""

    name: str
    value: str
    sub: str | None = None
    append: bool = False
    items: list[tuple[str | None, str, bool]] | None = None

    @classmethod
    def make(
        cls,
        text: str,
        name: str,
        sub: str | None,
        append: bool,
        value: str,
        items: list[tuple[str | None, str, bool]] | None,
    ) -> AssignArg:
        obj = cls(text)
        obj.name = name
        obj.value = value
        if sub is not None:
            obj.sub = sub
        if append:
            obj.append = append
        if items is not None:
            obj.items = items
        return obj


def valid_name(name: str) -> bool:
    """A variable name as the builtins take it: an ASCII letter or `_`, then ASCII letters, digits
    and `_` (bash's legal_identifier: in a UTF-8 locale `é` is no letter to it)."""
    return name.isascii() and name.isidentifier()  # the same rule for ASCII, in C


def word_text(word: str) -> str:
    """An argument as the plain string bash gives `$_` or a function's parameters: the text of an
    AssignArg/ArrayRefArg word, the name alone for an array's `name=(...)`."""
    if type(word) is str:
        return word
    if isinstance(word, AssignArg) and word.items is not None:
        return word.name
    return str.__str__(word)


class Scope(dict[str, Var]):
    """One level of variables: the globals, a function's context, or the
    temporary assignments before a builtin (`temp` is True). A function's
    context also holds its call's temporary bindings; `locals` names the
    variables really declared local there (they behave differently on unset)."""

    __slots__ = ("temp", "func", "locals", "acct", "size", "tempvars", "propagate", "owner", "names")

    def __init__(self, temp: bool = False, func: bool = False) -> None:
        # dict.__new__ made the (empty) mapping: dict.__init__ has nothing to add
        self.temp = temp
        self.func = func
        # the store's VarStore.local_names once this scope is pushed above the globals (None: the
        # globals, or a scope not pushed yet): every name added here is added there too
        self.names: set[str] | None = None
        self.locals: set[str] = set()
        # a function's context: the names that came from its call's temporary bindings (bash's
        # att_tempvar, kept by `local`), and those of them `export`/`readonly`/`declare -rx`
        # marked to be handed to the caller's scope when the function returns (att_propagate)
        self.tempvars: set[str] | None = None
        self.propagate: set[str] | None = None
        # a temporary scope: the name of the command its bindings were written before
        self.owner = ""
        # the account charged for what this scope holds (set by the first charge), and how much
        # was charged for it: every charge of a variable here adds to `size` (VarStore.charge and
        # the charges written out inline), so a scope gives back what it holds as it goes
        # without walking its variables (nbytes counts them; the two agree: test_scope_size)
        self.acct: MemAccount | None = None
        self.size = 0

    # Every way a name is added to a scope adds it to `names` (VarStore.local_names' invariant;
    # tests/unit/interp/test_pf_scope8.py checks nothing else in the tree adds names with dict's
    # own methods)
    def __setitem__(self, name: str, var: Var) -> None:
        names = self.names
        if names is not None:
            names.add(name)
        _setitem(self, name, var)

    def setdefault(self, name: str, var: Var) -> Var:  # type: ignore[override]
        names = self.names
        if names is not None:
            names.add(name)
        return _setdefault(self, name, var)

    def update(self, *args: Any, **kwargs: Var) -> None:
        _update(self, *args, **kwargs)
        names = self.names
        if names is not None:
            names.update(self)

    def __ior__(self, other: Any) -> Scope:  # type: ignore[override,misc]
        self.update(other)
        return self

    def clone(self) -> Scope:
        new = Scope(self.temp, self.func)
        new.locals = set(self.locals)
        new.owner = self.owner
        if self.tempvars is not None:
            new.tempvars = set(self.tempvars)
        if self.propagate is not None:
            new.propagate = set(self.propagate)
        # (a subshell copies every variable: Var() through __init__ costs twice as much)
        make = object.__new__
        for k, v in self.items():
            value = v.value
            if type(value) is str or value is None:
                copy = make(Var)
                copy.value = value
                copy.attrs = v.attrs
            else:
                copy = v.copy()
            _setdefault(new, k, copy)  # (not pushed: VarStore._copy gives the copy its names)
        return new

    def nbytes(self) -> int:
        """The bytes the variables here hold, counted (value_size of each, VAR_OVERHEAD apiece)."""
        n = VAR_OVERHEAD * len(self)
        for v in self.values():
            value = v.value
            if type(value) is str:  # (value_size's first case, without a call per variable)
                n += len(value) if value.isascii() else 4 * len(value)
            elif value is not None:
                n += value.nbytes  # type: ignore[union-attr]
        return n

    def release(self) -> None:
        """Give back what was charged for this scope's contents: a function's or a command's
        scope as it is popped (calls.call_function), else when it is dropped (__del__)."""
        acct = self.acct
        if acct is not None:
            self.acct = None  # (given back once)
            if not acct.closed:
                acct.add(-self.size)
            self.size = 0

    __del__ = release


def _found_below(scopes: list[Scope], name: str) -> Var | None:
    """The variable `name` the scopes below the caller's bind, innermost first (find()'s walk
    for a local about to hide it, past the current scope and its caller's): None if none."""
    i = len(scopes) - 3
    while i >= 0:
        var = scopes[i].get(name)
        if var is not None:
            return var
        i -= 1
    return None


def _plain_local(scope: Scope, name: str) -> bool:
    """Whether `name`, in the function scope `scope`, is a local it declared (not a temporary
    binding of its call) without attributes beyond -x, holding a string or nothing."""
    var = scope[name]
    value = var.value
    return (
        not var.attrs & ~EXPORT
        and (type(value) is str or value is None)
        and name in scope.locals
        and (scope.tempvars is None or name not in scope.tempvars)
    )


_setitem = dict.__setitem__
_setdefault = dict.setdefault
_update = dict.update

# local_names past this many names is made exact again as a function returns (renew_names)
NAMES_CAP = 1024


class VarStore:
    __slots__ = ("scopes", "readonly_names", "acct", "source", "spare", "local_names", "names_cap")

    def __init__(self) -> None:
        self.scopes: list[Scope] = [Scope()]
        # Every name bound in a scope above the globals (and maybe more): a name not in it is
        # found in the globals or nowhere, without walking the scopes. Kept by push (and
        # calls.call_function's), which add a scope's names and give it the set as `names`, and
        # by Scope's own methods adding a name; a name stays when its scope goes (a function
        # called again binds it again), and the set is made exact as a function returns when
        # it has grown past names_cap (renew_names), so it never holds much more than the
        # scopes do. One set for the store's life: the scopes hold it.
        self.local_names: set[str] = set()
        self.names_cap = NAMES_CAP
        # a function's scope, empty, kept by the call that last returned for the next one to take
        # (calls.call_function): a call does not make one
        self.spare: Scope | None = None
        # names ever made readonly (readonly cannot be undone): lets `local x`
        # skip searching every scope for a readonly x
        self.readonly_names: set[str] = set()
        self.acct = MemAccount()
        # a lazy clone's original, copied on first use (clone)
        self.source: VarStore | None = None

    def clone(self, lazy: bool = False) -> VarStore:
        """A subshell's copy. `lazy`: the scopes are copied when first read (a `$(echo ok)` reads
        none); only for a copy that is used while this store does not change."""
        # (a lazy clone is of a subclass with the __getattr__ that copies: on VarStore itself the
        # hook would cost every read of `scopes` its specialised fast path)
        new = VarStore.__new__(_LazyVarStore if lazy else VarStore)
        new.acct = MemAccount(self.acct.budget)
        new.source = None
        new.spare = None  # (never shared: each store's calls take their own)
        new.local_names = set()
        new.names_cap = NAMES_CAP
        if lazy:
            new.source = self
        else:
            new._copy(self)
        return new

    def _copy(self, source: VarStore) -> None:
        # a subshell shares the values (str is immutable) but copies every dict:
        # charge the copies (before making them), and what it assigns later
        self.acct.add(sum(_copy_cost(s) for s in source.scopes))
        self.scopes = scopes = [s.clone() for s in source.scopes]
        self.readonly_names = set(source.readonly_names)
        names = self.local_names
        for scope in scopes[1:]:
            scope.names = names
            names.update(scope)

    def renew_names(self) -> None:
        """local_names made exact (the names the scopes above the globals hold), in place (the
        scopes hold the set); names_cap then twice that, at least NAMES_CAP: renewed again only
        after as many names more, so a deep stack holding many names is not walked per call."""
        names = self.local_names
        names.clear()
        for scope in self.scopes[1:]:
            names.update(scope)
        self.names_cap = max(NAMES_CAP, 2 * len(names))

    def charge(self, scope: Scope, n: int) -> None:
        """Charge `n` bytes (negative: release) held in `scope`, before storing them."""
        acct = self.acct
        held = acct.held + n
        if held >= 0 and acct.charged - TWO_GRAINS <= held <= acct.charged:
            acct.held = held  # (MemAccount.add's common case: within the grains already charged)
        else:
            acct.add(n)
        scope.size += n
        if scope.acct is not acct:
            scope.acct = acct

    def held(self) -> int:
        return self.acct.held

    def temp_below(self, name: str, above: int = -1) -> Var | None:
        """The binding a new local `name` in the scope `above` (an index: the current one by
        default) would hide, when it is a temporary one: a builtin's prefix binding, or a calling
        function's call binding (`v=t f2`, f2 calls f1, f1 says `local v`): bash's
        make_local_variable gives the local that binding's value, at any depth. (`local_names`
        first: a name only the globals hold is never one.)"""
        if name not in self.local_names:
            return None
        scopes = self.scopes
        for i in range((len(scopes) if above < 0 else above) - 1, 0, -1):
            s = scopes[i]
            if name in s:
                return s[name] if s.temp or (s.tempvars is not None and name in s.tempvars) else None
        return None

    def declare_locals(self, pairs: Sequence[tuple[str, str | None]], checked: bool = False) -> bool:
        """`local name[=value] ...` (values expanded; None: no value) when every name is a new
        plain variable of the current function or a plain local of it already (_local_again):
        all made here, True. False, nothing made: the builtin's general way decides (outside a
        function, a name local with attributes or given twice, an invalid, special or readonly
        name, a temporary binding to inherit). The caller leaves
        `set -a` to the builtin. `checked`: the caller knows the names valid, not special and
        distinct (the compiler, from the words as written)."""
        scopes = self.scopes
        scope = scopes[-1]
        if not scope.func:
            return False
        if not checked and len(pairs) > 1 and len({name for name, _ in pairs}) < len(pairs):
            return False
        readonly = self.readonly_names
        n = 0
        again = False  # (a name already local here: _local_again assigns it below)
        for name, value in pairs:
            if name in readonly:
                return False
            if name in scope:
                if not _plain_local(scope, name):
                    return False
                again = True
                continue
            if not checked and (not valid_name(name) or name in SPECIAL_ASSIGN or name in NOASSIGN):
                return False
            if value is None:
                if name in self.local_names and self.temp_below(name) is not None:
                    return False  # inherits the temporary binding: the general path knows how
                n += VAR_OVERHEAD
            else:
                n += VAR_OVERHEAD + (len(value) if value.isascii() else 4 * len(value))
        # max_memory for them all, before storing any (MemAccount.add's common case inline)
        acct = self.acct
        held = acct.held + n
        if held <= acct.charged:
            acct.held = held
        else:
            acct.add(n)
        scope.acct = acct
        scope.size += n
        names = self.local_names  # (scope.names: the scope is pushed)
        make = object.__new__  # (as clone: Var() through __init__ costs twice as much)
        # (a function called from the top level: the globals are the only scope below)
        top = len(scopes) == 2
        made = scope.locals
        for name, value in pairs:
            if again and name in scope:
                self._local_again(scope, name, value)
                continue
            var = make(Var)
            var.value = value
            var.attrs = 0
            # a local hiding an exported variable is exported, as bash's (find(), inline, from
            # the scope below: the name is not in this one; only the globals can hold a name
            # local_names has not)
            if top or name not in names:
                hidden = scopes[0].get(name)
                if hidden is not None and hidden.attrs & EXPORT:
                    var.attrs = EXPORT
                names.add(name)
            else:
                # (the caller's scope first: a recursive call's local hides its caller's own)
                hidden = scopes[-2].get(name)
                if hidden is None:
                    hidden = _found_below(scopes, name)
                if hidden is not None and hidden.attrs & EXPORT:
                    var.attrs = EXPORT
            _setdefault(scope, name, var)  # (a new name, already in names: at C speed)
            made.add(name)
        return True

    def declare_local(self, name: str, value: str | None) -> bool:
        """declare_locals of one name the caller knows valid and not special (`local v=$1`, the
        compiler's commonest shape): made (or assigned again, _local_again) here, True; else
        False, nothing made."""
        scopes = self.scopes
        scope = scopes[-1]
        if not scope.func or name in self.readonly_names:
            return False
        if name in scope:
            return self._local_again(scope, name, value)
        if value is None:
            if name in self.local_names and self.temp_below(name) is not None:
                return False  # inherits the temporary binding: the general path knows how
            n = VAR_OVERHEAD
        else:
            n = VAR_OVERHEAD + (len(value) if value.isascii() else 4 * len(value))
        acct = self.acct
        held = acct.held + n  # (max_memory before storing: MemAccount.add's common case inline)
        if held <= acct.charged:
            acct.held = held
        else:
            acct.add(n)
        scope.acct = acct
        scope.size += n
        var = object.__new__(Var)  # (as clone: Var() through __init__ costs twice as much)
        var.value = value
        var.attrs = 0
        # a local hiding an exported variable is exported (bash's find(), from the scope below;
        # only the globals can hold a name local_names has not)
        names = self.local_names  # (scope.names: the scope is pushed)
        if len(scopes) == 2 or name not in names:
            # (a function called from the top level: the globals are the only scope below)
            hidden = scopes[0].get(name)
            if hidden is not None and hidden.attrs & EXPORT:
                var.attrs = EXPORT
            names.add(name)
        else:
            # (the caller's scope first: a recursive call's local hides its caller's own)
            hidden = scopes[-2].get(name)
            if hidden is None:
                hidden = _found_below(scopes, name)
            if hidden is not None and hidden.attrs & EXPORT:
                var.attrs = EXPORT
        _setdefault(scope, name, var)  # (a new name, already in names: at C speed)
        scope.locals.add(name)
        return True

    def declare_each(self, names: Sequence[str], values: Sequence[str | None]) -> bool:
        """`local` of names the caller knows valid, distinct and not special (the compiler's
        `local n=$1 left`, `local x y`), each made (or assigned again, _local_again) here in turn,
        in one frame: True. False at the first that cannot be (a readonly name, one local with
        attributes, a temporary binding to inherit, outside a function), those before it made: the
        builtin then runs on all the words, finds them local already and assigns them the values
        it would have made them with, so the result is the builtin's alone. (declare_local's steps
        in one loop: a call of it per name, and its set-up again, were a sixth of a `local n=$1 left`.)"""
        scopes = self.scopes
        scope = scopes[-1]
        if not scope.func:
            return False
        below = scopes[-2]  # (the caller's scope or the globals: a function's is never the first)
        top = len(scopes) == 2  # (called from the top level: the globals are the only scope below)
        readonly = self.readonly_names
        acct = self.acct
        names_below = self.local_names  # (scope.names: the scope is pushed)
        made = scope.locals
        for name, value in zip(names, values):  # noqa: B905  (the compiler's own pairs: one length)
            if name in readonly:
                return False
            if name in scope:
                if not self._local_again(scope, name, value):
                    return False
                continue
            if value is None:
                if name in names_below and self.temp_below(name) is not None:
                    return False  # inherits the temporary binding: the general path knows how
                n = VAR_OVERHEAD
            else:
                n = VAR_OVERHEAD + (len(value) if value.isascii() else 4 * len(value))
            held = acct.held + n  # (max_memory before storing: MemAccount.add's common case inline)
            if held <= acct.charged:
                acct.held = held
            else:
                acct.add(n)
            scope.acct = acct
            scope.size += n
            var = object.__new__(Var)  # (as clone: Var() through __init__ costs twice as much)
            var.value = value
            var.attrs = 0
            # a local hiding an exported variable is exported (bash's find(), from the scope
            # below; only the globals can hold a name local_names has not)
            if top or name not in names_below:
                hidden = scopes[0].get(name)
                if hidden is not None and hidden.attrs & EXPORT:
                    var.attrs = EXPORT
                names_below.add(name)
            else:
                # (the caller's scope first: a recursive call's local hides its caller's own)
                hidden = below.get(name)
                if hidden is None:
                    hidden = _found_below(scopes, name)
                if hidden is not None and hidden.attrs & EXPORT:
                    var.attrs = EXPORT
            _setdefault(scope, name, var)  # (a new name, already in names: at C speed)
            made.add(name)
        return True

    def _local_again(self, scope: Scope, name: str, value: str | None) -> bool:
        """`local name[=value]` of a plain local of this very function (a `local` in a loop of its
        body): bash finds the variable already there and assigns the value, if any, keeping it
        local and exported or not; True. False, nothing done: the builtin's general way for any
        other (attributes, an array, a call's temporary binding, a name not declared local)."""
        if not _plain_local(scope, name):
            return False
        var = scope[name]
        if value is not None:
            old = var.value
            assert old is None or type(old) is str  # (_plain_local)
            n = (len(value) if value.isascii() else 4 * len(value)) - (
                0 if old is None else len(old) if old.isascii() else 4 * len(old)
            )
            if n:
                self.charge(scope, n)  # (before storing: a limit leaves the old value)
            var.value = value
        return True

    def __del__(self) -> None:
        acct = getattr(self, "acct", None)  # absent when a limit ended clone() half-way
        if acct is not None:
            acct.close()

    @property
    def globals(self) -> Scope:
        return self.scopes[0]

    def find(self, name: str) -> Var | None:
        scopes = self.scopes
        if len(scopes) == 1 or name not in self.local_names:
            return scopes[0].get(name)
        for scope in reversed(scopes):
            v = scope.get(name)
            if v is not None:
                return v
        return None

    def find_scope(self, name: str) -> tuple[int, Var] | tuple[int, None]:
        scopes = self.scopes
        if name not in self.local_names:
            v = scopes[0].get(name)
            return (0, v) if v is not None else (-1, None)
        for i in range(len(scopes) - 1, -1, -1):
            v = scopes[i].get(name)
            if v is not None:
                return i, v
        return -1, None

    def in_function(self) -> bool:
        return any(s.func for s in self.scopes)

    def function_scope(self) -> Scope | None:
        for s in reversed(self.scopes):
            if s.func:
                return s
        return None

    def names(self) -> list[str]:
        seen: dict[str, None] = {}
        for s in self.scopes:
            for k in s:
                seen[k] = None
        return sorted(seen)

    def visible(self) -> dict[str, Var]:
        out: dict[str, Var] = {}
        for s in self.scopes:
            out.update(s)
        return out

    def push(self, scope: Scope) -> None:
        names = self.local_names
        scope.names = names
        if scope:
            names.update(scope)
        self.scopes.append(scope)

    def pop(self) -> Scope:
        return self.scopes.pop()


class _LazyVarStore(VarStore):
    """A lazy clone (VarStore.clone(lazy=True)): its scopes are copied from the source on first read;
    then it is a VarStore like any other."""

    __slots__ = ()

    if not TYPE_CHECKING:  # (for the type checker the attributes set in __init__ are the whole story)

        def __getattr__(self, name):
            # only reached for a slot not set yet: a lazy clone's first read of its scopes
            source = self.source if name in ("scopes", "readonly_names") else None
            if source is None:
                raise AttributeError(f"'VarStore' object has no attribute '{name}'")
            self._copy(source)
            self.source = None
            self.__class__ = VarStore  # (copied: no hook from now on)
            return getattr(self, name)


def _copy_cost(scope: Scope) -> int:
    n = VAR_OVERHEAD * len(scope)
    for v in scope.values():
        if type(v.value) is not str and v.value is not None:
            n += ELEMENT_OVERHEAD * len(v.value)  # type: ignore[arg-type]
    return n


# Characters at which the parser starts a new node, more or less: a syntax tree costs ~3 bytes a
# character of a long literal but ~155 for dense code (`:;:;…`), so charge per boundary too.
_BOUNDARIES = (" ", ";", "\n", "|", "&", "$", "=", "(")


def source_size(text: str) -> int:
    """Bytes the syntax tree parsed from `text` holds, conservatively (C-speed counts only)."""
    return 512 + 3 * len(text) + 320 * sum(map(text.count, _BOUNDARIES))


# Bytes a subshell's copy of one entry of a shell's table (functions, aliases, hash table) takes:
# the copy shares the values, not the dict (100 pipeline stages each copying 60,000 functions
# held 300 MB under a 256 MB max_memory)
COPIED_ENTRY = 64


class FunctionTable(dict[str, "FuncDef"]):
    """The shell's functions. What a definition's syntax tree holds is charged to the shell's
    account (`acct`) before it is stored and given back when it is replaced or unset. Entries a
    subshell inherits were charged by its parent: only what this table charged is given back
    (the copy itself is charged to the subshell's account, COPIED_ENTRY an entry)."""

    __slots__ = ("acct", "charged", "told")

    def __init__(self, acct: MemAccount, inherited: Mapping[str, FuncDef] | None = None) -> None:
        if inherited:
            acct.add(COPIED_ENTRY * len(inherited))
        super().__init__(inherited or {})
        self.acct = acct
        self.charged: dict[str, int] = {}
        # told whether a function named `local` is defined, at each change of that entry (the
        # owner's RunMode.local_reason: a `local` then runs it, not the builtin's plain path)
        self.told: Callable[[bool], None] | None = None

    def __setitem__(self, name: str, node: FuncDef) -> None:
        cost = source_size(node.text)
        self.acct.add(cost - self.charged.get(name, 0))  # may raise: then nothing changed
        self.charged[name] = cost
        super().__setitem__(name, node)
        if name == "local" and self.told is not None:
            self.told(True)

    def __delitem__(self, name: str) -> None:
        super().__delitem__(name)
        self.acct.add(-self.charged.pop(name, 0))
        if name == "local" and self.told is not None:
            self.told(False)

    def pop(self, name: str, *default: Any) -> Any:
        if name in self:
            self.acct.add(-self.charged.pop(name, 0))
        found = super().pop(name, *default)
        if name == "local" and self.told is not None:
            self.told(False)
        return found

    # dict's other ways in and out store and drop entries in C, past the charge above: each goes
    # through __setitem__/__delitem__ (no caller uses them today; one that does stays charged)
    def update(self, *args: Any, **kw: FuncDef) -> None:
        for name, node in dict(*args, **kw).items():
            self[name] = node

    def __ior__(self, other: Any) -> FunctionTable:  # type: ignore[override,misc]
        self.update(other)
        return self

    def setdefault(self, name: str, node: FuncDef) -> FuncDef:
        if name not in self:
            self[name] = node
        return self[name]

    def popitem(self) -> tuple[str, FuncDef]:
        if not self:
            raise KeyError("popitem(): dictionary is empty")
        name = next(reversed(self))
        return name, self.pop(name)

    def clear(self) -> None:
        for name in list(self):
            del self[name]
