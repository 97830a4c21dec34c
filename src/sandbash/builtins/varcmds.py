"""Builtins that declare and change variables and options:
declare/typeset/local/export/readonly, unset, set, shopt, let, getopts."""

from __future__ import annotations

import functools

from ..expand.arith import ArithError
from ..expand.arithwords import subscript_error
from ..expand.env import ExpansionError
from ..expand.quoting import (
    ansi_c_quote,
    as_bytes,
    assoc_key,
    declare_quote,
    needs_ansi,
    shell_metas,
    single_quote,
)
from ..interp.control import AbortCommand
from ..interp.executor import assign_failed, trace_assign
from ..interp.variables import AS_EXPANDED, AssignError, CircularRef, ElementError, valid_ref_target
from ..shvars.arrays import ASSOC_BUCKETS, CONVERTED_BUCKETS, AssocArray, IndexedArray
from ..shvars.vars import (
    ARRAY,
    ASSOC,
    CAPITALIZE,
    EXPORT,
    INTEGER,
    LOWER,
    NAMEREF,
    READONLY,
    TRACE,
    UPPER,
    VAR_OVERHEAD,
    ArrayRefArg,
    AssignArg,
    Scope,
    Var,
    split_array_ref,
    value_size,
)
from ..shvars.vars import valid_name as _valid_name
from . import builtin
from .bopts import no_options, parse_builtin, usage, wants_help

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..commands.options import CommandSpec
    from ..interp.fastbuiltins import let_status
    from ..interp.shell import Shell
    from ..shvars.vars import VarStore
    from ..syntax.ast import Subscript
    from .funcattrs import declare_functions, print_functions, set_func_attrs, unset_function
else:
    # `let`'s evaluation and the function attributes (declare -f, export -f, unset -f, ...) are loaded
    # by their first call: `export A=1` needs neither (~1.3 M instructions of a start-up). The first
    # call puts the real function in this module's globals, where every later call finds it.
    # (import statements, not __import__: tests/security/test_no_host_access allows no dynamic import here)
    def _fastbuiltins():
        from ..interp import fastbuiltins

        return fastbuiltins

    def _funcattrs():
        from . import funcattrs

        return funcattrs

    def _first_use(load, name: str):
        def stand_in(*args, **kwargs):
            real = getattr(load(), name)
            globals()[name] = real
            return real(*args, **kwargs)

        return stand_in

    let_status = _first_use(_fastbuiltins, "let_status")
    declare_functions = _first_use(_funcattrs, "declare_functions")
    print_functions = _first_use(_funcattrs, "print_functions")
    set_func_attrs = _first_use(_funcattrs, "set_func_attrs")
    unset_function = _first_use(_funcattrs, "unset_function")

_ATTR_FLAGS = {
    "a": ARRAY,
    "A": ASSOC,
    "c": CAPITALIZE,
    "i": INTEGER,
    "l": LOWER,
    "n": NAMEREF,
    "r": READONLY,
    "t": TRACE,
    "u": UPPER,
    "x": EXPORT,
}
_DECLARERS = ("declare", "typeset", "local")
_PRINT_ORDER = "aAinrtxclu"  # bash's var_attribute_string
# declare's internal_getopt letters (+x turns an attribute off; -I is accepted and does nothing here)
_DECLARE_LETTERS = "+" + "".join(_ATTR_FLAGS) + "pfFgI"


_key = assoc_key


def attr_string(var: Var) -> str:
    attrs = var.attrs
    if isinstance(var.value, IndexedArray):
        attrs |= ARRAY
    if isinstance(var.value, AssocArray):
        attrs |= ASSOC
        attrs &= ~ARRAY
    return "".join(c for c in _PRINT_ORDER if attrs & _ATTR_FLAGS[c])


def declare_line(name: str, var: Var, listing: bool = True, c_locale: bool = False) -> str:
    if name == "-":
        # the options `local -` saved: a listing shows the command, `declare -p -` a plain variable
        return "local -" if listing else "declare -- -"
    flags = attr_string(var) or "-"
    v = var.value
    head = f"declare -{flags} {name}"
    if v is None:
        return head
    if isinstance(v, IndexedArray):
        return head + "=(" + " ".join(f"[{k}]={declare_quote(x, c_locale)}" for k, x in v.items()) + ")"
    if isinstance(v, AssocArray):
        return (
            head
            + "=("
            + "".join(f"[{_key(k, c_locale)}]={declare_quote(x, c_locale)} " for k, x in v.items())
            + ")"
        )
    return f"{head}={declare_quote(v, c_locale)}"


@builtin("declare", "typeset", "local")
def bi_declare(sh: Shell, argv: list[str]) -> int:
    cmd = argv[0]
    st = sh.state
    if cmd == "local" and len(argv) > 1 and argv[1][:1] not in ("-", "+"):
        for a in argv[1:]:
            if not _fast_local(sh, a):
                break
        else:
            return 0
    if cmd == "local" and st.vars.function_scope() is None:
        sh.builtin_error("local", "can only be used in a function")
        # bash still makes the compound array assignments written in the words (`local a=(1 2)`,
        # `local -A m=([k]=v)`, `a+=(3)`) as global ones with -a/-A, and nothing else
        compound = [a for a in argv[1:] if isinstance(a, AssignArg) and a.items is not None]
        if compound:
            flags = {c for a in argv[1:] if a[:1] == "-" and not isinstance(a, AssignArg) for c in a[1:]}
            kinds = "".join(c for c in "aA" if c in flags)
            bi_declare(sh, ["declare", *([f"-{kinds}"] if kinds else []), *compound])
        return 1
    opts = parse_builtin(sh, argv, _DECLARE_LETTERS)
    if opts is None:
        return 2
    set_attrs = 0
    clear_attrs = 0
    for c, _value, sign in opts.items:
        if c in _ATTR_FLAGS:
            if sign == "-":
                set_attrs |= _ATTR_FLAGS[c]
            else:
                clear_attrs |= _ATTR_FLAGS[c]
    print_mode = opts.has("p")
    funcs = opts.has("f")
    func_names = opts.has("F")
    global_ = opts.has("g") and cmd != "local"  # bash takes -g from local and does nothing with it
    names = opts.args
    if cmd == "local" and not names:
        return _print_locals(sh, values=not func_names)  # bash: even with -f/-F, the locals
    if funcs or func_names:
        return declare_functions(sh, cmd, names, set_attrs, clear_attrs, func_names, print_mode)
    if not names and not print_mode and not set_attrs and not clear_attrs:
        return print_set_listing(sh)
    if print_mode:
        return _print_vars(sh, cmd, names, set_attrs, print_mode)
    if not names:
        return _print_vars(sh, cmd, [], set_attrs, True)
    in_func = st.vars.function_scope() is not None
    local = (cmd == "local" or in_func) and not global_
    status = 0
    for arg in names:
        if arg == "-" and cmd == "local":
            _save_options(sh)
            continue
        # -a with -A: bash makes (or keeps) an associative array, then refuses to convert it
        both = set_attrs & ARRAY and set_attrs & ASSOC
        try:
            if not _declare_one(
                sh,
                cmd,
                arg,
                set_attrs & ~ARRAY if both else set_attrs,
                clear_attrs,
                local,
                inherit=opts.has("I"),
                global_=global_,
            ):
                status = 1
            elif both:
                name = str(arg).partition("=")[0].partition("[")[0].rstrip("+")
                sh.builtin_error(cmd, f"{name}: cannot convert associative to indexed array")
                status = 1
            elif arg == "PATH":
                st.hashed.clear()  # (declare_internal's stupidly_hack_special_variables: sv_path)
        except AssignError as e:
            bare = "readonly" in e.message or "bad array subscript" in e.message  # bash names no builtin here
            sh.error(e.message) if bare else sh.builtin_error(cmd, e.message)
            status = 1
        except ExpansionError as e:
            sh.expansion_failed(e, None if isinstance(e, ElementError) else cmd)
            status = 1
    return status


