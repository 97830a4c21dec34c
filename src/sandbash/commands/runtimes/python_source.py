"""Rewrites of the program text before Monty runs it, keeping every line where it was.

Monty's `sys` module cannot be given attributes, so `import sys` / `from sys import x` become
bindings of the prelude's `_sb_sys` (python_prelude.py). Each import statement is replaced in
place on its own line(s), so tracebacks keep the program's line numbers. `for NAME in sys.stdin:`
becomes `while (NAME := _sb_stdin_line()):` on the same line: Monty reads a file object whole,
and the loop then streams stdin (a pipeline stage, `yes | python3 ...`) a chunk of lines at a time.
`os.system` and `os.popen` (Monty's os has neither) become the prelude's `_sb_system` / `_sb_popen`,
which run a sandbash command (python_subprocess.py); `json.dump` becomes the prelude's `_sb_json_dump`
(Monty's calls the file's write() where a host call cannot run, and a file opened to write is the
prelude's own object); `f.writelines(x)` becomes `_sb_writelines(f, x)`. Text the host parser
cannot read (newer syntax, or too large) is left as it is: Monty reports what it cannot run.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from .python_named import WHEN_NAMED
from .python_stdlib import MODULES

MAX_REWRITE_BYTES = 1 << 20


# module functions bound to the prelude's versions: os's that run a command, json's that writes a
# file; subprocess's exception classes are the built-in ones its functions raise (Monty has no
# classes of the host's): `except subprocess.CalledProcessError` catches a failed check
_REPLACED = {
    "os": {"system": "_sb_system", "popen": "_sb_popen"},
    "json": {"dump": "_sb_json_dump"},
    # Monty's functools has no wraps, its string no Template: the prelude's (when named)
    "functools": {"wraps": "_sb_wraps"},
    "string": {"Template": "_SbTemplate"},
    # Monty's dataclasses has only dataclass/field; its collections no OrderedDict (a dict keeps
    # order: move_to_end and popitem(last=) are the prelude's _sb_method)
    "dataclasses": {
        "asdict": "_sb_asdict",
        "astuple": "_sb_astuple",
        "fields": "_sb_fields",
        "replace": "_sb_dc_replace",
        "is_dataclass": "_sb_is_dataclass",
    },
    "collections": {"OrderedDict": "dict"},
    "subprocess": {
        "CalledProcessError": "RuntimeError",
        "TimeoutExpired": "TimeoutError",
        "SubprocessError": "Exception",
    },
}


def _stand_in(module: str) -> str | None:
    """The prelude's object an import of `module` binds (sys, and python_stdlib's modules)."""
    if module == "sys":
        return "_sb_sys"
    entry = MODULES.get(module)
    return entry[0] if entry is not None else None


_WORD = re.compile(r"\w+")


def stdlib_modules(text: str) -> list[str]:
    """The python_stdlib modules the program may import (it names them as a word): their text
    runs after the prelude."""
    if len(text) > MAX_REWRITE_BYTES:
        return []  # (left as written: its imports are Monty's own)
    words = set(_WORD.findall(text))
    out: list[str] = []
    for name in MODULES:
        if name.split(".", 1)[0] in words:
            out += [need for need in (*MODULES[name][2], name) if need not in out]
    return out


# a name -> the WHEN_NAMED text that defines it: its key, and its own top-level functions and
# classes (`_sb...`; a text's `len` or `sorted` serves the program's own classes, chosen by key)
_DEFINED_IN = {
    **{
        name: key
        for key, piece in WHEN_NAMED.items()
        for name in re.findall(r"^(?:def|class) (_[Ss]b\w+)", piece, re.MULTILINE)
    },
    **{key: key for key in WHEN_NAMED},
}


def named_builtins(text: str) -> str:
    """The prelude's WHEN_NAMED texts that define a word the program (as rewritten) names, and
    those that define a word a chosen text names in turn (`_sb_wraps` uses `_sb_name`)."""
    if len(text) > MAX_REWRITE_BYTES:
        return ""
    chosen = list(dict.fromkeys(_DEFINED_IN[w] for w in set(_WORD.findall(text)) if w in _DEFINED_IN))
    for key in chosen:  # (grows while it runs: each text added is read in turn)
        more = {_DEFINED_IN[w] for w in _WORD.findall(WHEN_NAMED[key]) if w in _DEFINED_IN}
        chosen += [k for k in more if k not in chosen]
    return "".join(piece for key, piece in WHEN_NAMED.items() if key in chosen)


def _import_text(node: ast.Import | ast.ImportFrom) -> str | None:
    """The replacement for an import statement that names sys, a python_stdlib module (or a
    function of _REPLACED), or None."""
    if isinstance(node, ast.ImportFrom):
        funcs = _REPLACED.get(node.module or "", {}) if not node.level else {}
        if any(a.name in funcs for a in node.names):
            kept = [a for a in node.names if a.name not in funcs]
            parts = [f"{a.asname or a.name} = {funcs[a.name]}" for a in node.names if a.name in funcs]
            if kept:
                names = ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in kept)
                parts.insert(0, f"from {node.module} import {names}")
            return "; ".join(parts)
        stand_in = _stand_in(node.module or "") if not node.level else None
        if stand_in is None:
            return None
        parts = []
        for a in node.names:
            if a.name == "*":
                return "pass"  # nothing sensible to star-import from the stand-in
            parts.append(f"{a.asname or a.name} = {stand_in}.{a.name}")
        return "; ".join(parts)
    if not any(_stand_in(a.name) for a in node.names):
        return None
    parts = []
    for a in node.names:
        stand_in = _stand_in(a.name)
        if stand_in is not None and "." in a.name and not a.asname:
            # `import urllib.parse` binds the package, whose attribute is the module
            parts.append(f"{a.name.split('.', 1)[0]} = {_stand_in(a.name.split('.', 1)[0])}")
        elif stand_in is not None:
            parts.append(f"{a.asname or a.name} = {stand_in}")
        else:
            parts.append(f"import {a.name}" + (f" as {a.asname}" if a.asname else ""))
    return "; ".join(parts)


def _stdin_names(tree: ast.AST) -> tuple[set[str], set[str]]:
    """(names bound to sys, names bound to sys.stdin) by the program's imports."""
    sys_names: set[str] = set()
    stdin_names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            sys_names |= {a.asname or "sys" for a in node.names if a.name == "sys"}
        elif isinstance(node, ast.ImportFrom) and node.module == "sys" and not node.level:
            stdin_names |= {a.asname or "stdin" for a in node.names if a.name == "stdin"}
    return sys_names, stdin_names


