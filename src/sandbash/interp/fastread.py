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

from collections.abc import Callable, Sequence

from ..expand.arith import ArithError
from ..expand.env import ExpansionError
from ..expand.segments import CHARGE_FROM
from ..expand.stringfn import string_fn
from ..limits import LimitExceeded, LimitKind, MemoryHold
from ..posix.readfields import Splitter, most_fields, read_splitter, split_read_fields
from ..shvars.arrays import IndexedArray
from ..shvars.vars import ARRAY, EXPORT, NOASSIGN
from ..syntax import ast as A
from ..vfs.errors import strerror
from .builtin_table import loaded
from .executor import assign_failed, builtin_failed
from .fastbuiltins import Literal, _redirected, plain_builtin, run_undone
from .state import ONE_STATUS
from .variables import BINDING_READERS, NOT_PLAIN, AssignError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..shvars.vars import Scope, VarStore
    from .builtin_table import Builtin
    from .compiler import Code, Compiler
    from .executor import Executor
    from .redirects import Undo
    from .shell import Shell

# (the builtin, its argv) -> status: what plain_builtin calls in place of _redirected
Redirected = Callable[["Builtin", list[str]], int]
# builtins/io.read_line: (shell, argv, the binding's IFS text, -r, names, each plain, -a's array,
# -d's delimiter byte, -u's descriptor, the record's first line when read already[, -n/-N])
ReadLine = Callable[..., int]
# builtins/io._assign_read: (shell, the record's text, its escaped positions, IFS, the status, -a's
# array, the names, each plain, the first name's reference) -> the status
AssignRead = Callable[
    ["Shell", str, list[int], str, int, "str | None", list[str], "list[bool] | None", None], int
]


# `[IFS=TEXT] read [-r] [-a ARRAY] [-d DELIM] [-u FD] [NAME...]`: (-r given, the names: plain
# identifiers, none of them IFS; the text of a temporary `IFS=TEXT` binding, None: no binding; -a's
# array, a plain identifier other than IFS, with no names then; the delimiter as bytes, b"\n"
# without -d; the descriptor read, 0 without -u; -n/-N's count and whether -N was given, None
# without them). A tuple: typing's NamedTuple is no start-up import.
ReadShape = tuple[bool, list[str], "str | None", "str | None", bytes, int, "Chars | None"]
# -n/-N: (the count of characters, -N given: the delimiter ignored and no splitting)
Chars = tuple[int, bool]
# what _read_options gives: (-r given, -a's array, the names, the delimiter, the descriptor, -n/-N)
ReadOptions = tuple[bool, "str | None", list[str], bytes, int, "Chars | None"]


def _read_options(words: list[str]) -> ReadOptions | None:
    """(-r given, -a's array, the names, -d's delimiter, -u's descriptor, -n/-N's count and -N) of
    read's words after `read`, as the builtin's getopt reads them: clusters of r, s, e, a, d, u,
    p, i, n and N (`-ra f`, `-r -a f`, `-a f -r`, `-rd ';'`, `-d '' -r`, `-u3`, `-rsp 'x: '`,
    `-rn1`: all but r, s and e take the rest of their word or the next one), the last of each
    winning (-n and -N share one count; -N once given stays), `--` ending them; -s, -e, -p and
    -i change nothing where the input is no terminal, which it never is here. The delimiter is -d's first character as
    the builtin encodes it (b"\\0" for `-d ''`), only an ASCII one; the descriptor only decimal
    digits. None for any other option or value (the builtin parses and reports those)."""
    raw = False
    array: str | None = None
    delim = b"\n"
    fd = 0
    count = 0
    exact = False
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
            if c == "s" or c == "e":
                continue  # (no terminal to keep from echoing or to edit on: the builtin ignores them)
            if c not in ("a", "d", "u", "p", "i", "n", "N"):
                return None
            value = word[j + 1 :]
            if not value:
                if k == len(words):
                    return None  # (the builtin's 'option requires an argument')
                value = words[k]
                k += 1
            if c == "a":
                array = value
            elif c == "p" or c == "i":
                pass  # (a prompt or an editing text: shown on a terminal only, never here)
            elif c == "n" or c == "N":
                if not (value.isascii() and value.isdigit() and len(value) < 10 and int(value)):
                    return None  # (a sign, 0, a bad or huge count: the builtin's reading of it)
                count = int(value)
                exact = exact or c == "N"
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
    return raw, array, words[k:], delim, fd, (count, exact) if count else None


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
    raw, array, names, delim, fd, chars = options
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
    return raw, [] if array is not None else names, bound, array, delim, fd, chars


