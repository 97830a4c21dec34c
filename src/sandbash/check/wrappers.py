"""Models for commands that run other commands or carry their own language, and for builtins.

Wrappers (`xargs`, `find -exec`, `env`, `nice`, `nohup`, `timeout`, `time`, `command`, `builtin`,
`exec`) yield the argv they will run; `bash -c`, `eval`, `trap`, `alias`, `mapfile -C`, awk
`system()`/pipes and sed `e` yield shell text, which the check parses and checks in turn.

`MODELS` is the whole catalogue (every `Effects` member has a model: a test checks it), and `model()`
finds a command's model through its record.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..commands.record import Effects
from ..commands.registry import BUILTIN_TABLE, CommandTable
from ..vfs.bindir import SHELL_NAMES
from .models import FOUND, Arg, Call, Facts, Model, values, words
from .models import MODELS as FILE_MODELS
from .words import glob_dir

NOFS = ""  # an alternative that touches no file (e.g. rg reading stdin)


def _after_options(c: Call) -> tuple[dict[str, object], list[Arg]] | None:
    """Options up to the first operand (stop_at_operand commands), with the remaining argv kept
    intact (dynamic words included)."""
    spec = c.spec
    if spec is None:
        return None
    longs = {o.long: o for o in spec.opts if o.long}
    shorts = {o.short: o for o in spec.opts if o.short}
    opts: dict[str, object] = {}
    args = c.args
    i = 0
    while i < len(args):
        a = args[i]
        if a is None:
            return None
        if a == "--":
            return opts, args[i + 1 :]
        if a.startswith("--") and len(a) > 2:
            name, eq, value = a[2:].partition("=")
            matches = [k for k in longs if k.startswith(name)]
            exact = name if name in longs else (matches[0] if len(matches) == 1 else None)
            if exact is None:
                return opts, []  # usage error: nothing runs
            opt = longs[exact]
            if opt.arg == "required" and not eq:
                i += 1
                nxt = args[i] if i < len(args) else ""
                if nxt is None:
                    return None
                value = nxt
            opts[opt.key] = value if opt.arg != "none" else True
            i += 1
            continue
        if a.startswith("-") and len(a) > 1 and not (a[1:].isdigit() and spec.numeric):
            j = 1
            while j < len(a):
                sopt = shorts.get(a[j])
                if sopt is None:
                    return opts, []
                if sopt.arg == "required":
                    value = a[j + 1 :]
                    if not value:
                        i += 1
                        nxt = args[i] if i < len(args) else ""
                        if nxt is None:
                            return None
                        value = nxt
                    opts[sopt.key] = value
                    break
                opts[sopt.key] = True
                j += 1
            i += 1
            continue
        return opts, args[i:]
    return opts, []


def _wrapper_options(c: Call) -> tuple[dict[str, object], list[Arg]] | None:
    """A wrapper's options and the command line it runs; None (and an unknown command run) where
    the options are known only at run time."""
    parsed = _after_options(c)
    if parsed is None:
        c.opaque(f"{c.name}: the command it runs is known only at run time")
        c.facts.commands.append([None])
    return parsed


def _run_rest(c: Call, skip: int = 0) -> dict[str, object] | None:
    parsed = _wrapper_options(c)
    if parsed is None:
        return None
    opts, rest = parsed
    rest = rest[skip:]
    if rest:
        c.facts.commands.append(list(rest))
    return opts


def m_env(c: Call) -> None:
    opts = _wrapper_options(c)
    if opts is None:
        return
    o, rest = opts
    if o.get("split_string"):
        rest = [*str(o["split_string"]).split(), *rest]
    while rest and rest[0] is not None and "=" in rest[0]:
        var = rest[0].partition("=")[0]
        if var in ("PATH", "BASH_ENV", "ENV"):
            c.opaque(f"env: {var}= changes how the command is found or started")
        rest = rest[1:]
    if o.get("chdir"):
        c.fx("stat", str(o["chdir"]))
        c.facts.sub_cwd_unknown = True
    if rest:
        c.facts.commands.append(list(rest))


def m_timeout(c: Call) -> None:
    _run_rest(c, skip=1)


def m_time(c: Call) -> None:
    opts = _run_rest(c)
    if opts and opts.get("output"):
        c.fx("create", str(opts["output"]))


def m_xargs(c: Call) -> None:
    parsed = _wrapper_options(c)
    if parsed is None:
        return
    opts, rest = parsed
    if opts.get("arg_file"):
        c.fx("read", str(opts["arg_file"]))
    replace = opts.get("replace") or (opts.get("replace_opt") and "{}")
    argv: list[Arg] = list(rest) or ["echo"]
    if replace:
        argv = [None if a is not None and str(replace) in a else a for a in argv]
    else:
        argv.append(None)  # the items read from input
    c.facts.commands.append(argv)


_FIND_FILE_TESTS = {"-newer", "-anewer", "-cnewer", "-samefile"}
_FIND_OUTPUTS = {"-fprint", "-fprint0", "-fls"}
_FIND_EXEC = {"-exec", "-execdir", "-ok", "-okdir"}


def m_find(c: Call) -> None:
    args = c.args
    i = 0
    while i < len(args) and args[i] in ("-H", "-L", "-P", "-O0", "-O1", "-O2", "-O3", "-D"):
        i += 1
    starts: list[Arg] = []
    while i < len(args):
        a = args[i]
        if a is not None and ((a.startswith("-") and a != "-") or a in ("(", "!")):  # as find's run
            break
        starts.append(a)
        i += 1
    roots: list[Arg] = starts or ["."]
    c.each("list", roots, recursive=True)
    # `{}` is a path found below the (single, static) start point
    found: Arg = FOUND + roots[0] if len(roots) == 1 and roots[0] is not None else None
    while i < len(args):
        a = args[i]
        i += 1
        if a is None:
            c.opaque("find: an expression word known only at run time")
            c.each("delete", roots, recursive=True)
            c.facts.commands.append([None])
            continue
        if a in _FIND_EXEC:
            argv: list[Arg] = []
            while i < len(args) and args[i] not in (";", "+"):
                w = args[i]
                argv.append(found if w == "{}" else None if w is None or "{}" in w else w)
                i += 1
            i += 1
            if argv:
                c.facts.commands.append(argv)
            if a in ("-execdir", "-okdir"):
                c.facts.sub_cwd_unknown = True
        elif a == "-delete":
            c.each("delete", roots, recursive=True)
        elif a in _FIND_FILE_TESTS and i < len(args):
            c.fx("stat", args[i])
            i += 1
        elif a in _FIND_OUTPUTS and i < len(args):
            c.fx("create", args[i])
            i += 1
        elif a == "-fprintf" and i < len(args):
            c.fx("create", args[i])
            i += 2
        elif a == "-files0-from" and i < len(args):
            c.fx("read", args[i])
            c.fx("list", None, recursive=True)
            i += 1


def m_grep(c: Call) -> None:
    p = c.parse()
    if p is None:  # run-time words, or arguments parsed otherwise than the command does
        c.fx("read", None, recursive=True)
        return
    opts, operands = p
    for f in opts.get("pat_files") or []:
        c.fx("read", str(f))
    if not opts.get("pats") and not opts.get("pat_files"):
        operands = operands[1:]
    recursive = bool(opts.get("recursive")) or opts.get("directories") == "recurse"
    if c.name == "rg":
        if operands:
            c.each("list", operands, recursive=True)
        else:
            c.fx("list", ".", NOFS, recursive=True)  # stdin when it has data, else the directory
        return
    if recursive:
        c.each("list", operands or ["."], recursive=True)
    else:
        c.each("read", operands)


def m_sed(c: Call) -> None:
    from ..commands.sed.parse import Parser, Piece, SedError

    p = c.parse()
    if p is None:  # run-time words, or arguments parsed otherwise than the command does
        c.fx("read", None)
        c.fx("write", None)
        c.facts.scripts.append(None)
        return
    opts, operands = p
    pieces: list[Piece] = []
    for key, value in opts.order:
        if key == "script":
            pieces.append(Piece(str(value), len(pieces) + 1))
        elif key == "script_file":
            c.fx("read", str(value))
            c.opaque("sed: a script read from a file is known only at run time")
    if not pieces and not opts.get("script_file"):
        if not operands:
            return
        pieces.append(Piece(operands[0], 1))
        operands = operands[1:]
    c.each("write" if "in_place" in opts else "read", operands or ["-"])
    if "in_place" in opts:
        c.each("create", operands)
    try:
        cmds = (
            Parser(pieces, bool(opts.get("extended")), posix=bool(opts.get("posix"))).parse()
            if pieces
            else []
        )
    except SedError:
        return  # sed stops before reading anything
    if opts.get("sandbox"):
        return
    for cmd in cmds:
        name = cmd.name
        fname = cmd.text.decode("utf-8", "surrogateescape") if cmd.text else ""
        if name == "e":
            c.facts.scripts.append(fname or None)
        elif name == "s" and cmd.evaluate:
            c.facts.scripts.append(None)
        if name in ("w", "W") and fname:
            c.fx("create", fname)
        elif name in ("r", "R") and fname:
            c.fx("read", fname)
        if name == "s" and cmd.wfile:
            c.fx("create", cmd.wfile)


def m_awk(c: Call) -> None:
    from ..commands.awk import cli as awk_cli
    from ..commands.awk.lexer import AwkSyntaxError, Lexer, Source
    from ..commands.awk.parser import parse

    if c.dynamic:
        c.fx("read", None)
        c.fx("create", None)
        c.facts.scripts.append(None)
        return
    try:
        o = awk_cli.parse_args([a for a in c.args if a is not None])
    except awk_cli.UsageError:
        return
    texts: list[str] = []
    for kind, value in o.order:
        if kind == "f":
            c.fx("read", value)
            c.opaque("awk: a program read from a file is known only at run time")
        else:
            texts.append(value)
    for operand in o.operands:
        name, eq, _ = operand.partition("=")
        if not (eq and name.isidentifier()):
            c.fx("read", operand)
    if not texts:
        return
    try:
        program, _ = parse(Lexer([Source("cmd. line", t) for t in texts]).tokenize())
    except (AwkSyntaxError, RecursionError):
        return
    _awk_walk(c, program, set())


def _awk_const(node: object) -> Arg:
    text = getattr(node, "value", None)
    return text if type(node).__name__ == "Str" and isinstance(text, str) else None


def _awk_walk(c: Call, node: object, seen: set[int]) -> None:
    """Every node of the awk program (reflectively, so new node types are still visited)."""
    if id(node) in seen or node is None or isinstance(node, str | int | float | bool | bytes):
        return
    seen.add(id(node))
    kind = type(node).__name__
    if kind == "Builtin" and getattr(node, "name", "") == "system":
        args = getattr(node, "args", [])
        c.facts.scripts.append(_awk_const(args[0]) if args else None)
    elif kind == "Print":
        redirect = getattr(node, "redirect", None)
        dest = getattr(node, "dest", None)
        if redirect in (">", ">>"):
            c.fx("create", _awk_const(dest))
        elif redirect in ("|", "|&"):
            c.facts.scripts.append(_awk_const(dest))
    elif kind == "Getline":
        source = getattr(node, "source", None)
        if getattr(node, "kind", "") == "file":
            c.fx("read", _awk_const(source))
        elif getattr(node, "kind", "") in ("cmd", "coproc"):
            c.facts.scripts.append(_awk_const(source))
    children: Sequence[object]
    if isinstance(node, dict):
        children = list(node.values())
    elif isinstance(node, list | tuple):
        children = node
    else:
        slots = getattr(type(node), "__slots__", ())
        names = list(getattr(node, "__dict__", {})) + [s for s in slots if isinstance(s, str)]
        children = [getattr(node, n, None) for n in names]
    for child in children:
        _awk_walk(c, child, seen)


def m_jq(c: Call) -> None:
    """jq and yq: the command's own parser names the files (jq: the program with -f, --slurpfile and
    --rawfile, the inputs; yq: the inputs, the first one written with -i)."""
    if c.dynamic:
        c.fx("read", None)
        return
    args = [a or "" for a in c.args]
    if c.name == "yq":
        from ..commands import yq

        try:
            y = yq.parse_options(args)
        except yq.UsageExit:
            return  # a usage error or --version: no file is touched
        c.each("write" if y.inplace else "read", y.files[:1])
        c.each("read", y.files[1:])
        if y.inplace:
            c.each("create", y.files[:1])
        return
    from ..commands.jq import cli

    try:
        o = cli.parse_options(args)
    except cli.UsageExit:
        return  # a usage error, --help or --version: no file is touched
    c.each("read", [path for _, kind, path in o.named if kind in ("slurpfile", "rawfile")])
    if o.from_file and o.program is not None:
        c.fx("read", o.program)
    c.each("read", o.files)


def m_curl(c: Call) -> None:
    p = c.parse()
    if p is None:  # run-time words, or arguments parsed otherwise than the command does
        c.facts.urls.append(("GET", None))
        c.fx("create", None)
        c.fx("read", None)
        return
    opts, operands = p
    urls = list(operands) + values(opts, "url")
    method = str(opts.get("request") or "")
    data = [
        k
        for k in ("data", "data_ascii", "data_raw", "data_binary", "data_urlencode", "json", "form")
        if opts.get(k) is not None
    ]
    if not method:
        method = "POST" if data else ("HEAD" if opts.get("include") is None and "-I" in c.args else "GET")
    for url in urls:
        c.facts.urls.append((method.upper(), url))
    for key, value in opts.order:
        text = str(value)
        if key in ("data", "data_ascii", "data_binary", "json", "data_urlencode") and "@" in text:
            c.fx("read", text.split("@", 1)[1])  # @FILE (or NAME@FILE for --data-urlencode)
        elif key == "form" and ("=@" in text or "=<" in text):
            c.fx("read", text.split("=", 1)[1][1:].split(";", 1)[0])
        elif key in ("output", "dump_header", "cookie_jar"):
            c.fx("create", text)
        elif key == "cookie" and "=" not in text:
            c.fx("read", text)
    if opts.get("remote_name") or opts.get("remote_name_all"):
        for url in urls:
            name = url.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
            c.fx("create", name or None)


def m_wget(c: Call) -> None:
    p = c.parse()
    if p is None:  # run-time words, or arguments parsed otherwise than the command does
        c.facts.urls.append(("GET", None))
        c.fx("create", None)
        return
    opts, operands = p
    method = str(opts.get("method") or ("POST" if opts.get("post_data") or opts.get("post_file") else "GET"))
    for url in operands:
        c.facts.urls.append((method.upper(), url))
    for key in ("post_file", "body_file"):
        if opts.get(key):
            c.fx("read", str(opts[key]))
    doc = opts.get("output_document")
    prefix = str(opts.get("directory_prefix") or ".").rstrip("/")
    if doc is not None:
        c.fx("create", str(doc))
    else:
        for url in operands:
            name = url.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1] or "index.html"
            # wget picks another name when the file exists (name.1): same directory either way
            c.fx("create", prefix + "/" + name)


def m_shell(c: Call) -> None:
    """bash/sh: `-c TEXT`, a script file, or a script on stdin."""
    args = c.args
    i = 0
    command = False
    while i < len(args):
        a = args[i]
        if a is None:
            c.facts.scripts.append(None)
            return
        if a == "--":
            i += 1
            break
        if a in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            i += 2
            continue
        if a.startswith("--") or (a[:1] in "-+" and len(a) > 1):
            if a[:1] == "-" and "c" in a[1:] and not a.startswith("--"):
                command = True
            if a[:1] == "-" and "s" in a[1:] and not a.startswith("--"):
                c.opaque(f"{c.name} -s: the script comes from standard input")
                return
            i += 1
            continue
        break
    rest = args[i:]
    if command:
        c.facts.scripts.append(rest[0] if rest else None)
        return
    if not rest:
        c.opaque(f"{c.name}: the script comes from standard input")
        return
    c.fx("exec", rest[0])
    c.opaque(f"{c.name} {rest[0]}: the commands of a script file are known only at run time")


_FILE_TESTS = words("-a -b -c -d -e -f -g -h -k -p -r -s -u -w -x -G -L -N -O -S")


def m_test(c: Call) -> None:
    args = c.args[:-1] if c.name == "[" and c.args and c.args[-1] == "]" else c.args
    # `[ -f X ]` and `[ X -nt Y ]` certainly stat; in longer expressions a test may be skipped
    certain = len(args) in (2, 3)
    for i, a in enumerate(args):
        if a == "-v" and i + 1 < len(args):
            name = args[i + 1]  # `test -v 'a[$(cmd)]'` expands the subscript
            if name is None or "[" in name:
                c.facts.dynamic_names = True
        if a in _FILE_TESTS and i + 1 < len(args):
            c.fx("stat", *((args[i + 1],) if certain else (args[i + 1], NOFS)))
        elif a in ("-nt", "-ot", "-ef") and 0 < i < len(args) - 1:
            for p in (args[i - 1], args[i + 1]):
                c.fx("stat", *((p,) if certain else (p, NOFS)))


# ------------------------------------------------------------ builtins


def m_cd(c: Call) -> None:
    c.facts.cwd_change = True
    operands = [a for a in c.args if a is None or not (a.startswith("-") and len(a) > 1)]
    if c.name == "popd":
        return
    target = operands[0] if operands else "~"
    if target is not None and (target == "-" or (target[:1] == "+" and c.name == "pushd")):
        target = None
    c.fx("stat", target)


def m_source(c: Call) -> None:
    args = [a for a in c.args if a != "--"]
    if not args:
        return
    path = args[0]
    c.fx("source", path if path is None or "/" in path else None)
    c.opaque(f"{c.name}: the commands of a sourced file are known only at run time")


def m_eval(c: Call) -> None:
    if not c.args:
        return
    c.facts.scripts.append(None if c.dynamic else " ".join(a or "" for a in c.args))


def m_exec(c: Call) -> None:
    args = list(c.args)
    while args and args[0] is not None and args[0].startswith("-") and args[0] != "--":
        if args[0] == "-a":
            args = args[1:]
        args = args[1:]
    if args and args[0] == "--":
        args = args[1:]
    if args:
        c.facts.commands.append(args)


def m_command(c: Call) -> None:
    args = list(c.args)
    query = False
    while args and (flag := args[0]) is not None and flag.startswith("-") and len(flag) > 1:
        args = args[1:]
        if flag == "--":
            break
        query = query or "v" in flag or "V" in flag
    if args and not query:
        c.facts.commands.append(args)


def m_builtin(c: Call) -> None:
    if c.args:
        c.facts.commands.append(list(c.args))


def m_trap(c: Call) -> None:
    args = [a for a in c.args if a != "--"]
    if not args or args[0] in ("-l", "-p", "-lp", "-pl") or len(args) == 1:
        return
    if args[0] != "-":
        c.facts.scripts.append(args[0])


def m_alias(c: Call) -> None:
    for a in c.args:
        if a is None:
            c.facts.scripts.append(None)
        elif "=" in a and not a.startswith("-"):
            c.facts.scripts.append(a.partition("=")[2])


def m_mapfile(c: Call) -> None:
    args = c.args
    for i, a in enumerate(args):
        if a == "-C":
            cb = args[i + 1] if i + 1 < len(args) else None
            # called as `CALLBACK INDEX LINE`
            c.facts.scripts.append(None if cb is None else cb + ' "$MAPFILE_INDEX" "$MAPFILE_LINE"')
    _names_from(c)


def _names_from(c: Call) -> None:
    """Builtins taking variable names: a name built at run time may carry a subscript whose
    expansion runs commands (`printf -v 'a[$(cmd)]'`)."""
    if c.dynamic:
        c.facts.dynamic_names = True


def m_names(c: Call) -> None:
    _names_from(c)


BUILTIN_MODELS: dict[str, Callable[[Call], None]] = {
    "cd": m_cd,
    "pushd": m_cd,
    "popd": m_cd,
    "source": m_source,
    ".": m_source,
    "eval": m_eval,
    "exec": m_exec,
    "command": m_command,
    "builtin": m_builtin,
    "trap": m_trap,
    "alias": m_alias,
    "mapfile": m_mapfile,
    "readarray": m_mapfile,
    "test": m_test,
    "[": m_test,
    "read": m_names,
    "printf": m_names,
    "declare": m_names,
    "typeset": m_names,
    "local": m_names,
    "export": m_names,
    "readonly": m_names,
    "unset": m_names,
    "getopts": m_names,
}

# builtins with no file access, no sub-commands, no names built at run time
PLAIN_BUILTINS = words(
    ": true false echo pwd kill let shift exit return break continue wait jobs bg fg disown suspend logout "
    "times umask ulimit caller dirs hash type help enable shopt set unalias complete compopt"
)


def m_compgen(c: Call) -> None:
    """compgen (builtins/compgen.py): -C runs a command and -F a function; -W's words are
    expanded as shell words (`$(...)` in them runs); the file actions list the word's directory,
    -c lists each PATH directory, -G globs, hostnames read $HOSTFILE (else /etc/hosts)."""
    parsed = _compgen_options(c)
    if parsed is None:
        return
    actions, values, word = parsed
    for text in values.get("C", ()):
        c.facts.scripts.append(text)
    if "F" in values:
        c.opaque("compgen -F: runs a shell function")
    for text in values.get("W", ()):
        # each word is expanded as the shell would (split by the shell's rules, not globbed)
        c.facts.scripts.append(None if text is None else ": " + text)
    if actions & {"file", "directory", "default", "dirnames", "plusdirs"}:
        c.fx("list", _completion_dir(word), recursive=False)
    if "command" in actions:
        c.fx("list", None)  # each directory of $PATH, known only at run time
    if "hostname" in actions:
        c.fx("read", None)  # $HOSTFILE, else /etc/hosts
    for pattern in values.get("G", ()):
        c.fx("list", None if pattern is None else glob_dir(pattern), recursive=True)


def _compgen_options(c: Call) -> tuple[set[str], dict[str, list[Arg]], Arg] | None:
    """(actions and -o options that reach files, valued options, the word) as compgen parses its
    words; None (and the call opaque) when an option is a word only the run knows."""
    from ..builtins.complete import ACTION_NAMES, COMP_SPEC  # the builtin's own option table

    valued = {COMP_SPEC[i - 1] for i, ch in enumerate(COMP_SPEC) if ch == ":"}
    by_letter = {letter: n for n, letter in ACTION_NAMES.items() if letter}
    actions: set[str] = set()
    values: dict[str, list[Arg]] = {}
    args = list(c.args)
    while args and args[0] != "--" and (args[0] is None or (args[0].startswith("-") and len(args[0]) > 1)):
        a = args.pop(0)
        if a is None:
            c.opaque("compgen: its options are known only at run time")
            return None
        for j, ch in enumerate(a[1:], 1):
            if ch in valued:
                value = a[j + 1 :] or (args.pop(0) if args else "")
                if ch in "Ao":
                    if value is None:
                        c.opaque(f"compgen -{ch}: its value is known only at run time")
                        return None
                    actions.add(value)
                else:
                    values.setdefault(ch, []).append(value)
                break
            actions.add(by_letter.get(ch, ""))
    if args and args[0] == "--":
        args.pop(0)
    return actions, values, args[0] if args else ""


def _completion_dir(word: Arg) -> Arg:
    """The directory filename completion lists for `word` (its directory part; `~` only the
    run resolves)."""
    if word is None or word.startswith("~"):
        return None
    head, slash, _ = word.rpartition("/")
    return (head or "/") if slash else "."


BUILTIN_MODELS["compgen"] = m_compgen


def _letters_and_operands(c: Call) -> tuple[str | None, list[Arg]]:
    """A builtin's option letters (None when one is a run-time word) and its operands."""
    letters: str | None = ""
    args = list(c.args)
    while args and (a := args[0]) != "--" and (a is None or (a.startswith("-") and len(a) > 1)):
        letters = None if a is None or letters is None else letters + a[1:]
        args = args[1:]
    return letters, args[1:] if args and args[0] == "--" else args