def _ref_value(sh: Shell, cmd: str, name: str, value: str, append: bool) -> str | None:
    """What `declare -n name=value` makes the reference name (`name+=value` adds to its current
    one), or None after the error. A reference to itself (or to one of its own elements) is
    refused at the top level and only warned about in a function, as bash does."""
    grown = False
    if append:
        cur = sh.state.vars.find(name)
        if cur is not None and cur.attrs & NAMEREF and isinstance(cur.value, str):
            value, grown = cur.value + value, True
    if not valid_ref_target(value):
        why = "invalid variable name for name reference" if value else "not a valid identifier"
        sh.builtin_error(cmd, f"`{value}': {why}")
        return None
    if value.partition("[")[0] != name:
        return value
    if grown:
        sh.error(f"{name}: nameref variable self references not allowed")
        return None
    if sh.state.vars.function_scope() is None:
        sh.builtin_error(cmd, f"{name}: nameref variable self references not allowed")
        return None
    # inside a function bash only warns (on the assignment, then on the lookup that follows)
    sh.builtin_error(cmd, f"warning: {name}: circular name reference")
    sh.warn(f"{name}: circular name reference")
    return value


def _self_named(sh: Shell, name: str, value: str, append: bool) -> bool:
    """`declare -n r; declare r=r`: a reference that names nothing yet takes the value as the name
    it refers to, so a value naming itself is refused as `declare -n r=r` is (at the top level
    bash says so and removes r; in a function it warns and assigns). False after the refusal."""
    ref = sh.state.vars.find(name)
    if ref is None or not ref.attrs & NAMEREF or ref.value:
        return True
    if value.partition("[")[0] != name:
        return True
    if sh.state.vars.function_scope() is not None:
        sh.warn(f"{name}: circular name reference")
        return True
    sh.error(f"{name}: nameref variable self references not allowed")
    sh.va.unset_var(name, nameref=True)
    return False


def _place(vars_: VarStore, scope: Scope, name: str, var: Var) -> None:
    """`scope[name] = var`, charged as Scope.nbytes counts it: the scope gives back what it holds
    as it goes (Scope.release), so a variable placed without its charge made that release give
    back more than was charged, and a loop of such calls wore the run's max_memory account down
    while the memory was still held."""
    old = scope.get(name)
    if old is var:
        return
    n = value_size(var.value) - (value_size(old.value) if old is not None else -VAR_OVERHEAD)
    if n:
        vars_.charge(scope, n)
    scope[name] = var


def _global_target(sh: Shell, name: str) -> tuple[str, str | None]:
    """The variable (and element) `declare -g name` works on: namerefs followed among the
    global variables only (a function's local reference of that name is not seen)."""
    glob = sh.state.vars.globals
    seen: set[str] = set()
    while name not in seen:
        var = glob.get(name)
        if var is None or not var.attrs & NAMEREF or not isinstance(var.value, str) or not var.value:
            break
        seen.add(name)
        base, _, sub = var.value.partition("[")
        if sub:
            return base, sub[:-1]
        name = base
    return name, None


def _hidden_ref(sh: Shell, name: str, local: bool) -> bool:
    """A local declared over a caller's nameref is a new variable of that name: only a nameref
    of the current function is followed (bash)."""
    if not local:
        return False
    vars_ = sh.state.vars
    scope = vars_.function_scope()
    return scope is not None and name not in scope and vars_.find(name) is not None


def _save_options(sh: Shell) -> None:
    """`local -`: the set -o options are put back as they are now when the function returns
    (a local named `-`, as bash keeps them; `local -` again takes a new snapshot)."""
    scope = sh.state.vars.function_scope()
    if scope is None:
        return
    saved = " ".join(sorted(k for k, on in sh.state.opts.items() if on))
    old = scope.get("-")
    sh.state.vars.charge(scope, len(saved) + (VAR_OVERHEAD if old is None else -value_size(old.value)))
    scope["-"] = Var(saved, 0)
    scope.locals.add("-")


def _fast_local(sh: Shell, arg: str) -> bool:
    """`local name=value` or `local name` for a new plain variable in the
    current function (anything unusual goes the general way)."""
    if type(arg) is str:
        if "=" in arg or "[" in arg:
            return False
        name: str = arg
        value: str | None = None
    else:
        if not isinstance(arg, AssignArg):
            return False
        if arg.items is not None or arg.sub is not None or arg.append:
            return False
        name = arg.name
        value = arg.value
    if sh.state.opts["allexport"] or sh.state.shopts["localvar_inherit"]:
        return False  # (set -a exports it, localvar_inherit gives it the hidden one's: the general path)
    if value is not None:
        sh.check_string(len(value))  # (as set_var: the value was expanded as text, not as a word)
    return sh.state.vars.declare_locals(((name, value),))