def _is_stdin(expr: ast.expr, names: tuple[set[str], set[str]]) -> bool:
    if isinstance(expr, ast.Attribute) and expr.attr == "stdin" and isinstance(expr.value, ast.Name):
        return expr.value.id in names[0]
    return isinstance(expr, ast.Name) and expr.id in names[1]


def _stdin_value_edits(
    tree: ast.AST, names: tuple[set[str], set[str]], taken: list[tuple[int, int, int, int, str]]
) -> list[tuple[int, int, int, int, str]]:
    """`sys.stdin` (or `sys.stdin.buffer`) handed on as a value -> `_sb_stdin_loaded()` (`.buffer`):
    Monty runs the dunders of an object it iterates or reads inside its own code (sorted(),
    enumerate(), json.load, csv.reader, a comprehension), where a host call cannot run, so the rest
    of stdin is read first. A method called on it (`sys.stdin.read()`) stays lazy, and a rewritten
    `for` loop streams."""
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    out: list[tuple[int, int, int, int, str]] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute | ast.Name) and isinstance(node.ctx, ast.Load)):
            continue
        if not _is_stdin(node, names) or node.end_col_offset is None or node.end_lineno != node.lineno:
            continue
        target: ast.expr = node
        replacement = "_sb_stdin_loaded()"
        parent = parents.get(node)
        if isinstance(parent, ast.Attribute):
            if parent.attr != "buffer":
                continue  # a method or attribute of sys.stdin: read lazily, at the program's level
            target, replacement = parent, "_sb_stdin_loaded().buffer"
            if isinstance(parents.get(parent), ast.Attribute):
                continue  # sys.stdin.buffer.read(): lazy too
        if target.end_col_offset is None or any(
            line == node.lineno and col <= node.col_offset < end_col for line, col, _el, end_col, _ in taken
        ):
            continue  # inside a rewritten `for NAME in sys.stdin:`
        out.append((node.lineno, node.col_offset, node.lineno, target.end_col_offset, replacement))
    return out


