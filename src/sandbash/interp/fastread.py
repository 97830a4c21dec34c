"""The compiled `read [-r] [NAME...] <<< WORD`: a here-string read into names, as scripts split a
line they hold (`read -r user id rest <<< "$line"` in a loop). The builtin reads the line from a
stream that the redirection made from the expanded word and bound to descriptor 0, after parsing
its options and checking each name; here the line is taken from the expanded text itself, the
options and names were read when the command was compiled, and the fields go to the names as the
builtin assigns them (posix/readfields.split_read_fields, Variables.set_var).

Only the shapes whose answer is the text's first line as it is: `-r` or no option, names that are
plain identifiers (no subscript), written as literal words, and one here-string on descriptor 0.
A line with anything the builtin reads byte by byte (a backslash without -r, a character past
ASCII: an unfinished character meets the newline; a NUL) or near max_string_length is bound as
the redirection binds it and read by the builtin itself, with the text already expanded (a word
is expanded once). Whatever plain_builtin sends to the general path (traps, set -x, a function
named read, ...) never reaches this code."""

from __future__ import annotations

from collections.abc import Callable

from ..expand.arith import ArithError
from ..expand.env import ExpansionError
from ..expand.stringfn import string_fn
from ..limits import LimitExceeded, LimitKind, MemoryHold
from ..posix.readfields import split_read_fields
from ..shvars.arrays import IndexedArray
from ..shvars.vars import ARRAY, EXPORT, NAMEREF
from ..syntax import ast as A
from .builtin_table import loaded
from .executor import assign_failed, builtin_failed
from .fastbuiltins import Literal, _redirected, plain_builtin, run_undone
from .state import ONE_STATUS
from .variables import NOT_PLAIN, AssignError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..shvars.vars import VarStore
    from .builtin_table import Builtin
    from .compiler import Code, Compiler
    from .executor import Executor
    from .redirects import Undo
    from .shell import Shell

# (the builtin, its argv) -> status: what plain_builtin calls in place of _redirected
Redirected = Callable[["Builtin", list[str]], int]
# builtins/io.read_line: (shell, argv, the binding's IFS text, -r, names, each plain, -a's array,
# -d's delimiter byte, -u's descriptor)
ReadLine = Callable[
    ["Shell", list[str], "str | None", bool, list[str], list[bool], "str | None", bytes, int], int
]


# `[IFS=TEXT] read [-r] [-a ARRAY] [-d DELIM] [-u FD] [NAME...]`: (-r given, the names: plain
# identifiers, none of them IFS; the text of a temporary `IFS=TEXT` binding, None: no binding; -a's
# array, a plain identifier other than IFS, with no names then; the delimiter as bytes, b"\n"
# without -d; the descriptor read, 0 without -u). A tuple: typing's NamedTuple is no start-up import.
ReadShape = tuple[bool, list[str], "str | None", "str | None", bytes, int]
# what _read_options gives: (-r given, -a's array, the names, the delimiter, the descriptor)
ReadOptions = tuple[bool, "str | None", list[str], bytes, int]


def _read_options(words: list[str]) -> ReadOptions | None:
    """(-r given, -a's array, the names, -d's delimiter, -u's descriptor) of read's words after
    `read`, as the builtin's getopt reads them: clusters of r, a, d and u (`-ra f`, `-r -a f`,
    `-a f -r`, `-rd ';'`, `-d '' -r`, `-u3`: a, d and u take the rest of their word or the next
    one), the last of each winning, `--` ending them. The delimiter is -d's first character as
    the builtin encodes it (b"\\0" for `-d ''`), only an ASCII one; the descriptor only decimal
    digits. None for any other option or value (the builtin parses and reports those)."""
    raw = False
    array: str | None = None
    delim = b"\n"
    fd = 0
    k = 0
    while k < len(words):
        word = words[k]
        if word[:1] != "-" or word == "-":
            break
        k += 1
        if word == "--":
            break
        for j in range(1, len(word)):
            c = word[j]
            if c == "r":
                raw = True
                continue
            if c not in ("a", "d", "u"):
                return None
            value = word[j + 1 :]
            if not value:
                if k == len(words):
                    return None  # (the builtin's 'option requires an argument')
                value = words[k]
                k += 1
            if c == "a":
                array = value
            elif c == "d":
                first = value[:1]
                if not first.isascii():
                    return None  # (a character past ASCII: the builtin's encoding of it)
                delim = first.encode() or b"\0"
            else:
                if not (value.isascii() and value.isdigit()):
                    return None  # (the builtin's 'invalid file descriptor specification')
                fd = int(value)
            break
    return raw, array, words[k:], delim, fd