def read_code(
    comp: Compiler, cmd: A.SimpleCommand, argv_fn: Callable[[], list[str]], slow: Code, literal: Literal
) -> Code | None:
    """The command `[IFS=TEXT] read [-r] [-a ARRAY] [-d DELIM] [-u FD] [NAME...]` with no
    redirection (_ifs_runner's shapes) as one step: plain_builtin's work around the builtin's,
    in one frame (a `while read` loop runs it once a line). The usual record (one whole ASCII
    line ending in the delimiter, with no NUL, no backslash without -r, within
    max_string_length: what builtins/io._read_record takes at once) is read, split and stored
    here; any other (continued, escaped, past ASCII, at end of input) goes on in the builtin's
    read_line from the line read, and an unreadable descriptor to it too. Whatever is not the
    plain case (the general run mode, a function named read or the builtin disabled, its first
    run, which imports it, a binding _ifs_runner pushes, more words than max_arguments) takes
    plain_builtin's step, which does the same as before this one existed. None: another shape."""
    ex = comp.ev.ex
    shape = _read_shape(cmd, literal)
    if cmd.redirs or shape is None:
        return None
    compiled = _ifs_runner(ex, cmd, shape)
    general = plain_builtin(comp, cmd, "read", argv_fn, slow, literal, compiled)
    raw, names, bound, array, delim, fd, chars = shape
    st = ex.state
    mode = st.run_mode
    sh = ex.sh
    expander = ex.expander
    errexit_check = comp.ev.errexit_check
    store = st.vars
    store_fields = ex.va.store_fields
    plain = [n not in NOT_PLAIN for n in names]
    count = len(names)
    targets = _targets(names, array)  # (what is stored into: the names, REPLY or the array)
    target_plain = [n not in NOT_PLAIN for n in targets]
    stored = len(targets)
    store_field = ex.va.store_field
    # (one plain name or REPLY: store_field's way first, then store_fields')
    one = targets[0] if array is None and stored == 1 and target_plain[0] else ""
    plain_array = array is not None and array not in NOASSIGN  # (_read_array's test of the name)
    split = _splitter(bound, count, array)
    # (no word expands: the shape's words are literal text, none an array reference)
    words = [t for t in (literal(w) for w in cmd.words) if t is not None]
    last = words[-1]
    line_no = cmd.line
    # the builtin's entries, taken at the first run that finds it imported (a builtin's module,
    # once imported, stays: builtin_table.BUILTINS)
    read_line: ReadLine | None = None
    assign_read: AssignRead | None = None

    def read_cmd() -> int:
        nonlocal read_line, assign_read
        if not mode.plain or "read" in st.functions or "read" in st.disabled_builtins:
            return slow()
        if read_line is None or assign_read is None:
            builtin = loaded("read")
            read_line = getattr(builtin, "read_line", None)
            assign_read = getattr(builtin, "assign_read", None)
            if read_line is None or assign_read is None:
                return general()
        rt = sh.rt
        if len(words) > rt.limits.max_arguments:
            return general()
        if bound is not None:
            # (_must_bind inline: IFS; the array, while the names' test is store_fields', as it
            # stores them)
            scopes = store.scopes
            var = scopes[0].get("IFS") if len(scopes) == 1 else store.find("IFS")
            if var is not None and var.attrs & ~EXPORT:
                return general()  # (the binding pushed: _ifs_runner)
            if array is not None:
                var = scopes[0].get(array) if len(scopes) == 1 else store.find(array)
                if var is not None and var.attrs & BINDING_READERS:
                    return general()
        # (builtin_cmd's bookkeeping: Compiler.simple()'s prologue, Budget.command inline)
        st.line = line_no
        if not st.in_trap:
            sh.current_command = cmd
        budget = rt.budget
        budget.commands += 1
        if budget.commands >= budget.command_stop:
            budget.command_slow()
        ex.last_cmdsub_status = None
        expander._arg_bytes = 0  # (Expander.begin_argv inline: no word is expanded)
        try:
            try:
                stream = st.fds.get(fd)
                if stream is None or not stream.readable:
                    status = read_line(sh, list(words), bound, raw, names, plain, array, delim, fd, None)
                elif chars is not None:  # (-n/-N: the builtin's reader of characters)
                    if bound is not None and array is None and _must_bind(store, targets):
                        temp = _push_binding(ex, cmd.assigns)  # (as for a record below)
                        try:
                            status = read_line(
                                sh, list(words), bound, raw, names, plain, array, delim, fd, None, chars
                            )
                        finally:
                            _pop_binding(store, temp)
                    else:
                        status = read_line(
                            sh, list(words), bound, raw, names, plain, array, delim, fd, None, chars
                        )
                else:
                    limit = rt.limits.max_string_length
                    try:
                        line = stream.readline(delim, limit)
                    except OSError as e:
                        status = read_failed(sh, fd, e)
                    else:
                        if (
                            line[-1:] == delim
                            and line.isascii()
                            and 0 not in line  # (bytes as ints: see builtins/io._read_record)
                            and (raw or 0x5C not in line)
                            and len(line) + 16 <= limit  # (_read_record's charge of a line)
                        ):
                            budget.work += 1  # (a line read, as _read_record charges it)
                            if budget.work >= budget.work_stop:
                                budget.work_slow()
                            text = line[:-1].decode("ascii")
                            if array is None:  # (_assign_read's way for the names or REPLY, inline)
                                if split is not None:  # (`IFS=, read -r a b c`: its splitter)
                                    fields = split(text, count)
                                elif count:
                                    ifs = sh.ifs() if bound is None else bound
                                    if count == 1 and (not ifs or ifs == " \t\n"):
                                        # (`read -r line`, `IFS= read -r line`: split_read_fields'
                                        # answer for one name, a call less a line: the line
                                        # without IFS white space at both ends, or as read)
                                        whole = text.strip(ifs) if ifs else text
                                        fields = [whole] if whole else []
                                    else:
                                        fields = split_read_fields(text, [], ifs, count)
                                else:
                                    fields = [text]  # (REPLY: the line as read)
                                try:
                                    if not (one and store_field(one, fields[0] if fields else "")):
                                        k = store_fields(targets, target_plain, fields, bound is not None)
                                        if k < stored:
                                            _store_bound(ex, cmd.assigns, targets[k:], fields[k:])
                                    status = 0
                                except AssignError as e:
                                    assign_failed(sh, "read", e)
                                    status = 1
                            else:
                                ifs = sh.ifs() if bound is None else bound
                                scopes = store.scopes
                                var = scopes[0].get(array) if len(scopes) == 1 else store.find(array)
                                if (
                                    var is not None
                                    and type(var.value) is IndexedArray
                                    and not var.attrs & ~(ARRAY | EXPORT)
                                    and plain_array
                                ):
                                    # (a plain indexed array: _read_array's store, without its
                                    # checks of what else the name may be)
                                    try:
                                        store_read_array(sh, array, text, (), ifs, split)
                                        status = 0
                                    except AssignError as e:
                                        assign_failed(sh, "read", e)
                                        status = 1
                                else:
                                    status = assign_read(sh, text, [], ifs, 0, array, names, plain, None)
                        elif bound is not None and array is None and _must_bind(store, targets):
                            # (the record goes on in the builtin, which stores by set_var: the
                            # binding pushed around it, as _ifs_runner's general way pushes it)
                            temp = _push_binding(ex, cmd.assigns)
                            try:
                                status = read_line(
                                    sh, list(words), bound, raw, names, plain, array, delim, fd, line
                                )
                            finally:
                                _pop_binding(store, temp)
                        else:
                            status = read_line(
                                sh, list(words), bound, raw, names, plain, array, delim, fd, line
                            )
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