def _declare_one(
    sh: Shell,
    cmd: str,
    arg: str,
    set_attrs: int,
    clear_attrs: int,
    local: bool,
    *,
    inherit: bool = False,
    global_: bool = False,
) -> bool:
    """One NAME[=VALUE] of declare/typeset/local/export/readonly (`inherit`: -I, a new local
    starts with the value and attributes of the variable it hides; `global_`: -g)."""
    st = sh.state
    parsed: Subscript | None = None
    if isinstance(arg, AssignArg):
        name, sub, append, value, items = arg.name, arg.sub, arg.append, arg.value, arg.items
        has_value = True
        if sub is not None and items is None:
            # bash expands the whole word first, then finds `name[sub]` in it again (A[$k] with
            # k=']' is no name) and expands the subscript once more, unless assoc_expand_once
            # (under assoc_expand_once the first `]` ends it, quotes and brackets plain)
            sub = sh.subscript_key(sub)
            once = st.shopts.get("assoc_expand_once")
            if "]" in sub if once else split_array_ref(f"{name}[{sub}]") != (name, sub):
                sh.builtin_error(cmd, f"`{name}[{sub}]{'+' * append}={value}': not a valid identifier")
                return False
            if once:
                parsed = AS_EXPANDED
    else:
        name, eq, value = arg.partition("=")
        has_value = bool(eq)
        append = name.endswith("+")
        if append:
            name = name[:-1]
        items = None
        sub = None
        if "[" in name and name.endswith("]"):
            parts = split_array_ref(name)
            name, sub = parts if parts is not None else ("", None)  # `A[]]=x`: not a name
    if not _valid_name(name):
        sh.builtin_error(cmd, f"`{arg}': not a valid identifier")
        return False
    if items is not None:
        _compound_precheck(sh, name, set_attrs, local)
    if not has_value and not local and sub is None and sh.va.is_dynamic(name):
        # bash finds the variable and so runs its getter (a listing shows the value read; RANDOM
        # moves on): once, and once more when declare changes its attributes
        reads = 2 if cmd in ("declare", "typeset") and (set_attrs or clear_attrs) else 1
        if set_attrs & (ARRAY | ASSOC) and cmd in ("declare", "typeset"):
            sh.va.ordinary_array(name, reads)  # (`declare -A RANDOM`: its value is element 0)
        else:
            for _ in range(reads):
                sh.lookup(name)
    if (
        has_value
        and not local
        and (items is not None or set_attrs & (ARRAY | ASSOC))
        and sh.va.is_dynamic(name)
    ):
        sh.va.ordinary_array(name)  # (`declare -a RANDOM=(1 2)`: an array of it, still -i)
    if sub is not None and cmd in ("readonly", "export"):
        sh.builtin_error(cmd, f"`{name}[{sub}]': not a valid identifier")
        return False
    if has_value and items is None and cmd in ("readonly", "export") and st.opts["xtrace"]:
        if not set_attrs & (ARRAY | ASSOC):
            # bash makes these through its assignment statement's code, which traces them
            sh.xtrace_line(trace_assign(name, None, append, value, None, sh.locale_bytes()))
    if set_attrs & NAMEREF and sub is not None:
        sh.builtin_error(cmd, f"{name}[{sub}]: reference variable cannot be an array")
        return False
    if cmd in ("readonly", "export") and not has_value:
        set_attrs &= ~(ARRAY | ASSOC)  # `readonly -a x` alone makes no array (bash)
    if sub == "" and not has_value:
        sh.builtin_error(cmd, f"`{name}[]': not a valid identifier")
        return False
    if local and sh.va.noassign(name):
        # bash's make_local_variable refuses a local of the call stack's arrays and GROUPS
        sh.builtin_error(cmd, f"{name}: variable may not be assigned value")
        return False
    if has_value and sh.va.noassign(name):
        # `declare FUNCNAME=x`: nothing assigned, status 1; `declare BASH_ARGC=(x)` drops the line
        if set_attrs & NAMEREF and not local and items is None:
            sh.builtin_error(cmd, f"{name}: reference variable cannot be an array")
        if items is not None:
            sh.va.set_array(name, [])  # (raises AbortCommand as the assignment statement does)
        return False
    if sub is not None and (not has_value or sub == "") and not set_attrs & ASSOC:
        # `declare -r c[100]`: a subscript without a value declares an indexed array (bash);
        # so does `declare -r c[]=v` before its empty subscript is refused
        cur = st.vars.find(name)
        if cur is None or not (cur.attrs & ASSOC or isinstance(cur.value, AssocArray)):
            set_attrs |= ARRAY
    if set_attrs & NAMEREF and items is not None:
        # `declare -n r=(a b)`: refused as a reference, made as an array all the same (bash)
        sh.builtin_error(cmd, f"{name}: reference variable cannot be an array")
        _declare_one(sh, cmd, arg, set_attrs & ~NAMEREF, clear_attrs, local, inherit=inherit)
        return False
    if set_attrs & NAMEREF and set_attrs & INTEGER and has_value:
        return True  # `declare -ni r=v`: bash makes the value a number, which names nothing
    if set_attrs & NAMEREF and has_value:
        ref_value = _ref_value(sh, cmd, name, value, append)
        if ref_value is None:
            return False
        value, append = ref_value, False
    if clear_attrs & NAMEREF and has_value and sub is None and items is None:
        ref = st.vars.find(name)
        if ref is not None and ref.attrs & NAMEREF and isinstance(ref.value, str) and ref.value:
            # `declare +n r=v`: bash assigns through r (with the other attributes asked for:
            # `declare +n -i r=7+4` makes the target an integer), then drops -n
            if set_attrs and valid_ref_target(ref.value) and "[" not in ref.value:
                _declare_one(sh, cmd, f"{ref.value}={value}", set_attrs, 0, local)
            else:
                sh.set_var(name, value)
            has_value = False
            set_attrs = 0
    if (
        has_value
        and items is None
        and sub is None
        and not ((set_attrs | clear_attrs) & NAMEREF)
        and cmd in _DECLARERS  # (export and readonly warn twice and assign: left as they were)
        and not _self_named(sh, name, value, append)
    ):
        return False
    if (
        cmd in ("readonly", "export")
        and sub is None
        and items is None
        and set_attrs & (READONLY | EXPORT)  # (`export -n` takes the attribute off in _unexport)
        and not (set_attrs | clear_attrs) & NAMEREF
    ):
        done = _attr_through_ref(sh, cmd, name, value if has_value else None, append, set_attrs, clear_attrs)
        if done is not None:
            return done
    if not ((set_attrs | clear_attrs) & NAMEREF) and sub is None and not _hidden_ref(sh, name, local):
        # `declare -i r` or `declare r=v` on a nameref works on the variable it names
        try:
            if cmd in _DECLARERS and not local and st.vars.function_scope() is not None:
                target, target_sub = _global_target(sh, name)  # -g: the global reference
            else:
                target, target_sub = sh.va.resolve_name(name)
        except AssignError:  # a circular chain: declare works on the name itself
            target, target_sub = name, None
        if _valid_name(target):
            name, sub = target, target_sub
        if sub is not None and cmd in ("readonly", "export"):
            # through a reference to an element: bash refuses it as it would `readonly a[0]`,
            # yet its status stays 0
            sh.builtin_error(cmd, f"`{name}[{sub}]': not a valid identifier")
            return True
    if (
        not local
        and not set_attrs & NAMEREF  # (`declare -n BASH_CMDS=x`: refused below, as for every array)
        and sh.va.table_target(name)
        and (items is None or st.vars.function_scope() is None)
    ):
        # BASH_CMDS/BASH_ALIASES at the top level are the tables themselves (`declare -A
        # BASH_CMDS=([cat]=/bin/rm)` is `hash -p /bin/rm cat`): no ordinary variable is made
        # (a list given by `declare -g`/`readonly`/`export` in a function makes one, as in bash)
        return _declare_table(
            sh, cmd, name, value if has_value else None, sub, items, append, parsed, set_attrs, clear_attrs
        )
    # find or create the variable in the right scope
    vars_ = st.vars
    if local:
        # the function's context, unless a temporary binding of this very name
        # sits above it (`v=x eval 'local v=y'` changes only that binding)
        scope = top = vars_.scopes[-1]
        # `z=y local z`: the builtin's own binding (bash's temporary_env) is no scope of its own
        own = top if top.temp and top.owner in _DECLARERS and name in top else None
        for s in reversed(vars_.scopes):
            if s is own:
                continue
            if name in s and s.temp:
                scope = s
                break
            if s.func:
                scope = s
                break
        if scope.func:
            # a readonly global may not be hidden; a calling function's readonly local may (bash)
            depth, outer = vars_.find_scope(name)
            if (
                (outer is not None and outer.attrs & READONLY and depth == 0) or sh.va.table_readonly(name)
            ) and name not in scope:
                sh.builtin_error(cmd, f"{name}: readonly variable")
                return False
            scope.locals.add(name)
        elif scope.temp:
            # `v=t eval 'local v=x'`: the binding is the function's local from now on (unset in
            # the function leaves it unset, hiding what is below: unset_var)
            scope.locals.add(name)
        var = scope.get(name)
        existed = var is not None
        if own is not None and scope.func:
            # a new local, whatever was there, with the binding's value and export attribute
            var = Var(own[name].value, own[name].attrs & EXPORT)
            _place(vars_, scope, name, var)
        elif var is None:
            hidden = vars_.find(name)  # bash's make_local_variable: a local of an exported name is exported
            var = Var(None, EXPORT if hidden is not None and hidden.attrs & EXPORT else 0)
            idx = next(i for i in range(len(vars_.scopes) - 1, -1, -1) if vars_.scopes[i] is scope)
            below = vars_.temp_below(name, idx)
            if inherit or st.shopts.get("localvar_inherit"):
                outer = vars_.find(name)
                if outer is not None:
                    var = outer.copy()
                    var.attrs &= ~NAMEREF  # (bash: inheriting a reference makes no sense)
            elif below is not None:
                # a local hiding a temporary binding inherits its value and export attribute, no
                # other (bash's make_local_variable)
                var = below.copy()
                var.attrs &= EXPORT
            _place(vars_, scope, name, var)
    else:
        scope = vars_.globals if cmd != "export" else vars_.scopes[0]
        found = vars_.find(name) if cmd in ("export", "readonly") else None
        if found is not None:
            scope = _scope_of(sh, name) or scope
        # `foo= export foo`, `X=1 declare -r X`: a temporary binding the builtin gives an
        # attribute outlives the command (bash propagates it), value and export included
        temp = next((s for s in reversed(vars_.scopes) if s.temp and name in s), None)
        if cmd in _DECLARERS and vars_.function_scope() is not None:
            temp = None  # `z=8 declare -g z` in a function: the global z, without the binding
        elif (
            temp is not None
            and cmd in _DECLARERS
            and not set_attrs & (EXPORT | READONLY)
            and items is None
            and not global_
        ):
            # `z=8 declare z`, `y=1 declare -i y=2`: only the binding changes, and it goes (bash;
            # `declare -g` finds the global variable: find_global_variable)
            scope, found = temp, temp[name]
            temp = None
        elif temp is not None and (found is None or scope is temp):
            scope = next((s for s in reversed(vars_.scopes) if not s.temp and name in s), vars_.globals)
            found = None
        var = found if found is not None else (scope.get(name) or Var(None, 0))
        existed = found is not None or name in scope
        _place(vars_, scope, name, var)
        if items is not None and found is not None and scope.func and scope is not vars_.function_scope():
            # `readonly a=(1 2)` on a caller's local a: bash 5.2 gives the list to the global a
            # and the attribute to the local
            sh.set_array(name, items, append=append, scope=vars_.globals)
            items, has_value = None, False
        tvar = temp.get(name) if temp is not None and found is None else None
        if (
            tvar is not None
            and tvar.value is not None
            and (cmd not in _DECLARERS or set_attrs & (EXPORT | READONLY))
        ):
            if not has_value:
                vars_.charge(scope, value_size(tvar.value) - value_size(var.value))  # (as _place)
                var.value = tvar.value
            var.attrs |= tvar.attrs & EXPORT
    if (
        set_attrs & NAMEREF
        and not var.attrs & NAMEREF
        and (
            isinstance(var.value, (IndexedArray, AssocArray))
            or var.attrs & (ARRAY | ASSOC)
            or (scope is vars_.globals and sh.va.is_dynamic_array(name, var))
        )
    ):
        # (bash asks this before whether the variable is readonly: BASH_VERSINFO)
        sh.builtin_error(cmd, f"{name}: reference variable cannot be an array")
        return False
    # a readonly variable's value cannot change, nor whether it is a reference (a reference with
    # no target may stop being one)
    ref_change = bool(set_attrs & ~var.attrs & NAMEREF) or bool(
        clear_attrs & var.attrs & NAMEREF and var.value is not None
    )
    if var.attrs & READONLY and (has_value or clear_attrs & READONLY or ref_change):
        # readonly/export name themselves only for a quoted list they make an array of
        quoted_list = items is None and set_attrs & (ARRAY | ASSOC) and value[:1] == "(" and value[-1:] == ")"
        if cmd in ("declare", "typeset", "local") or quoted_list:
            sh.builtin_error(cmd, f"{name}: readonly variable")
        else:
            sh.error(f"{name}: readonly variable")
        return False
    if has_value and items is None and len(value) > 1 and value[0] == "(" and value[-1] == ")":
        # a quoted `(...)` (`declare -a a='(1 2)'`) is a compound assignment when declare makes an
        # array or names one; bash warns when it makes an element of a new array instead
        exists = isinstance(var.value, (IndexedArray, AssocArray)) or var.attrs & (ARRAY | ASSOC)
        if set_attrs & (ARRAY | ASSOC) or (exists and sub is None and cmd not in ("readonly", "export")):
            assoc = bool(set_attrs & ASSOC or var.attrs & ASSOC or isinstance(var.value, AssocArray))
            items, sub = sh.va.compound_items(value, assoc), None
        elif sub is not None and not exists:
            sh.warn(f"{arg}: quoted compound array assignment deprecated")
    if set_attrs & NAMEREF and not var.attrs & NAMEREF:
        # an existing variable becomes a reference only if its value names one
        if isinstance(var.value, (IndexedArray, AssocArray)) or var.attrs & (ARRAY | ASSOC):
            sh.builtin_error(cmd, f"{name}: reference variable cannot be an array")
            return False
        if not has_value and isinstance(var.value, str) and not valid_ref_target(var.value):
            sh.builtin_error(cmd, f"`{var.value}': invalid variable name for name reference")
            return False
    if (clear_attrs & ARRAY and (isinstance(var.value, IndexedArray) or var.attrs & ARRAY)) or (
        clear_attrs & ASSOC and (isinstance(var.value, AssocArray) or var.attrs & ASSOC)
    ):
        sh.builtin_error(cmd, f"{name}: cannot destroy array variables in this way")
        return False
    # (a declared array without a value converts no more than one with elements)
    if set_attrs & ASSOC and (isinstance(var.value, IndexedArray) or var.attrs & ARRAY):
        sh.builtin_error(cmd, f"{name}: cannot convert indexed to associative array")
        return False
    if set_attrs & ARRAY and (isinstance(var.value, AssocArray) or var.attrs & ASSOC):
        sh.builtin_error(cmd, f"{name}: cannot convert associative to indexed array")
        return False
    if sub is not None and has_value and var.attrs & NAMEREF and not set_attrs & NAMEREF:
        sh.va.drop_nameref(name, var)  # `declare -a r[1]=x` on a nameref r
    if set_attrs & (ARRAY | ASSOC) and var.attrs & NAMEREF and not var.value:
        clear_attrs |= NAMEREF  # `declare -n r; declare -a r`: a reference without a target goes
    new_attrs = (var.attrs | set_attrs) & ~clear_attrs
    if set_attrs & NAMEREF and not var.attrs & NAMEREF:
        new_attrs &= ~(INTEGER | UPPER | LOWER | CAPITALIZE)  # (what a reference's value is not)
    if set_attrs & UPPER:
        new_attrs &= ~(LOWER | CAPITALIZE)
    if set_attrs & LOWER:
        new_attrs &= ~(UPPER | CAPITALIZE)
    if set_attrs & CAPITALIZE:
        new_attrs &= ~(UPPER | LOWER)
    var.attrs = new_attrs & ~READONLY
    if set_attrs & (ASSOC | ARRAY) and not isinstance(
        var.value, AssocArray if set_attrs & ASSOC else IndexedArray
    ):
        converted = _to_array(var.value, bool(set_attrs & ASSOC), has_value, local and existed, existed)
        if scope.get(name) is var:  # (charged as Scope.nbytes counts it, as _place: before storing)
            vars_.charge(scope, value_size(converted) - value_size(var.value))
        var.value = converted
    if has_value and sub == "":
        if new_attrs & READONLY:
            var.attrs |= READONLY
            vars_.readonly_names.add(name)
        raise AssignError(f"{name}[]: bad array subscript")
    if has_value:
        temp_scope = Scope()
        temp_scope[name] = var
        if items is not None:
            sh.set_array(name, items, append=append, scope=temp_scope)
        elif set_attrs & NAMEREF or (var.attrs & NAMEREF and not sub):
            if not set_attrs & NAMEREF and not valid_ref_target(value):
                # a nameref without a target takes the value as the name it refers to; bash
                # drops a global one that fails
                if scope.func:
                    sh.builtin_error(cmd, f"`{value}': invalid variable name for name reference")
                else:
                    sh.builtin_error(cmd, f"`{value}': not a valid identifier")
                    if var.value is None and scope.get(name) is var:
                        vars_.charge(scope, -VAR_OVERHEAD)  # (as _place charged it)
                        del scope[name]
                return False
            vars_.charge(scope, value_size(value) - value_size(var.value))  # (as Scope.nbytes counts it)
            var.value = value
        else:
            sh.set_var(name, value, sub=sub, append=append, scope=temp_scope, parsed=parsed)
        # what was charged for the value is held by `scope`, which gives it back as it goes: the
        # carrier must not give it back too when it is dropped (Scope.release is its __del__)
        if temp_scope.acct is not None:
            if scope.acct is None:
                scope.acct = temp_scope.acct
            scope.size += temp_scope.size
            temp_scope.acct = None
            temp_scope.size = 0
    elif var.value is not None and isinstance(var.value, str) and set_attrs & (INTEGER | UPPER | LOWER):
        pass
    var.attrs |= new_attrs & READONLY
    if var.attrs & READONLY:
        vars_.readonly_names.add(name)
    if cmd == "export" or set_attrs & EXPORT & ~clear_attrs:  # (`declare -x +x`: the + wins)
        var.attrs |= EXPORT
    if (
        set_attrs & (EXPORT | READONLY)
        and scope.tempvars
        and name in scope.tempvars
        and scope.get(name) is var
    ):
        # `v=1 f` where f runs `export v` or `local -r v`: the binding outlives the call (bash 5.2)
        scope.propagate = (scope.propagate or set()) | {name}
    return True