def _read_shape(cmd: A.SimpleCommand, literal: Literal) -> ReadShape | None:
    """The shape of `[IFS=TEXT] read [-r] [-a ARRAY] [NAME...]` written in literal words, the names
    and the array plain identifiers other than IFS (an array and no names); None for any other
    shape (redirections are the caller's to check)."""
    texts = [literal(w) for w in cmd.words]
    if texts[0] != "read" or None in texts:
        return None
    options = _read_options([t for t in texts[1:] if t is not None])
    if options is None:
        return None
    raw, array, names, delim, fd = options
    if array is not None:
        # (with -a bash checks the first name and ignores the rest: left to the builtin)
        if names or array == "IFS":
            return None
        names = [array]
    if not all(n.isascii() and n.isidentifier() for n in names):
        return None
    assigns = cmd.assigns
    bound: str | None = None  # `IFS=TEXT read ...`: the temporary binding's text
    if assigns:
        a = assigns[0]
        if len(assigns) != 1 or a.name != "IFS" or a.sub is not None or a.append or a.array is not None:
            return None
        bound = "" if a.value is None or not a.value.parts else literal(a.value)  # (`IFS=`: no parts)
        if bound is None or "IFS" in names:
            return None
    return raw, [] if array is not None else names, bound, array, delim, fd


def read_code(
    comp: Compiler, cmd: A.SimpleCommand, argv_fn: Callable[[], list[str]], slow: Code, literal: Literal
) -> Code | None:
    """The command `[IFS=TEXT] read [-r] [-a ARRAY] [-d DELIM] [-u FD] [NAME...]` with no
    redirection (_ifs_runner's shapes) as one step: plain_builtin's work around the builtin's
    read_line, in one frame (a `while read` loop runs it once a line). Whatever is not the
    plain case (the general run mode, a function named read or the builtin disabled, its first
    run, which imports it, a binding _ifs_runner pushes, more words than max_arguments) takes
    plain_builtin's step, which does the same as before this one existed. None: another shape."""
    ex = comp.ev.ex
    shape = _read_shape(cmd, literal)
    if cmd.redirs or shape is None:
        return None
    compiled = _ifs_runner(ex, cmd, shape)
    general = plain_builtin(comp, cmd, "read", argv_fn, slow, literal, compiled)
    raw, names, bound, array, delim, fd = shape
    st = ex.state
    mode = st.run_mode
    sh = ex.sh
    begin_argv = ex.expander.begin_argv
    errexit_check = comp.ev.errexit_check
    store = st.vars
    plain = [n not in NOT_PLAIN for n in names]
    targets = names if array is None else [array]
    # (no word expands: the shape's words are literal text, none an array reference)
    words = [t for t in (literal(w) for w in cmd.words) if t is not None]
    last = words[-1]
    line = cmd.line

    def read_cmd() -> int:
        if not mode.plain or "read" in st.functions or "read" in st.disabled_builtins:
            return slow()
        builtin = loaded("read")
        read_line: ReadLine | None = getattr(builtin, "read_line", None)
        if read_line is None or len(words) > sh.rt.limits.max_arguments:
            return general()
        if bound is not None and _must_bind(store, targets):
            return general()  # (the binding pushed: _ifs_runner)
        # (builtin_cmd's bookkeeping: Compiler.simple()'s prologue, Budget.command inline)
        st.line = line
        if not st.in_trap:
            sh.current_command = cmd
        budget = sh.rt.budget
        budget.commands += 1
        if budget.commands >= budget.command_stop:
            budget.command_slow()
        ex.last_cmdsub_status = None
        begin_argv()
        try:
            try:
                status = read_line(sh, list(words), bound, raw, names, plain, array, delim, fd)
            except Exception as e:
                status = builtin_failed(sh, "read", e)
        except AssignError as e:  # (one builtin_failed gives back: run_undone reports it)
            sh.error(e.message)
            status = 1
        st.last_arg = last
        st.last_status = status
        st.pipestatus = ONE_STATUS[status] if 0 <= status < 256 else [status]
        if status:
            errexit_check(status)
        return status

    return read_cmd