def _writelines_edits(
    text: str, tree: ast.AST, taken: list[tuple[int, int, int, int, str]]
) -> list[tuple[int, int, int, int, str]]:
    """`X.writelines(LINES)` on one line -> `_sb_writelines(X, LINES)`: Monty's file objects have no
    writelines. Left alone where another rewrite falls inside the call."""
    out: list[tuple[int, int, int, int, str]] = []
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "writelines"
            and len(node.args) == 1
            and not node.keywords
            and node.end_lineno == node.lineno
            and node.end_col_offset is not None
        ):
            continue
        if any(
            line == node.lineno and node.col_offset <= col < node.end_col_offset for line, col, *_ in taken
        ):
            continue
        target = ast.get_source_segment(text, node.func.value)
        lines = ast.get_source_segment(text, node.args[0])
        if target is None or lines is None:
            continue
        out.append(
            (
                node.lineno,
                node.col_offset,
                node.lineno,
                node.end_col_offset,
                f"_sb_writelines({target}, {lines})",
            )
        )
    return out


# the built-in types whose methods Monty cannot hand out as values (`key=str.lower`, `key=d.get`)
_BUILTIN_TYPES = ("str", "bytes", "list", "dict", "set", "frozenset", "tuple", "int", "float")
_BUILTIN_METHODS = frozenset(
    name
    for t in (str, bytes, list, dict, set, frozenset, tuple, int, float)
    for name in dir(t)
    if not name.startswith("_")
)