def _compound_precheck(sh: Shell, name: str, set_attrs: int, local: bool) -> None:
    """bash checks the variable of a declaration's compound assignment as it expands the words,
    before the builtin runs: readonly, or -A/-a against what it is. Outside a function (and for
    a readonly one with -g) the line is dropped after the message; in a function a conversion or
    a readonly variable a local would hide is reported in the function's name, and the builtin
    goes on to report it again."""
    st = sh.state
    func = st.frames[-1][0] if st.frames and st.vars.function_scope() is not None else None
    if func is not None and sh.va.noassign(name):
        # (FUNCNAME, GROUPS, ...: the builtin then refuses it again)
        sh.builtin_error(func, f"{name}: variable may not be assigned value")
        return
    var = st.vars.find(name) if func is None or local else st.vars.globals.get(name)
    if var is None and sh.va.table_readonly(name):
        var = sh.va.lookup(name)  # the table's variable, readonly (a local may not hide it either)
    if var is None:
        return
    if var.attrs & READONLY:
        if func is not None and local:
            if st.vars.find_scope(name)[0] == 0 or sh.va.table_readonly(
                name
            ):  # (a caller's readonly local may be hidden)
                sh.builtin_error(func, f"{name}: readonly variable")
            return
        sh.error(f"{name}: readonly variable")
        raise AbortCommand(1)
    if local and func is not None and not st.shopts.get("localvar_inherit"):
        return  # a new local of its own kind (with localvar_inherit, of the kind it hides)
    if set_attrs & ASSOC and (isinstance(var.value, IndexedArray) or var.attrs & ARRAY):
        why = "cannot convert indexed to associative array"
    elif set_attrs & ARRAY and (isinstance(var.value, AssocArray) or var.attrs & ASSOC):
        why = "cannot convert associative to indexed array"
    else:
        return
    if func is None:
        sh.error(f"{name}: {why}")
        raise AbortCommand(1)
    sh.builtin_error(func, f"{name}: {why}")