def _ifs_runner(ex: Executor, cmd: A.SimpleCommand, shape: ReadShape) -> Redirected:
    """The runner of `[IFS=TEXT] read [-r] [-a ARRAY] [NAME...]` with no redirection (`while IFS=
    read -r line`, `IFS=, read -r a b c` or `read -ra f` in a loop reading a file): the builtin's
    read_line with the options read here once, reading its descriptor 0 with TEXT as its IFS,
    without the temporary binding pushed and popped around it. Nothing else can see the binding
    while the builtin runs: traps and xtrace take the general path (plain_builtin), the names are
    not IFS, and with a binding, a name that is a reference when it runs (it could lead to IFS) or
    an IFS with attributes (readonly: the binding fails) takes the binding's way (`shape`:
    _read_shape's)."""
    raw, names, bound, array, delim, fd = shape
    assigns = cmd.assigns
    store = ex.state.vars
    plain = [n not in NOT_PLAIN for n in names]
    targets = names if array is None else [array]
    sh = ex.sh

    def read_compiled(builtin: Builtin, argv: list[str]) -> int:
        # (the builtin's entry that takes the options read here: builtins/io.read_line)
        read_line: ReadLine | None = getattr(builtin, "read_line", None)
        if read_line is None:
            return run_undone(ex, "read", builtin, argv, [])
        if bound is not None and _must_bind(store, targets):
            return ex._dispatch_run(argv, ex.temp_scope(assigns, None, "read"), (), None, builtin, False)
        try:  # (run_undone and _run_builtin inline: no redirection to undo, read is no special builtin)
            try:
                return read_line(sh, argv, bound, raw, names, plain, array, delim, fd)
            except Exception as e:
                return builtin_failed(sh, "read", e)
        except AssignError as e:  # (one builtin_failed gives back: run_undone reports it)
            sh.error(e.message)
            return 1

    return read_compiled


def _must_bind(store: VarStore, targets: list[str]) -> bool:
    """`IFS=TEXT read ...` must push its binding (exec_simple's way): IFS has attributes (readonly:
    the binding fails; a reference, a case or integer IFS), or a name read into is a reference
    now (it could lead to IFS)."""
    scopes = store.scopes
    # (outside functions and bindings every name is a global: VarStore.find without its calls)
    find = scopes[0].get if len(scopes) == 1 else store.find
    var = find("IFS")
    if var is not None and var.attrs & ~EXPORT:
        return True
    for n in targets:  # (a loop, not any(): no generator made for each line)
        v = find(n)
        if v is not None and v.attrs & NAMEREF:
            return True
    return False