def _method_value_edits(
    text: str, tree: ast.AST, taken: list[tuple[int, int, int, int, str]]
) -> list[tuple[int, int, int, int, str]]:
    """A built-in type's method handed on as a function where one is required, `key=` of any call
    and the function of map()/filter(): Monty has no such method values (`max(d, key=d.get)` is
    AttributeError there), so it becomes a lambda calling the method. Only in those places: an
    attribute elsewhere may be data (`self.items`)."""
    out: list[tuple[int, int, int, int, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        wanted = [kw.value for kw in node.keywords if kw.arg == "key"]
        if isinstance(node.func, ast.Name) and node.func.id in ("map", "filter") and node.args:
            wanted.append(node.args[0])
        for value in wanted:
            if not (
                isinstance(value, ast.Attribute)
                and value.attr in _BUILTIN_METHODS
                and value.end_lineno == value.lineno
                and value.end_col_offset is not None
                and isinstance(value.value, ast.Name | ast.Attribute | ast.Constant)
            ):
                continue
            if any(
                line == value.lineno and value.col_offset <= col < value.end_col_offset
                for line, col, *_ in taken
            ):
                continue
            if isinstance(value.value, ast.Name) and value.value.id in _BUILTIN_TYPES:
                new = f"(lambda _sb_self, *_sb_args: _sb_self.{value.attr}(*_sb_args))"
            else:
                owner = ast.get_source_segment(text, value.value)
                if owner is None:
                    continue
                new = f"(lambda *_sb_args: {owner}.{value.attr}(*_sb_args))"
            out.append((value.lineno, value.col_offset, value.lineno, value.end_col_offset, new))
    return out


# methods of built-in types Monty lacks, called through the prelude's _sb_method(X, name, ...)
_MISSING_METHODS = frozenset(
    {
        "translate",
        "format_map",
        "bit_length",
        "move_to_end",
        "popitem",
        "_asdict",
        "relative_to",
        "fromtimestamp",
        "utcfromtimestamp",
        "today",
        "to_bytes",
        "from_bytes",
    }
)
# codec names of latin-1, which Monty lacks: `X.encode/decode(NAME)` with one of them written as
# a literal goes through _sb_method too (any other encode/decode is left to Monty)
_LATIN1 = frozenset({"latin-1", "latin1", "iso-8859-1", "iso8859-1", "l1", "latin_1", "iso_8859_1"})


def _names_latin1(text: str) -> bool:
    """Whether the text may name a latin-1 codec (in any case: `'Latin-1'`, `'L1'`)."""
    lowered = text.lower()
    return any(name in lowered for name in _LATIN1)


def _method_call_edits(
    text: str, tree: ast.AST, taken: list[tuple[int, int, int, int, str]]
) -> list[tuple[int, int, int, int, str]]:
    """Method calls Monty cannot make, `X.name(...)` -> the prelude's `FUNCTION(X, "name", ...)`,
    which looks at X when it runs (X may be anything: only the built-in types' are replaced):
    - `X.sub(...)` whose replacement may be a function, and every `X.subn(...)` -> `_sb_sub`:
      Monty's re takes only a string as the replacement and has no subn (a sub whose
      replacement is a string literal is left alone);
    - the methods of _MISSING_METHODS, and `encode`/`decode` whose codec is a latin-1 literal
      (_LATIN1, any case) -> `_sb_method`."""
    out: list[tuple[int, int, int, int, str]] = []
    lines: list[bytes] = []  # the text's lines, split at the first call found
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("sub", "subn", "encode", "decode", *_MISSING_METHODS)
            and node.end_lineno is not None
            and node.end_col_offset is not None
        ):
            continue
        if node.func.attr in ("encode", "decode"):
            codec = (
                node.args[0]
                if node.args
                else next((k.value for k in node.keywords if k.arg == "encoding"), None)
            )
            if not (isinstance(codec, ast.Constant) and str(codec.value).lower() in _LATIN1):
                continue
        function = "_sb_sub" if node.func.attr in ("sub", "subn") else "_sb_method"
        if node.func.attr == "sub":
            # the replacement: re.sub(pattern, repl, ...) or pattern.sub(repl, ...)
            at = 1 if isinstance(node.func.value, ast.Name) and node.func.value.id == "re" else 0
            repl = (
                node.args[at]
                if len(node.args) > at
                else next((k.value for k in node.keywords if k.arg == "repl"), None)
            )
            if repl is None or isinstance(repl, ast.Constant):
                continue
        owner = ast.get_source_segment(text, node.func.value)
        if owner is None or node.func.end_lineno != node.lineno or node.func.end_col_offset is None:
            continue
        # only `OWNER.name(` is replaced: the arguments stay as written, over as many lines as
        # they take; it must not hold another edit (its text is copied as written)
        lines = lines or _byte_lines(text)
        head_end = _past_paren(lines[node.lineno - 1], node.func.end_col_offset)
        if head_end is None or _overlaps(
            (node.lineno, node.col_offset), (node.lineno, head_end), (*taken, *out)
        ):
            continue
        new = f"{function}({owner}, {node.func.attr!r}, "
        out.append((node.lineno, node.col_offset, node.lineno, head_end, new))
    return out


def _byte_lines(text: str) -> list[bytes]:
    """The text's lines as UTF-8 (ast's column offsets count bytes)."""
    return [line.encode("utf-8", "surrogatepass") for line in text.splitlines()]


def _past_paren(line: bytes, end_col: int) -> int | None:
    """The column just past the `(` that follows a call's function ending at end_col (blanks may
    come between), or None when the call's parenthesis is not on that line."""
    paren = end_col + len(line[end_col:]) - len(line[end_col:].lstrip())
    return paren + 1 if line[paren : paren + 1] == b"(" else None


def _assert_edits(
    text: str, tree: ast.AST, taken: list[tuple[int, int, int, int, str]]
) -> list[tuple[int, int, int, int, str]]:
    """`assert TEST, MSG` -> `if not (TEST): raise AssertionError(MSG)`: Monty's AssertionError
    carries its own text (`str(e)` of `assert x < 1, "m"` is "m\nassert 5 < 1", of a bare
    `assert x < 1` "assert 5 < 1"; CPython's: "m" and ""). Only an assert that is alone on its
    lines (a compound statement cannot follow `if a:` on one line, and what follows a `;` would
    join the raise's branch)."""
    out: list[tuple[int, int, int, int, str]] = []
    lines: list[bytes] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assert) or node.end_lineno is None or node.end_col_offset is None:
            continue
        test = node.test
        msg = node.msg
        if test.end_lineno is None or test.end_col_offset is None:
            continue
        lines = lines or _byte_lines(text)
        first = lines[node.lineno - 1]
        last = lines[node.end_lineno - 1]
        rest = last[node.end_col_offset :].strip()
        if first[: node.col_offset].strip() or (rest and not rest.startswith(b"#")):
            continue
        if _overlaps((node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset), taken):
            continue  # (another edit inside: not worth composing)
        out.append((node.lineno, node.col_offset, test.lineno, test.col_offset, "if not ("))
        if msg is None or msg.end_lineno is None or msg.end_col_offset is None:
            out.append(
                (
                    test.end_lineno,
                    test.end_col_offset,
                    node.end_lineno,
                    node.end_col_offset,
                    "): raise AssertionError",
                )
            )
        else:
            out.append(
                (test.end_lineno, test.end_col_offset, msg.lineno, msg.col_offset, "): raise AssertionError(")
            )
            # to the assert's end: the closing parentheses of a message in parentheses go too
            out.append((msg.end_lineno, msg.end_col_offset, node.end_lineno, node.end_col_offset, ")"))
    return out