def _attr_through_ref(
    sh: Shell, cmd: str, name: str, value: str | None, append: bool, set_attrs: int, clear_attrs: int
) -> bool | None:
    """readonly/export NAME[=VALUE] with NAME a reference that names no variable yet (no
    target, a chain back to itself, an element), as bash's set_or_show_attributes: the value is
    assigned first (through the reference, or as its target), then the attribute goes to what
    the reference names once more: a circular chain is warned twice and nothing gets it, an empty
    reference is no identifier (status 0 all the same), an element neither. None: NAME is no such
    reference, the general way decides."""
    ref = sh.state.vars.find(name)
    if ref is None or not ref.attrs & NAMEREF:
        return None
    try:
        target, tsub = sh.va.resolve_name(name)
        if ref.value and tsub is None:
            return None  # a reference to a variable: declare's way works on that variable
    except AssignError:
        pass
    if value is not None:
        try:
            sh.set_var(name, value, append=append)
        except AssignError as e:
            if e.fatal and not isinstance(e, CircularRef):  # (bash goes on to the attribute)
                raise
            sh.error(e.message)
            ok = False
        else:
            ok = True
    else:
        ok = True
    try:
        target, tsub = sh.va.resolve_name(name)
    except AssignError as e:
        sh.error(e.message)  # (bash's find_variable and then its lookup for a new variable)
        sh.error(e.message)
        return ok
    if target == name and not ref.value:
        sh.builtin_error(cmd, "`': not a valid identifier")
        return ok
    if tsub is not None:
        sh.builtin_error(cmd, f"`{target}[{tsub}]': not a valid identifier")
        return ok
    return _declare_one(sh, cmd, target, set_attrs, clear_attrs, False) and ok


def _declare_table(
    sh: Shell,
    cmd: str,
    name: str,
    value: str | None,
    sub: str | None,
    items: list[tuple[str | None, str, bool]] | None,
    append: bool,
    parsed: Subscript | None,
    set_attrs: int,
    clear_attrs: int,
) -> bool:
    """declare/readonly/export of BASH_CMDS or BASH_ALIASES at the top level: the value goes
    into the table itself, and of the attributes only -r and -x are kept (in ShellState's
    table_attrs; bash keeps others too, which change no entry sandbash runs). A readonly table
    refuses a value and `+r` as any readonly variable does."""
    attrs = sh.state.table_attrs.get(name, 0)
    if set_attrs & ARRAY and sub is None:  # (`declare T[k]` alone asks for an indexed array too)
        sh.builtin_error(cmd, f"{name}: cannot convert associative to indexed array")
        return False
    if attrs & READONLY and (value is not None or items is not None or clear_attrs & READONLY):
        if cmd in ("declare", "typeset", "local"):
            sh.builtin_error(cmd, f"{name}: readonly variable")
        else:  # (readonly and export word it as the assignment statement does)
            sh.error(f"{name}: readonly variable")
        return False
    if items is not None:
        sh.va.fill_table(name, items)
    elif value is not None:  # (`declare BASH_CMDS=/bin/x`: the entry of key 0)
        sh.set_var(name, value, sub=sub, append=append, parsed=parsed)
    _table_attrs(sh, name, set_attrs, clear_attrs)
    return True


def _table_attrs(sh: Shell, name: str, set_attrs: int, clear_attrs: int) -> None:
    """-r and -x of BASH_CMDS/BASH_ALIASES set or cleared (-r is never cleared)."""
    table_attrs = sh.state.table_attrs
    attrs = (table_attrs.get(name, 0) | set_attrs) & ~(clear_attrs & EXPORT) & (READONLY | EXPORT)
    if attrs & READONLY:
        sh.state.vars.readonly_names.add(name)  # (the fast `local` path then leaves it to declare)
    if attrs:
        table_attrs[name] = attrs
    else:
        table_attrs.pop(name, None)


def _to_array(
    value: object, assoc: bool, has_value: bool, own_local: bool, existed: bool
) -> IndexedArray | AssocArray | None:
    """The value of a variable `declare -A` or `-a` makes an array of (`has_value`: the command
    gives it one). `declare -A m` declares without a value, `declare -A m=()` sets an empty one.
    A scalar's value becomes element 0 (bash's convert_var_to_array/_assoc), in a table of 128
    buckets (hash_create's default, not a new array's 1024: `declare -p` lists the keys in that
    table's order); a function's own local loses it (make_local_assoc_variable disposes of it)."""
    if own_local:
        value, has_value = None, has_value or value is not None
    if not assoc:
        return IndexedArray([value]) if isinstance(value, str) else (IndexedArray() if has_value else None)
    if value is None and not has_value:
        return None
    arr = AssocArray(CONVERTED_BUCKETS if existed and not own_local else ASSOC_BUCKETS)
    if isinstance(value, str):
        arr.set("0", value)
    return arr


def _scope_of(sh: Shell, name: str) -> Scope | None:
    for s in reversed(sh.state.vars.scopes):
        if name in s:
            return s
    return None