def _store_bound(ex: Executor, assigns: tuple[A.Assign, ...], names: list[str], fields: list[str]) -> None:
    """The names store_fields left (from the first that is no plain variable: a reference may
    lead to IFS) stored by set_var with read's `IFS=TEXT` binding pushed, as exec_simple binds it
    around the builtin (`declare -n r=IFS; IFS=, read -r r` leaves IFS as it was)."""
    set_var = ex.va.set_var
    temp = _push_binding(ex, assigns)
    try:
        have = len(fields)
        for k, name in enumerate(names):
            set_var(name, fields[k] if k < have else "")
    finally:
        _pop_binding(ex.state.vars, temp)


def _push_binding(ex: Executor, assigns: tuple[A.Assign, ...]) -> Scope:
    """read's `IFS=TEXT` binding made (a literal value; IFS without attributes: nothing to refuse)
    and pushed, as exec_simple pushes it around the builtin."""
    temp = ex.temp_scope(assigns, None, "read")
    ex.state.vars.push(temp)
    return temp


def _pop_binding(store: VarStore, temp: Scope) -> None:
    """A temporary binding pushed here popped (a scope pushed above it meanwhile and left: taken
    out where it is)."""
    if store.scopes and store.scopes[-1] is temp:
        store.pop()
    elif temp in store.scopes:
        store.scopes.remove(temp)