def _environ_edits(
    text: str, tree: ast.AST, taken: list[tuple[int, int, int, int, str]]
) -> list[tuple[int, int, int, int, str]]:
    """Changes to os.environ, which Monty hands out as a new dict at each use (a change was lost):
    `os.environ[K] = V` -> `_sb_setenv(K, V)`, `os.environ[K] += V` -> `_sb_setenv(K,
    os.environ[K] + (V))`, `del os.environ[K]` -> `_sb_unsetenv(K)`, `os.environ.update/pop/
    setdefault(...)` -> `_sb_environ_call("update", ...)`: the host keeps the program's
    environment, which os.environ, os.getenv and the commands it runs then see. Only a statement
    on one line holding no other edit (the texts are copied as written)."""
    os_names = {
        a.asname or a.name
        for n in ast.walk(tree)
        if isinstance(n, ast.Import)
        for a in n.names
        if a.name == "os"
    }
    environ_names = {
        a.asname or a.name
        for n in ast.walk(tree)
        if isinstance(n, ast.ImportFrom) and n.module == "os" and not n.level
        for a in n.names
        if a.name == "environ"
    }
    if not os_names and not environ_names:
        return []

    def is_environ(e: ast.expr) -> bool:
        if isinstance(e, ast.Name):
            return e.id in environ_names
        return (
            isinstance(e, ast.Attribute)
            and e.attr == "environ"
            and isinstance(e.value, ast.Name)
            and e.value.id in os_names
        )

    def segment(e: ast.AST) -> str | None:
        return ast.get_source_segment(text, e)

    out: list[tuple[int, int, int, int, str]] = []
    for node in ast.walk(tree):
        new: str | None = None
        key: str | None = None
        if isinstance(node, ast.Assign | ast.AugAssign | ast.Delete):
            targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
            if len(targets) != 1:
                continue
            target = targets[0]
            if not (isinstance(target, ast.Subscript) and is_environ(target.value)):
                continue
            key = segment(target.slice)
            if key is None:
                continue
            if isinstance(node, ast.Delete):
                new = f"_sb_unsetenv({key})"
            elif isinstance(node, ast.Assign):
                value = segment(node.value)
                new = None if value is None else f"_sb_setenv({key}, {value})"
            elif isinstance(node.op, ast.Add):
                value, current = segment(node.value), segment(target)
                new = (
                    None if value is None or current is None else f"_sb_setenv({key}, {current} + ({value}))"
                )
        if (
            new is None
            or not isinstance(node, ast.stmt)
            or node.end_lineno != node.lineno
            or node.end_col_offset is None
        ):
            continue
        if _overlaps((node.lineno, node.col_offset), (node.lineno, node.end_col_offset), taken):
            continue
        out.append((node.lineno, node.col_offset, node.lineno, node.end_col_offset, new))
    lines: list[bytes] = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("update", "pop", "setdefault")
            and is_environ(node.func.value)
            and node.func.end_lineno == node.lineno
            and node.func.end_col_offset is not None
        ):
            # `OWNER.name(` -> `_sb_environ_call('name', `: the arguments stay as written
            lines = lines or _byte_lines(text)
            head_end = _past_paren(lines[node.lineno - 1], node.func.end_col_offset)
            if head_end is not None and not _overlaps(
                (node.lineno, node.col_offset), (node.lineno, head_end), (*taken, *out)
            ):
                new = f"_sb_environ_call({node.func.attr!r}, "
                out.append((node.lineno, node.col_offset, node.lineno, head_end, new))
    for node in ast.walk(tree):
        # a name bound by `from os import environ` is the dict of the import's time in Monty: each
        # use reads os.environ anew, as CPython's one mapping would show the changes
        if (
            isinstance(node, ast.Name)
            and isinstance(node.ctx, ast.Load)
            and node.id in environ_names
            and node.end_col_offset is not None
            and not _overlaps(
                (node.lineno, node.col_offset), (node.lineno, node.end_col_offset), (*taken, *out)
            )
        ):
            out.append(
                (node.lineno, node.col_offset, node.lineno, node.end_col_offset, "_sb_environ_os.environ")
            )
    return out