def _print_locals(sh: Shell, values: bool = True) -> int:
    """`local` (any options, no names) lists the current function's locals, as declare does;
    `local -F` without their values (bash's nodefs)."""
    scope = sh.state.vars.function_scope()
    if scope is not None:
        c_locale = sh.locale_bytes()
        for name in sorted(n for n in scope.locals if n in scope):
            var = scope[name]
            sh.out(
                declare_line(name, var if values else Var(None, var.attrs | _kind(var)), c_locale=c_locale)
                + "\n"
            )
    return 0


def _kind(var: Var) -> int:
    """The array attribute a value's kind gives (an array may be stored without the attribute)."""
    if isinstance(var.value, AssocArray):
        return ASSOC
    return ARRAY if isinstance(var.value, IndexedArray) else 0


def print_set_listing(sh: Shell) -> int:
    """`set`, `declare` and `typeset` without arguments: the variables that have a value, quoted as
    `set` quotes them, then the functions' definitions (not in posix mode)."""
    visible = sh.va.listing()
    c_locale = sh.locale_bytes()
    for name in sorted(visible):
        var = visible[name]
        if var.value is not None and name != "-":
            sh.out(set_line(name, var, c_locale) + "\n")
    if not sh.state.opts["posix"]:
        print_functions(sh, None, False, attr_lines=False)
    return 0


def _print_vars(sh: Shell, cmd: str, names: list[str], filter_attrs: int, full: bool) -> int:
    st = sh.state
    status = 0
    c_locale = sh.locale_bytes()
    if names:
        func_scope = st.vars.function_scope() if cmd == "local" else None
        for name in names:
            if func_scope is not None:
                # `local -p NAME` shows only a variable local to the current function (bash)
                var = func_scope.get(name) if name in func_scope.locals else None
            else:
                var = st.vars.find(name)
                if var is None or (var.value is None and sh.va.is_dynamic(name)) or name == "PIPESTATUS":
                    var = sh.lookup(name) or var  # (SECONDS=5 stores no value: it is read when shown)
            if var is None:
                sh.builtin_error(cmd, f"{name}: not found")
                status = 1
                continue
            sh.out(declare_line(name, var, listing=False, c_locale=c_locale) + "\n")
        return status
    visible = sh.va.listing()
    for name in sorted(visible):
        var = visible[name]
        if filter_attrs and not _listed_by(var.attrs | _kind(var), filter_attrs):
            continue
        if full or filter_attrs:
            sh.out(declare_line(name, var, c_locale=c_locale) + "\n")
        else:
            sh.out(set_line(name, var, c_locale) + "\n")
    return status


def _listed_by(have: int, wanted: int) -> bool:
    """bash's set_or_show_attributes: -a (else -A) keeps only arrays of that kind, and then any one
    of the other attributes asked for selects (`declare -rx`: readonly or exported)."""
    for kind in (ARRAY, ASSOC):
        if wanted & kind:
            if not have & kind:
                return False
            return wanted == kind or bool(have & wanted & ~(ARRAY | ASSOC))
    return bool(have & wanted)


def set_line(name: str, var: Var, c_locale: bool = False) -> str:
    """A variable as `set` lists it; `c_locale`: declare_quote's."""
    v = var.value
    if v is None:
        return name
    if isinstance(v, IndexedArray):
        return f"{name}=(" + " ".join(f"[{k}]={declare_quote(x, c_locale)}" for k, x in v.items()) + ")"
    if isinstance(v, AssocArray):
        return (
            f"{name}=("
            + "".join(f"[{_key(k, c_locale)}]={declare_quote(x, c_locale)} " for k, x in v.items())
            + ")"
        )
    return f"{name}={_set_quote(as_bytes(v) if c_locale else v)}"


def _set_quote(v: str) -> str:
    """A value as `set` shows it: quoted only when it holds a shell metacharacter, starts with `#`
    or has a `~` tilde expansion would see (bash's sh_contains_shell_metas); a lone `'` is `\'`."""
    if needs_ansi(v):
        return ansi_c_quote(v)
    if v == "'":
        return "\\'"
    if shell_metas(v):
        return single_quote(v)
    return v


@builtin("export")
def bi_export(sh: Shell, argv: list[str]) -> int:
    opts = parse_builtin(sh, argv, "aAfnp")  # -a/-A as readonly's (bash takes them, unlisted)
    if opts is None:
        return 2
    args = opts.args
    unexport, funcs = opts.has("n"), opts.has("f")
    kind = (ARRAY if opts.has("a") else 0) | (ASSOC if opts.has("A") else 0)
    if funcs:
        if not args:
            return print_functions(sh, None, False, EXPORT)
        return set_func_attrs(
            sh, "export", args, 0 if unexport else EXPORT, EXPORT if unexport else 0, missing="not a function"
        )
    if not args:  # with names, -p does nothing more than the names alone (bash 5.2)
        return _print_with_attr(sh, "export", EXPORT, kind)
    status = 0
    for arg in args:
        name = arg.split("=", 1)[0].rstrip("+")
        if unexport:
            status |= _unexport(sh, arg, name, kind)
            continue
        try:
            if not _declare_one(sh, "export", arg, EXPORT | kind, 0, False):
                status = 1
        except AssignError as e:
            sh.error(e.message)
            status = 1
    return status


def _unexport(sh: Shell, arg: str, name: str, kind: int) -> int:
    """`export -n NAME[=VALUE]`: assign when a value is given, then take the export attribute
    off the variable NAME refers to (a nameref's target, as bash)."""
    if not _valid_name(name):
        sh.builtin_error("export", f"`{arg}': not a valid identifier")
        return 1
    if "=" in arg:
        try:
            if not _declare_one(sh, "export", arg, kind, 0, False):
                return 1
        except AssignError as e:
            sh.error(e.message)
            return 1
    try:
        target = sh.va.resolve_name(name)[0]
    except AssignError:  # a circular reference: the name itself
        sh.warn(f"{name}: circular name reference")
        target = name
    if "=" not in arg and sh.va.is_dynamic(target):
        sh.lookup(target)  # (bash's find_variable runs the getter: RANDOM moves on)
    found = sh.state.vars.find(target)
    if found is not None:
        found.attrs &= ~EXPORT
    elif sh.va.table_target(target):
        _table_attrs(sh, target, 0, EXPORT)
    return 0


def _print_with_attr(sh: Shell, cmd: str, attr: int, kind: int) -> int:
    """`export -p`, `readonly -p [-a|-A]`: the variables with `attr` (and of `kind`, when given),
    as declare lines, or as `export`/`readonly` lines in posix mode."""
    posix = sh.state.opts["posix"]
    listed = sh.va.listing()
    c_locale = sh.locale_bytes()
    for name in sorted(listed):
        var = listed[name]
        if not var.attrs & attr:
            continue
        if kind and not (
            var.attrs & kind or isinstance(var.value, IndexedArray if kind & ARRAY else AssocArray)
        ):
            continue
        line = declare_line(name, var, c_locale=c_locale)
        if posix:
            # `declare -rx X="1"` becomes `readonly X="1"`, keeping the array flag
            flags, _, rest = line[len("declare -") :].partition(" ")
            kept = "".join(c for c in flags if c in "aA")
            line = f"{cmd} -{kept} {rest}" if kept else f"{cmd} {rest}"
        sh.out(line + "\n")
    return 0