def herestring_read(ex: Executor, cmd: A.SimpleCommand, literal: Literal) -> Redirected | None:
    """The runner of `read [-r] [NAME...] <<< WORD` (words `literal` finds literal text): None for
    any other shape."""
    redirs = cmd.redirs
    shape = _read_shape(cmd, literal)
    if len(redirs) != 1 or shape is None:
        return None
    r = redirs[0]
    if r.op != "<<<" or r.fd not in (None, 0) or r.fd_var is not None or not isinstance(r.target, A.Word):
        return None
    raw, names, bound, array, delim, fd = shape
    if delim != b"\n" or fd != 0:
        return None  # (-d, -u: the builtin reads them, inside the redirection)
    assigns = cmd.assigns
    find = ex.state.vars.find
    sh = ex.sh
    st = ex.state
    rd = ex.rd
    text_of = string_fn(ex.expander, r.target)  # (what the redirection's expander.string gives)
    set_var = ex.va.set_var
    store = ex.va.store_fields
    # (a name not special is stored by store_fields as store_plain stores it while it is a plain
    # variable, decided once; set_var for the rest)
    plain = [n not in NOT_PLAIN for n in names]
    count = len(names)

    def read_herestring(builtin: Builtin, argv: list[str]) -> int:
        rt = sh.rt
        if bound is not None:
            var = find("IFS")
            if var is not None and var.attrs & ~EXPORT:
                # (readonly, a reference, a case or integer IFS: the binding made as exec_simple
                # makes it, then the redirection and the builtin inside it)
                return ex._dispatch_run(
                    argv, ex.temp_scope(assigns, None, "read"), redirs, None, builtin, False
                )
        fds = st.fds
        limit = rt.limits.max_file_descriptors
        if limit < 1 or (0 not in fds and len(fds) >= limit):
            if bound is not None:  # (the limit, as the binding reports it)
                return ex._dispatch_run(
                    argv, ex.temp_scope(assigns, None, "read"), redirs, None, builtin, False
                )
            return _redirected(ex, "read", redirs, builtin, argv)
        try:
            text = text_of()
        except (ExpansionError, ArithError) as e:
            return rd.expansion_failed(e)
        nl = text.find("\n")
        line = text if nl < 0 else text[:nl]
        if (
            not line.isascii()
            or (not raw and "\\" in line)
            or "\0" in line
            or len(line) + 17 > rt.limits.max_string_length  # (_read_record's charge of a line)
        ):
            return _bound(ex, r, text, builtin, argv, assigns if bound is not None else None)
        if array is not None:
            # (an array that is not a plain indexed array or unset, or a variable of another
            # kind: the builtin's checks and messages, `not an indexed array`, readonly, ...)
            var = find(array)
            if var is not None and (
                var.attrs & ~(ARRAY | EXPORT)
                or (var.value is not None and type(var.value) not in (IndexedArray, str))
            ):
                return _bound(ex, r, text, builtin, argv, assigns if bound is not None else None)
        rt.budget.checkpoint()  # (as the builtin, a line read)
        try:
            if array is not None:
                store_read_array(sh, array, line, [], sh.ifs() if bound is None else bound)
            elif not count:
                set_var("REPLY", line)
            else:
                fields = split_read_fields(line, [], sh.ifs() if bound is None else bound, count)
                store(names, plain, fields)
        except AssignError as e:
            assign_failed(sh, "read", e)
            return 1
        except Exception as e:  # (what _run_builtin makes of the builtin's own)
            return builtin_failed(sh, "read", e)
        return 0  # (the text always ends with the here-string's newline: never end of file)

    return read_herestring


def _bound(
    ex: Executor,
    r: A.Redir,
    text: str,
    builtin: Builtin,
    argv: list[str],
    assigns: tuple[A.Assign, ...] | None,
) -> int:
    """The builtin reading the here-string of `text` (expanded already) bound as the redirection
    binds it; `assigns`: the temporary binding of IFS around it, as _dispatch_run pushes it."""
    rd = ex.rd
    undo: Undo = []
    rd.command = "read"
    try:
        rd.here_string(r, text, undo)  # (descriptor 0, no {var}: nothing to refuse or undo)
    finally:
        rd.command = ""
    if assigns is None:
        return run_undone(ex, "read", builtin, argv, undo)
    store = ex.state.vars
    temp = ex.temp_scope(assigns, None, "read")  # (a literal value: nothing to expand or refuse)
    store.push(temp)
    try:
        return run_undone(ex, "read", builtin, argv, undo)
    finally:
        if store.scopes and store.scopes[-1] is temp:
            store.pop()
        elif temp in store.scopes:
            store.scopes.remove(temp)


def store_read_array(sh: Shell, array: str, text: str, escaped: list[int], ifs: str) -> None:
    """read -a ARRAY's store (the builtin's, builtins/io._read_array, and the compiled here-string's):
    the line's fields, each split off, made the array's elements from 0. Split no further than the
    array may hold (a 9 MB line of 4.5 M words held 700 MB of fields and items under a 96 MB
    budget); the items are charged while stored."""
    limit = sh.rt.limits.max_array_elements
    fields = split_read_fields(text, escaped, ifs, limit + 1) if text else []
    if len(fields) > limit:
        raise LimitExceeded(LimitKind.MAX_ARRAY_ELEMENTS, limit)
    if sh.va.push_values(array, fields, False):
        return  # (a plain indexed array: the fields made its elements at once, charged before stored)
    with MemoryHold(sh.rt.budget) as held:
        held.charge(len(fields) * 96)
        sh.set_array(array, [(None, f, False) for f in fields])