def read_failed(sh: Shell, fd: int, e: OSError) -> int:
    """The descriptor read failed (a directory, ...): bash's message, status 1 (the builtin's, and
    the compiled read's)."""
    sh.builtin_error("read", f"read error: {fd}: {strerror(e.errno or 0)}")
    return 1


def _ifs_runner(ex: Executor, cmd: A.SimpleCommand, shape: ReadShape) -> Redirected:
    """The runner of `[IFS=TEXT] read [-r] [-a ARRAY] [NAME...]` with no redirection (`while IFS=
    read -r line`, `IFS=, read -r a b c` or `read -ra f` in a loop reading a file): the builtin's
    read_line with the options read here once, reading its descriptor 0 with TEXT as its IFS,
    without the temporary binding pushed and popped around it. Nothing else can see the binding
    while the builtin runs: traps and xtrace take the general path (plain_builtin), the names are
    not IFS, and with a binding, a name that is a reference when it runs (it could lead to IFS) or
    an IFS with attributes (readonly: the binding fails) takes the binding's way (`shape`:
    _read_shape's)."""
    raw, names, bound, array, delim, fd, chars = shape
    assigns = cmd.assigns
    store = ex.state.vars
    plain = [n not in NOT_PLAIN for n in names]
    targets = _targets(names, array)
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
                return read_line(sh, argv, bound, raw, names, plain, array, delim, fd, None, chars)
            except Exception as e:
                return builtin_failed(sh, "read", e)
        except AssignError as e:  # (one builtin_failed gives back: run_undone reports it)
            sh.error(e.message)
            return 1

    return read_compiled


def _splitter(bound: str | None, count: int, array: str | None) -> Splitter | None:
    """The splitter of a read's literal `IFS=TEXT` binding (`IFS=, read -r a b c`, `IFS=, read
    -ra f`), chosen once; None without a binding (IFS is read as the line is), for REPLY (the
    line as read) and for one name under an empty or the default IFS (read_cmd's inline way)."""
    if bound is None or (array is None and (not count or (count == 1 and bound in ("", " \t\n")))):
        return None
    return read_splitter(bound)


def _targets(names: list[str], array: str | None) -> list[str]:
    """The variables read stores into: -a's array, the names, or REPLY."""
    if array is not None:
        return [array]
    return names or ["REPLY"]


def _must_bind(store: VarStore, targets: list[str]) -> bool:
    """`IFS=TEXT read ...` must push its binding (exec_simple's way): IFS has attributes (readonly:
    the binding fails; a reference, a case or integer IFS), or a variable read into is a
    reference now (it could lead to IFS) or an integer (its value is evaluated: `IFS` in it
    reads the binding)."""
    scopes = store.scopes
    # (outside functions and bindings every name is a global: VarStore.find without its calls)
    find = scopes[0].get if len(scopes) == 1 else store.find
    var = find("IFS")
    if var is not None and var.attrs & ~EXPORT:
        return True
    for n in targets:  # (a loop, not any(): no generator made for each line)
        v = find(n)
        if v is not None and v.attrs & BINDING_READERS:
            return True
    return False