def m_history(c: Call) -> None:
    """`history -r/-n FILE` reads a file and `-w/-a FILE` writes one (builtins/history.py): FILE, or
    $HISTFILE (~/.history), known only at run time. Listing, -s, -p, -d and -c touch none."""
    letters, operands = _letters_and_operands(c)
    if letters is None:
        c.opaque("history: its options are known only at run time (-r/-w/-a/-n name a file)")
        return
    if not any(x in letters for x in "anrw"):
        return
    path = operands[0] if operands else None  # (None: $HISTFILE, only the run knows it)
    c.fx("read" if ("r" in letters or "n" in letters) else "create", path)


def m_fc(c: Call) -> None:
    """`fc -l` lists; any other fc runs commands again from the history (-s), or an editor (`-e
    ENAME`, $FCEDIT, $EDITOR: shell text) and then what it left in the file (builtins/editing.py):
    which commands only the run knows."""
    letters, _ = _letters_and_operands(c)
    if letters is not None and "l" in letters and "s" not in letters and "e" not in letters:
        return
    c.opaque("fc: runs commands from the history list or an editor, known only at run time")
    c.facts.commands.append([None])


def m_bind(c: Call) -> None:
    """`bind -f FILE` reads a file; `bind -x KEYSEQ:COMMAND` keeps shell text to run on a key."""
    args = c.args
    for i, a in enumerate(args):
        if a is None:
            c.opaque("bind: its arguments are known only at run time")
        elif a.startswith("-") and not a.startswith("--") and len(a) > 1:
            letter = "f" if "f" in a else "x" if "x" in a else ""
            if letter:  # its value: the rest of the word, else the next one
                value = a[1:].split(letter, 1)[1] or (args[i + 1] if i + 1 < len(args) else "")
                if letter == "f":
                    c.fx("read", value)
                else:
                    c.facts.scripts.append(None if value is None else value.partition(":")[2])