@builtin("readonly")
def bi_readonly(sh: Shell, argv: list[str]) -> int:
    # -n (bash takes it, unlisted, as export's): readonly cannot be taken off, so bash drops the
    # attribute: names are only checked and values assigned, nothing is made readonly
    opts = parse_builtin(sh, argv, "aAfnp")
    if opts is None:
        return 2
    args = opts.args
    undo = opts.has("n")
    attrs = (0 if undo else READONLY) | (ARRAY if opts.has("a") else 0) | (ASSOC if opts.has("A") else 0)
    funcs = opts.has("f")
    if funcs:
        if not args:
            return print_functions(sh, None, False, READONLY)
        return set_func_attrs(sh, "readonly", args, attrs & READONLY, 0, missing="not a function")
    if not args:
        # with names, -p does nothing more than the names alone (bash 5.2)
        return _print_with_attr(sh, "readonly", READONLY, attrs & (ARRAY | ASSOC))
    status = 0
    for arg in args:
        if undo and "=" not in arg:
            if not _valid_name(arg):
                sh.builtin_error("readonly", f"`{arg}': not a valid identifier")
                status = 1
            continue
        try:
            if not _declare_one(sh, "readonly", arg, attrs, 0, False):
                status = 1
        except AssignError as e:
            sh.error(e.message)
            status = 1
    return status


# bash's att_nounset: the call-stack arrays stay whatever a script does
_NOUNSET = frozenset({"BASH_ARGC", "BASH_ARGV", "BASH_LINENO", "BASH_SOURCE"})


@builtin("unset")
def bi_unset(sh: Shell, argv: list[str]) -> int:
    opts = parse_builtin(sh, argv, "fvn")
    if opts is None:
        return 2
    args = opts.args
    if opts.has("f") and opts.has("v"):
        sh.builtin_error("unset", "cannot simultaneously unset a function and a variable")
        return 1
    mode = "f" if opts.has("f") else "n" if opts.has("n") else "v" if opts.has("v") else ""
    st = sh.state
    status = 0
    first = len(argv) - len(args)  # (the names are argv's last words)
    for i, name in enumerate(args, first):
        base, sep, sub = name.partition("[")
        if mode == "f":
            if not unset_function(sh, name):
                status = 1
            continue
        # written as an array reference (`unset a[$k]`): the subscript runs to the last `]` and
        # is not expanded again (bash's W_ARRAYREF)
        expanded = isinstance(name, ArrayRefArg)
        # bash's tokenize_array_reference: the subscript of an associative array written as one
        # (`unset -v d["$k"]`, k=\') or under assoc_expand_once is taken as it is; any other
        # reads quotes, and one left open leaves no array reference (`unset 'a[1"]'`)
        as_is = bool(sep) and (expanded or bool(st.shopts.get("assoc_expand_once"))) and sh.va.is_assoc(base)
        if sep and (sub == "]" or split_array_ref(name, not as_is, expanded and as_is) is None):
            base = ""  # `A[`, `A[]`, `A[]]`, `A[a]b]`: no array reference, so no name either
        if not _valid_name(base) or (sub and not sub.endswith("]")):
            if mode == "v" or (sub and _valid_name(base)):
                sh.builtin_error("unset", f"`{name}': not a valid identifier")
                status = 1
            else:
                st.functions.pop(name, None)
            continue
        if len(sub) > 1 and mode != "n" and argv[i] is name:
            argv[i] = base  # bash cuts the word at `[` in place: `$_` is then the array's name
        try:
            if base in _NOUNSET:
                raise AssignError(f"{base}: cannot unset")
            if sub:
                sh.va.unset_element(base, sub[:-1], expanded=expanded)
                continue
            if mode == "" and st.vars.find(name) is None and name in st.functions:
                if not unset_function(sh, name):
                    status = 1
                continue
            if mode == "n":
                # `unset -n` unsets a reference itself; any other variable stays (bash 5.2's
                # unbind_nameref), though a readonly one is reported
                var = st.vars.find(name)
                if var is not None and var.attrs & READONLY:
                    raise AssignError(f"{name}: cannot unset: readonly variable")
                if var is None or not var.attrs & NAMEREF:
                    continue
            sh.va.unset_var(name, nameref=mode == "n")
        except AssignError as e:
            sh.builtin_error("unset", e.message)
            status = 1
        except ArithError as e:
            # an index that fails as arithmetic ends the command line (bash's array_expand_index
            # jumps to the top level): `bash -c` exits
            return sh.expansion_failed(subscript_error(e))
    return status


# ------------------------------------------------------------ set / shopt


@functools.cache
def _set_spec(letters: tuple[str, ...]) -> CommandSpec:
    """set's options: `-x`/`+x` flags, and `-o NAME` whose name is always the next word (`-ox errexit`)."""
    from ..commands.options import CommandSpec, Opt

    return CommandSpec(
        name="set",
        builtin=True,
        plus=True,
        opts=(*(Opt(c, dest=c) for c in letters), Opt("o", dest="o", arg="optional", attached=False)),
    )


@builtin("set")
def bi_set(sh: Shell, argv: list[str]) -> int:
    from ..commands.options import HelpRequested, UsageError, parse_args
    from ..interp.state import FLAG_LETTERS

    st = sh.state
    if len(argv) == 1:
        return print_set_listing(sh)
    # bash checks every option word before it changes anything (its first getopt pass); `-o`'s
    # value is the next word unless that looks like an option (then `set -o` lists)
    # a lone `+` is a flag word with no letters: skipped, and the options go on after it
    # (`set -x + -v x y` sets -v, $@ is `x y`)
    spec = _set_spec(tuple(FLAG_LETTERS))
    words, pieces = argv[1:], []
    try:
        while True:
            parsed, args = parse_args(spec, words)
            pieces.append(parsed)
            if args[:1] != ["+"] or parsed.dashdash is not None:
                break
            words = args[1:]
    except HelpRequested:
        wants_help(sh, argv[:1] + ["--help"])
        return 2
    except UsageError as e:
        sh.builtin_error("set", e.message)
        usage(sh, "set")
        return 0 if e.name == "?" else 2  # bash: `set -?` prints the usage and succeeds
    given = [(item, sign) for piece in pieces for item, sign in zip(piece.order, piece.signs, strict=True)]
    for (letter, value), sign in given:
        on = sign == "-"
        if letter != "o":
            st.opts[FLAG_LETTERS[letter]] = on
        elif not value:
            _print_set_o(sh, on)
        elif value not in st.opts:
            sh.builtin_error("set", f"{value}: invalid option name")
            return 2
        else:
            sh.va.set_option(value, on)
            if value in ("vi", "emacs") and on:
                st.opts["emacs" if value == "vi" else "vi"] = False
    if args[:1] == ["-"] and parsed.dashdash is None:
        st.opts["xtrace"] = False  # `set -` ends the options and turns -x and -v off
        st.opts["verbose"] = False
        args = args[1:]
        if args:
            st.set_positional(args)
        st.args_version += 1
    elif args or parsed.dashdash is not None:
        st.set_positional(args)
        st.args_version += 1
    else:
        return 0
    if not st.frames:
        st.args_set_top += 1
    return 0


def _print_set_o(sh: Shell, on: bool) -> None:
    st = sh.state
    for name in sorted(st.opts):
        value = st.opts[name]
        if on:
            sh.out(f"{name:<15}\t{'on' if value else 'off'}\n")
        else:
            sh.out(f"set {'-' if value else '+'}o {name}\n")


@builtin("shopt")
def bi_shopt(sh: Shell, argv: list[str]) -> int:
    st = sh.state
    opts = parse_builtin(sh, argv, "squpo")
    if opts is None:
        return 2
    args, flags = opts.args, opts.letters()
    table = st.opts if "o" in flags else st.shopts
    # bash's table keeps autocd first; the rest are in alphabetical order
    order = sorted(table, key=lambda n: (n != "autocd", n))
    bad_name = "invalid option name" if "o" in flags else "invalid shell option name"
    if "o" not in flags:
        _sync_compat(sh)
    if "s" in flags and "u" in flags:
        sh.builtin_error("shopt", "cannot set and unset shell options simultaneously")
        return 1
    if "s" in flags or "u" in flags:
        value = "s" in flags
        if not args:
            for name in order:
                if table[name] == value:
                    _print_shopt(sh, name, value, "p" in flags, "o" in flags)
            return 0
        status = 0
        for name in args:
            if name not in table:
                sh.builtin_error("shopt", f"{name}: {bad_name}")
                status = 0 if "o" in flags else 1  # bash's -o path reports the name but keeps 0
                continue
            if "o" in flags:
                sh.va.set_option(name, value)
            elif name in _COMPAT:
                _set_compat(sh, name, value)
            else:
                table[name] = value
                if name == "extdebug":
                    _set_debug_mode(sh, value)
        return status
    status = 0
    names = args or order
    for name in names:
        if name not in table:
            sh.builtin_error("shopt", f"{name}: {bad_name}")
            status = 1
            continue
        value = table[name]
        if not value:
            status = 1 if args else status
        if "q" not in flags:
            _print_shopt(sh, name, value, "p" in flags, "o" in flags)
    return status