def herestring_read(comp: Compiler, cmd: A.SimpleCommand, slow: Code, literal: Literal) -> Code | None:
    """The command `[IFS=TEXT] read [-r] [-a ARRAY] [NAME...] <<< WORD` (words `literal` finds
    literal text) as one step: plain_builtin's work around the builtin's and the here-string's
    line split and stored, in one frame (`IFS=, read -r a b <<< "$line"` runs once a line of a
    loop). Whatever is not the plain case (the general run mode, a function named read or the
    builtin disabled or not imported yet, more words than max_arguments) takes `slow`; a line
    the builtin must read itself, an IFS or array with attributes, the descriptor limit: the
    redirection made as _dispatch_run makes it, around the builtin. None: another shape."""
    redirs = cmd.redirs
    shape = _read_shape(cmd, literal)
    if len(redirs) != 1 or shape is None:
        return None
    r = redirs[0]
    if r.op != "<<<" or r.fd not in (None, 0) or r.fd_var is not None or not isinstance(r.target, A.Word):
        return None
    raw, names, bound, array, delim, fd, chars = shape
    if delim != b"\n" or fd != 0 or chars is not None:
        return None  # (-d, -u, -n, -N: the builtin reads them, inside the redirection)
    ex = comp.ev.ex
    assigns = cmd.assigns
    store = ex.state.vars
    find = store.find
    sh = ex.sh
    st = ex.state
    mode = st.run_mode
    rd = ex.rd
    procs = ex.pr.procsubs
    expander = ex.expander
    errexit_check = comp.ev.errexit_check
    text_of = string_fn(expander, r.target)  # (what the redirection's expander.string gives)
    store_fields = ex.va.store_fields
    # (a name not special is stored by store_fields as store_plain stores it while it is a plain
    # variable, decided once; set_var for the rest)
    targets = _targets(names, array)  # (the names or REPLY, without -a)
    plain = [n not in NOT_PLAIN for n in targets]
    count = len(names)
    stored = len(targets)
    split = _splitter(bound, count, array)
    # (no word expands: the shape's words are literal text, none an array reference)
    words = [t for t in (literal(w) for w in cmd.words) if t is not None]
    last = words[-1]
    line_no = cmd.line

    def read_herestring() -> int:
        if not mode.plain or "read" in st.functions or "read" in st.disabled_builtins:
            return slow()
        builtin = loaded("read")
        rt = sh.rt
        if builtin is None or len(words) > rt.limits.max_arguments:
            return slow()  # (its first run imports it; a large argv is charged there)
        # (builtin_cmd's bookkeeping: Compiler.simple()'s prologue, Budget.command inline)
        st.line = line_no
        if not st.in_trap:
            sh.current_command = cmd
        budget = rt.budget
        budget.commands += 1
        if budget.commands >= budget.command_stop:
            budget.command_slow()
        mark = len(procs) if procs else 0
        ex.last_cmdsub_status = None
        expander._arg_bytes = 0  # (Expander.begin_argv inline: no word is expanded)
        try:
            scopes = store.scopes
            var = None
            if bound is not None:
                var = scopes[0].get("IFS") if len(scopes) == 1 else find("IFS")
            fds = st.fds
            limit = rt.limits.max_file_descriptors
            if (
                (var is not None and var.attrs & ~EXPORT)
                or limit < 1
                or (0 not in fds and len(fds) >= limit)
                or st.ulimits
            ):
                # (readonly, a reference, a case or integer IFS; the descriptor limit or ulimit
                # -n, as the redirection reports it: the binding made as exec_simple makes it,
                # then the redirection and the builtin inside it)
                if bound is not None:
                    temp = ex.temp_scope(assigns, None, "read")
                    status = ex._dispatch_run(list(words), temp, redirs, None, builtin, False)
                else:
                    status = _redirected(ex, "read", redirs, builtin, list(words))
            else:
                try:
                    text = text_of()
                except (ExpansionError, ArithError) as e:
                    status = rd.expansion_failed(e)
                else:
                    nl = text.find("\n")
                    line = text if nl < 0 else text[:nl]
                    plain_line = (
                        line.isascii()
                        and (raw or "\\" not in line)
                        and "\0" not in line
                        and len(line) + 17 <= rt.limits.max_string_length  # (_read_record's charge)
                    )
                    if plain_line and array is not None:
                        # (an array that is not a plain indexed array or unset, or a variable of
                        # another kind: the builtin's checks and messages, readonly, ...)
                        var = scopes[0].get(array) if len(scopes) == 1 else find(array)
                        plain_line = var is None or not (
                            var.attrs & ~(ARRAY | EXPORT)
                            or (var.value is not None and type(var.value) not in (IndexedArray, str))
                        )
                    if not plain_line:
                        binding = assigns if bound is not None else None
                        status = _bound(ex, r, text, builtin, list(words), binding)
                    else:
                        budget.checkpoint()  # (as the builtin, a line read)
                        try:
                            if array is not None:
                                ifs = sh.ifs() if bound is None else bound
                                store_read_array(sh, array, line, (), ifs, split)
                            else:
                                if split is not None:
                                    fields = split(line, count)
                                elif count:
                                    ifs = sh.ifs() if bound is None else bound
                                    fields = split_read_fields(line, [], ifs, count)
                                else:
                                    fields = [line]  # (REPLY: the line as read)
                                k = store_fields(targets, plain, fields, bound is not None)
                                if k < stored:  # (a reference or an integer under the binding)
                                    _store_bound(ex, assigns, targets[k:], fields[k:])
                            status = 0  # (the text ends with the here-string's newline: no end of file)
                        except AssignError as e:
                            assign_failed(sh, "read", e)
                            status = 1
                        except Exception as e:  # (what _run_builtin makes of the builtin's own)
                            status = builtin_failed(sh, "read", e)
        finally:
            if procs and len(procs) > mark:
                ex.pr.finish_procsubs(mark)
        st.last_arg = last
        st.last_status = status
        st.pipestatus = ONE_STATUS[status] if 0 <= status < 256 else [status]
        if status:
            errexit_check(status)
        return status

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
    temp = _push_binding(ex, assigns)
    try:
        return run_undone(ex, "read", builtin, argv, undo)
    finally:
        _pop_binding(ex.state.vars, temp)