def _name_edits(
    text: str, tree: ast.AST, taken: list[tuple[int, int, int, int, str]]
) -> list[tuple[int, int, int, int, str]]:
    """`X.__name__` -> `_sb_name(X)` and `X.__name__ = V` -> `_sb_set_name(X, V)`: Monty's
    functions have no __name__ (a decorator printing `fn.__name__` was AttributeError). Only
    on one line, X holding no other edit (it is copied as written)."""
    out: list[tuple[int, int, int, int, str]] = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Attribute)
            and node.targets[0].attr == "__name__"
            and node.end_lineno == node.lineno
            and node.end_col_offset is not None
        ):
            # `X.__name__ = ` -> `_sb_set_name(X, ` and `)` after the value, which may hold edits
            owner = ast.get_source_segment(text, node.targets[0].value)
            head = ((node.lineno, node.col_offset), (node.lineno, node.value.col_offset))
            if owner is None or _overlaps(*head, (*taken, *out)):
                continue
            out.append((*head[0], *head[1], f"_sb_set_name({owner}, "))
            out.append((node.lineno, node.value.end_col_offset or 0, node.lineno, node.end_col_offset, ")"))
        elif (
            isinstance(node, ast.Attribute)
            and node.attr == "__name__"
            and isinstance(node.ctx, ast.Load)
            and node.end_lineno == node.lineno
            and node.end_col_offset is not None
        ):
            owner = ast.get_source_segment(text, node.value)
            span = ((node.lineno, node.col_offset), (node.lineno, node.end_col_offset))
            if owner is None or _overlaps(*span, (*taken, *out)):
                continue
            out.append((*span[0], *span[1], f"_sb_name({owner})"))
    return out


# the attributes of subprocess's and json's exceptions, read through the prelude's _sb_exc_attr
_EXC_ATTRS = {
    "CalledProcessError": {"returncode", "cmd", "output", "stdout", "stderr"},
    "TimeoutExpired": {"cmd", "timeout", "output", "stdout", "stderr"},
    "SubprocessError": {"returncode", "cmd", "output", "stdout", "stderr", "timeout"},
    "JSONDecodeError": {"msg", "lineno", "colno", "pos"},
}


def _exception_attr_edits(
    text: str, tree: ast.AST, taken: list[tuple[int, int, int, int, str]]
) -> list[tuple[int, int, int, int, str]]:
    """`e.returncode` -> `_sb_exc_attr(e, 'returncode')` where `e` is bound by an `except` naming
    one of _EXC_ATTRS's classes (Monty's exceptions take no attributes: the prelude finds them)."""
    out: list[tuple[int, int, int, int, str]] = []
    for handler in ast.walk(tree):
        if not isinstance(handler, ast.ExceptHandler) or handler.name is None or handler.type is None:
            continue
        wanted: set[str] = set()
        for n in ast.walk(handler.type):
            name = n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else ""
            wanted |= _EXC_ATTRS.get(name, set())
        for node in (n for stmt in handler.body for n in ast.walk(stmt)):
            if (
                isinstance(node, ast.Attribute)
                and node.attr in wanted
                and isinstance(node.ctx, ast.Load)
                and isinstance(node.value, ast.Name)
                and node.value.id == handler.name
                and node.end_lineno == node.lineno
                and node.end_col_offset is not None
            ):
                span = ((node.lineno, node.col_offset), (node.lineno, node.end_col_offset))
                if not _overlaps(*span, (*taken, *out)):
                    out.append((*span[0], *span[1], f"_sb_exc_attr({handler.name}, {node.attr!r})"))
    return out