BUILTIN_MODELS["history"] = m_history
BUILTIN_MODELS["fc"] = m_fc
BUILTIN_MODELS["bind"] = m_bind


def m_nice(c: Call) -> None:
    _run_rest(c)


def m_nohup(c: Call) -> None:
    _run_rest(c)


def m_stdbuf(c: Call) -> None:
    _run_rest(c)


def m_watch(c: Call) -> None:
    """watch runs its operands through `sh -c` (with -x: as a program), again and again."""
    from ..commands.shellutils.screen import parse_watch

    if c.dynamic:
        c.opaque("watch: the command it runs is known only at run time")
        c.facts.commands.append([None])
        return
    try:
        opts, rest = parse_watch([str(a) for a in c.args])
    except ValueError:
        return  # a usage error: it runs nothing
    if rest:
        c.facts.commands.append(list(rest) if "exec" in opts else ["sh", "-c", " ".join(rest)])


# the whole catalogue: the file commands' shapes and the wrappers' and languages' models
MODELS: dict[Effects, Model] = {
    **FILE_MODELS,
    Effects.ENV: m_env,
    Effects.NICE: m_nice,
    Effects.NOHUP: m_nohup,
    Effects.STDBUF: m_stdbuf,
    Effects.WATCH: m_watch,
    Effects.TIMEOUT: m_timeout,
    Effects.TIME: m_time,
    Effects.XARGS: m_xargs,
    Effects.FIND: m_find,
    Effects.GREP: m_grep,
    Effects.SED: m_sed,
    Effects.AWK: m_awk,
    Effects.JQ: m_jq,
    Effects.CURL: m_curl,
    Effects.WGET: m_wget,
    Effects.TEST: m_test,
}


def model(name: str, args: Sequence[Arg], commands: CommandTable = BUILTIN_TABLE) -> Facts | None:
    """The facts of running command `name` with `args`, by the model its record declares; None when
    it declares none (a custom command without `effects=`: the check refuses it)."""
    if name in SHELL_NAMES:  # the interpreter itself, not a record
        call = Call(name, args)
        m_shell(call)
        return call.facts
    effects = commands.effects(name)
    fn = MODELS.get(effects) if effects is not None else None
    record = commands.lookup(name) if fn is not None else None
    if fn is None or record is None:
        return None
    call = Call(name, args, record.spec, record.family(name))
    fn(call)
    return call.facts