def store_read_array(
    sh: Shell, array: str, text: str, escaped: Sequence[int], ifs: str, split: Splitter | None = None
) -> None:
    """read -a ARRAY's store (the builtin's, builtins/io._read_array, and the compiled here-string's):
    the line's fields, each split off, made the array's elements from 0. Split no further than the
    array may hold (a 9 MB line of 4.5 M words held 700 MB of fields and items under a 96 MB
    budget). The fields are charged before they are split (an upper bound of their count, each a
    str and its place in the list), then only their places once the array, which counts the strs,
    is charged. `split`: `ifs`'s splitter, chosen when the read was compiled (nothing is escaped
    then), or None."""
    limit = sh.rt.limits.max_array_elements
    if len(text) < CHARGE_FROM:
        # (a short line's fields are not held while they are made, as no short value is
        # charged one by one: CHARGE_FROM; the array charges them as it stores them)
        fields = _fields(text, escaped, ifs, limit, split)
        va = sh.va
        if not va.push_values(array, fields, False):  # (set_values' first way, its frame saved)
            va.set_values(array, fields, by_builtin=True)
        return
    with MemoryHold(sh.rt.budget) as held:
        held.charge(most_fields(text, ifs, limit + 1) * READ_FIELD_BYTES + len(text))
        fields = _fields(text, escaped, ifs, limit, split)
        held.set(8 * len(fields))
        sh.va.set_values(array, fields, by_builtin=True)


def _fields(text: str, escaped: Sequence[int], ifs: str, limit: int, split: Splitter | None) -> list[str]:
    """The fields of read -a's line, no more than `limit` (LimitExceeded past it)."""
    if not text:
        return []
    fields = split(text, limit + 1) if split is not None else split_read_fields(text, escaped, ifs, limit + 1)
    if len(fields) > limit:
        raise LimitExceeded(LimitKind.MAX_ARRAY_ELEMENTS, limit)
    return fields


# one field read -a splits off, beyond its text: a str's header and its place in the list
READ_FIELD_BYTES = 64