def _overlaps(
    start: tuple[int, int], end: tuple[int, int], edits: Iterable[tuple[int, int, int, int, str]]
) -> bool:
    """Whether the span from start to end (line, column) meets one of the edits."""
    return any((l1, c1) < end and start < (l2, c2) for l1, c1, l2, c2, _ in edits)


def rewrite(text: str) -> str:
    """`text` as Monty runs it (see the module's docstring and the edit passes below); a text that
    names none of what they rewrite is returned without being parsed."""
    if (
        not any(
            w in text
            for w in (
                "sys",
                "system",
                "popen",
                "dump",
                "subprocess",
                "writelines",
                "key",
                "map(",
                "filter(",
                "sub",
                "maketrans",
                "assert",
                "environ",
                "functools",
                "string",
                "__name__",
                *_REPLACED,
                *_EXC_ATTRS,
                *_MISSING_METHODS,
                *MODULES,
            )
        )
        and not _names_latin1(text)
    ) or len(text) > MAX_REWRITE_BYTES:
        return text
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return text
    edits: list[tuple[int, int, int, int, str]] = []
    stdin_names = _stdin_names(tree)
    # the name each replaced module is bound to -> that module's replaced functions
    modules = {
        a.asname or a.name: _REPLACED[a.name]
        for n in ast.walk(tree)
        if isinstance(n, ast.Import)
        for a in n.names
        if a.name in _REPLACED
    }
    modules.setdefault("str", {})["maketrans"] = "_sb_maketrans"  # (Monty's str has none)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            new = _import_text(node)
            if new is not None and node.end_lineno is not None and node.end_col_offset is not None:
                edits.append((node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, new))
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.attr in modules.get(node.value.id, {})
            and node.end_lineno == node.lineno
            and node.end_col_offset is not None
        ):
            edits.append(
                (
                    node.lineno,
                    node.col_offset,
                    node.lineno,
                    node.end_col_offset,
                    modules[node.value.id][node.attr],
                )
            )
        elif (
            isinstance(node, ast.For)
            and _is_stdin(node.iter, stdin_names)
            and isinstance(node.target, ast.Name)
            and node.iter.end_lineno == node.lineno
            and node.iter.end_col_offset is not None
        ):
            edits.append(
                (
                    node.lineno,
                    node.col_offset,
                    node.lineno,
                    node.iter.end_col_offset,
                    f"while ({node.target.id} := _sb_stdin_line())",
                )
            )
    edits += _stdin_value_edits(tree, stdin_names, edits)
    edits += _writelines_edits(text, tree, edits)
    edits += _method_value_edits(text, tree, edits)
    edits += _method_call_edits(text, tree, edits)
    edits += _assert_edits(text, tree, edits)
    edits += _environ_edits(text, tree, edits)
    edits += _name_edits(text, tree, edits)
    edits += _exception_attr_edits(text, tree, edits)
    if not edits:
        return text
    lines = [line.encode("utf-8", "surrogatepass") for line in text.splitlines(keepends=True)]
    # bottom-up, so earlier positions stay valid; offsets are UTF-8 byte columns
    for line, col, end_line, end_col, new in sorted(edits, reverse=True):
        head = lines[line - 1][:col]
        tail = lines[end_line - 1][end_col:]
        # a statement spanning lines keeps its line count: the rest become empty lines
        filler = b"\n" * (end_line - line)
        lines[line - 1 : end_line] = [head + new.encode() + filler + tail]
    return b"".join(lines).decode("utf-8", "surrogatepass")