def _set_debug_mode(sh: Shell, on: bool) -> None:
    """extdebug is bash's debugging mode: -E and -T follow it (shopt_set_debug_mode), calls push
    their arguments on BASH_ARGV/BASH_ARGC, which its start fills if nothing has yet."""
    from ..interp.state import init_bash_argv

    sh.va.set_option("errtrace", on)
    sh.va.set_option("functrace", on)
    sh.state.argv_debug = on
    if on:
        init_bash_argv(sh.state)


_COMPAT = ("compat31", "compat32", "compat40", "compat41", "compat42", "compat43", "compat44")


def _sync_compat(sh: Shell) -> None:
    """The compatNN options show the compatibility level BASH_COMPAT sets (one of them, or none)."""
    level = str(sh.va.compat_level())
    for name in _COMPAT:
        sh.state.shopts[name] = name[6:] == level


def _set_compat(sh: Shell, name: str, on: bool) -> None:
    """shopt -s compatNN sets BASH_COMPAT to NN; -u of the level in force sets it to the shell's
    own (52), as bash does; -u of another leaves it."""
    if on:
        sh.set_var("BASH_COMPAT", name[6:])
    elif sh.state.shopts[name]:
        sh.set_var("BASH_COMPAT", "52")
    _sync_compat(sh)


def _print_shopt(sh: Shell, name: str, value: bool, reusable: bool, set_o: bool) -> None:
    if reusable:
        if set_o:
            sh.out(f"set {'-' if value else '+'}o {name}\n")
        else:
            sh.out(f"shopt {'-s' if value else '-u'} {name}\n")
    else:
        sh.out(f"{name:<15}\t{'on' if value else 'off'}\n")


@builtin("let")
def bi_let(sh: Shell, argv: list[str]) -> int:
    first = argv[1] if len(argv) > 1 else ""
    if first == "--help" and wants_help(sh, argv):
        return 2
    start = 2 if first == "--" else 1
    if len(argv) <= start:
        sh.builtin_error("let", "expression expected")
        return 1
    # under assoc_expand_once an associative key in the expressions is taken as it is
    if not sh.state.shopts.get("assoc_expand_once"):
        return let_status(sh, argv[start:])
    sh.arith_keys_as_is = True
    try:
        return let_status(sh, argv[start:])
    finally:
        sh.arith_keys_as_is = False


@builtin("getopts")
def bi_getopts(sh: Shell, argv: list[str]) -> int:
    rest = no_options(sh, argv)
    if rest is None:
        return 2
    argv = argv[:1] + rest
    if len(argv) < 3:
        sh.write_err("getopts: usage: getopts optstring name [arg ...]\n")
        return 2
    optstring, name = argv[1], argv[2]
    params = argv[3:] if len(argv) > 3 else list(sh.state.positional)
    invalid_name = not _valid_name(name)
    silent = optstring.startswith(":")
    if silent:
        optstring = optstring[1:]
    # OPTERR=0 only keeps the messages back: the `?` reports stay those of the normal mode
    quiet = silent or sh.get_str("OPTERR") == "0"
    st = sh.state
    try:
        optind = int(sh.get_str("OPTIND") or "1")
    except ValueError:
        optind = 1
    if optind < 1:
        optind = 1
    if argv[3:] == [] and st.getopts_version != st.args_version:
        # `set --` or `shift` since the last call: no half-read bundle of
        # letters carries over (OPTIND itself stays, as in bash)
        st.getopts_version = st.args_version
        st.getopts_pos = 0

    def finish(opt: str, status: int, optarg: str | None, new_ind: int, bound: bool = False) -> int:
        sh.set_var("OPTIND", str(new_ind))
        st.getopts_pos = _pos
        if invalid_name:
            sh.builtin_error("getopts", f"`{name}': not a valid identifier")
            status = 1
        else:
            try:
                sh.set_var(name, opt)
            except AssignError as e:  # a readonly NAME: bash's EX_MISCERROR
                assign_failed(sh, "getopts", e)
                status = 2
        _set_optarg(sh, optarg, bound)
        return status

    _pos = st.getopts_pos
    if optind > len(params):
        _pos = 0
        return _end(sh, name, min(optind, len(params) + 1))
    arg = params[optind - 1]
    if _pos == 0:
        if arg == "--":
            return _end(sh, name, optind + 1)
        if not arg.startswith("-") or arg == "-":
            return _end(sh, name, optind)
        _pos = 1
    ch = arg[_pos]
    _pos += 1
    next_ind = optind
    if _pos >= len(arg):
        _pos = 0
        next_ind = optind + 1
    idx = optstring.find(ch)
    if idx < 0 or ch == ":":
        if not silent:
            if not quiet:
                sh.write_err(f"{st.arg0}: illegal option -- {ch}\n")
            return finish("?", 0, None, next_ind)
        return finish("?", 0, ch, next_ind)
    if idx + 1 < len(optstring) and optstring[idx + 1] == ":":
        if _pos:
            optarg = arg[_pos:]
            _pos = 0
            return finish(ch, 0, optarg, optind + 1)
        if next_ind > len(params):
            if not silent:
                if not quiet:
                    sh.write_err(f"{st.arg0}: option requires an argument -- {ch}\n")
                return finish("?", 0, None, next_ind)
            return finish(":", 0, ch, next_ind)
        return finish(ch, 0, params[next_ind - 1], next_ind + 1)
    return finish(ch, 0, None, next_ind, bound=True)  # (bash binds OPTARG to no value)


def _end(sh: Shell, name: str, optind: int) -> int:
    sh.state.getopts_pos = 0
    sh.set_var("OPTIND", str(optind))
    _set_optarg(sh, None)
    if not _valid_name(name):  # bash checks the name at the end of the options too
        sh.builtin_error("getopts", f"`{name}': not a valid identifier")
    else:
        try:
            sh.set_var(name, "?")
        except AssignError as e:  # (a readonly NAME: reported, status 1, and the end under set -e)
            assign_failed(sh, "getopts", e)
    return 1


def _set_optarg(sh: Shell, value: str | None, bound: bool = False) -> None:
    """Set or unset OPTARG. A readonly OPTARG: bash reports the assignment and goes on. Unsetting
    is bash's unbind_variable_noref: a readonly OPTARG goes too, and a nameref OPTARG is unset
    itself, not the variable it names. `bound` (an option that takes no argument): bash binds
    OPTARG to a NULL value, so it is set (through a nameref, checked as any assignment) but has
    no value: `declare -p` shows it, ${OPTARG-unset} is `unset`."""
    try:
        if value is not None:
            sh.set_var("OPTARG", value)
        elif not bound:
            sh.va.unset_var("OPTARG", nameref=True, force=True)
        else:
            sh.set_var("OPTARG", "")
            target, sub = sh.va.resolve_name("OPTARG")
            var = sh.state.vars.find(target) if sub is None else None
            if var is not None and var.value == "":
                var.value = None
    except AssignError as e:
        if value is not None or bound:
            sh.error(e.message)
