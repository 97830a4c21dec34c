"""Hypothesis strategies for random bash scripts, valid and not.

Built from the grammar: words (literals, quotes, every expansion, globs,
braces), simple commands (builtins and commands with small arguments),
redirections (files, fds, here-strings, here-docs, process substitution),
pipelines and lists, compound commands (if, while, until, for, case, groups,
subshells, arithmetic, [[ ]], functions), plus raw junk that makes the
input invalid. Commands that only wait (sleep, tail -f, yes) are left out so
that examples stay fast; loops are ended by the run's limits.
"""

from __future__ import annotations

from functools import cache

from hypothesis import strategies as st

NAMES = [
    "x",
    "y",
    "i",
    "PATH",
    "IFS",
    "HOME",
    "a",
    "_",
    "1",
    "@",
    "*",
    "#",
    "?",
    "$",
    "!",
    "-",
    "0",
    "RANDOM",
]
FILES = [
    "f",
    "/tmp/o",
    "/work/w.txt",
    "/ro/r.txt",
    "/work/link",
    "../../../x",
    "/dev/null",
    "/proc/self/environ",
    "d/e",
    "/work",
    "-",
    "",
]
COMMANDS = [
    "echo",
    "printf",
    "cat",
    "true",
    "false",
    ":",
    "test",
    "[",
    "read",
    "cd",
    "pwd",
    "export",
    "local",
    "set",
    "shift",
    "unset",
    "declare",
    "readonly",
    "eval",
    "exec",
    "command",
    "type",
    "let",
    "return",
    "exit",
    "break",
    "continue",
    "trap",
    "wait",
    "grep",
    "sed",
    "awk",
    "sort",
    "uniq",
    "head",
    "tail",
    "wc",
    "tr",
    "cut",
    "seq",
    "jq",
    "expr",
    "find",
    "ls",
    "mkdir",
    "touch",
    "rm",
    "cp",
    "mv",
    "ln",
    "chmod",
    "tee",
    "xargs",
    "bash",
    "sh",
    "env",
    "printenv",
    "basename",
    "dirname",
    "rev",
    "od",
    "base64",
    "md5sum",
    "date",
    "bc",
    "tar",
    "gzip",
    "f",
    "g",
    "nosuchcmd",
]
JUNK = [
    "(",
    ")",
    "{",
    "}",
    "((",
    "))",
    "[[",
    "]]",
    ";;",
    "|",
    "||",
    "&&",
    "&",
    ";",
    "<",
    ">",
    "<<",
    "<<<",
    "fi",
    "done",
    "esac",
    "then",
    "do",
    "in",
    "`",
    "'",
    '"',
    "$(",
    "${",
    "$((",
    "\\",
    "#",
    "!",
    "\x00",
    "\udcff",
    "\u00e9",
    "\n",
]

literal = st.text(alphabet="abcxyz019._-/=,:@%+", min_size=1, max_size=6)
small_int = st.integers(min_value=-3, max_value=300).map(str)


NAME = st.sampled_from(NAMES)
SIMPLE_LEAVES = st.one_of(
    literal,
    small_int,
    st.sampled_from(FILES),
    NAME.map(lambda n: f"${n}"),
    NAME.map(lambda n: f"${{{n}}}"),
    NAME.map(lambda n: f"${{#{n}}}"),
    NAME.map(lambda n: f"${{!{n}}}"),
    st.sampled_from(
        [
            "*",
            "?",
            "[a-c]*",
            "/*",
            "/work/*",
            "**",
            "~",
            "~root",
            "{a,b}",
            "{1..5}",
            "{a..e..2}",
            "$'\\x41\\n'",
            "$'\\xff'",
            "-n",
            "-e",
            "--",
            "-",
            "%s",
            "%d\\n",
            "\\t",
            "@(a|b)",
            "+(x|y)",
            "!(z)",
        ]
    ),
    literal.map(lambda s: f"'{s}'"),
)
OPS = st.sampled_from([":-", "-", ":=", ":+", "#", "##", "%", "%%", "/", "//", "^^", ",,", ":1:2", "@Q"])


def _words(depth: int) -> st.SearchStrategy[str]:
    """One shell word (one to three pieces joined)."""
    if depth >= MAX_DEPTH:
        leaf = SIMPLE_LEAVES
    else:
        inner = words(depth + 1)
        leaf = st.one_of(
            SIMPLE_LEAVES,
            inner.map(lambda w: f'"{w}"'),
            st.tuples(NAME, OPS, inner).map(lambda t: f"${{{t[0]}{t[1]}{t[2]}}}"),
            arith(depth + 1).map(lambda a: f"$(({a}))"),
            scripts(depth + 1).map(lambda s: f"$({s})"),
            scripts(depth + 1).map(lambda s: f"`{s}`"),
            scripts(depth + 1).map(lambda s: f"<({s})"),
        )
    return st.lists(leaf, min_size=1, max_size=2 if depth else 3).map("".join)


@st.composite
def _arith(draw: st.DrawFn, depth: int = 0) -> str:
    atom = st.one_of(
        small_int,
        st.sampled_from(
            NAMES[:5] + ["2**62", "1<<70", "-9223372036854775808", "08", "0x1f", "64#z", "x++", "--y", "a[1]"]
        ),
    )
    if depth >= MAX_DEPTH:
        return draw(atom)
    op = draw(
        st.sampled_from(
            [
                "+",
                "-",
                "*",
                "/",
                "%",
                "**",
                "<<",
                ">>",
                "&",
                "|",
                "^",
                "&&",
                "||",
                "<",
                "==",
                "=",
                "+=",
                ",",
                "?1:",
            ]
        )
    )
    return f"{draw(atom)} {op} {draw(st.one_of(atom, arith(depth + 1).map(lambda a: f'({a})')))}"


@st.composite
def _redirection(draw: st.DrawFn, depth: int) -> str:
    target = draw(st.sampled_from(FILES))
    kind = draw(
        st.sampled_from(
            [
                ">",
                ">>",
                "<",
                "2>",
                "2>&1",
                ">&2",
                "<>",
                "&>",
                "3>",
                "<&3",
                ">&-",
                "<<<",
                "<<",
                ">(",
                "2>/dev/null",
            ]
        )
    )
    if kind in ("2>&1", ">&2", ">&-", "<&3", "2>/dev/null"):
        return kind
    if kind == "<<<":
        return f"<<< {draw(words(depth + 1))}"
    if kind == "<<":
        body = draw(st.lists(words(depth + 1), max_size=3))
        return "<<EOF\n" + "\n".join(body) + "\nEOF\n"
    if kind == ">(":
        return f"> >({draw(scripts(depth + 1))})"
    return f"{kind} {target}"


@st.composite
def _simple_command(draw: st.DrawFn, depth: int = 0) -> str:
    parts: list[str] = []
    if draw(st.booleans()):
        parts.append(f"{draw(st.sampled_from(NAMES[:7]))}={draw(words(depth + 1))}")
    if draw(st.integers(0, 5)) > 0 or not parts:
        parts.append(draw(st.sampled_from(COMMANDS)))
        parts += draw(st.lists(words(depth + 1), max_size=3 if depth else 4))
    parts += draw(st.lists(redirection(depth), max_size=1 if depth else 2))
    return " ".join(parts)


@st.composite
def _command(draw: st.DrawFn, depth: int = 0) -> str:
    if depth >= MAX_DEPTH:
        return draw(simple_command(depth))
    body = scripts(depth + 1)
    w = words(depth + 1)
    choice = draw(st.integers(0, 13))
    if choice <= 4:
        return draw(simple_command(depth))
    if choice == 5:
        return f"if {draw(body)}; then {draw(body)}; else {draw(body)}; fi"
    if choice == 6:
        loop = draw(st.sampled_from(["while", "until"]))
        return f"{loop} {draw(body)}; do {draw(body)}; done"
    if choice == 7:
        return f"for v in {' '.join(draw(st.lists(w, max_size=4)))}; do {draw(body)}; done"
    if choice == 8:
        return f"case {draw(w)} in {draw(w)}) {draw(body)};; *) {draw(body)};; esac"
    if choice == 9:
        return draw(
            st.sampled_from(["{ %s; }", "( %s )", "f() { %s; }", "g() ( %s )", "function f { %s; }"])
        ) % draw(body)
    if choice == 10:
        return f"(( {draw(arith(depth + 1))} ))"
    if choice == 11:
        op = draw(st.sampled_from(["==", "!=", "=~", "<", "-eq", "-lt", "-nt", "&&", "||"]))
        return f"[[ {draw(w)} {op} {draw(w)} ]]"
    if choice == 12:
        return f"for (( i=0; i<{draw(small_int)}; i++ )); do {draw(body)}; done"
    return f"{draw(simple_command(depth))} {draw(redirection(depth))}"


@st.composite
def _scripts(draw: st.DrawFn, depth: int = 0) -> str:
    """A list of pipelines joined by ; && || & and newlines."""
    out: list[str] = []
    for _ in range(draw(st.integers(1, 2 if depth else 4))):
        stages = draw(st.lists(command(depth), min_size=1, max_size=2 if depth else 3))
        pipe = " | ".join(stages)
        if draw(st.integers(0, 9)) == 0:
            pipe = "! " + pipe
        out.append(pipe)
        out.append(draw(st.sampled_from(["; ", " && ", " || ", "\n", " & ", "; "])))
    return "".join(out[:-1])


MAX_DEPTH = 2


@cache
def words(depth: int = 0) -> st.SearchStrategy[str]:
    return st.deferred(lambda: _words(depth))


@cache
def arith(depth: int = 0) -> st.SearchStrategy[str]:
    return _arith(depth)


@cache
def redirection(depth: int = 0) -> st.SearchStrategy[str]:
    return _redirection(depth)


@cache
def simple_command(depth: int = 0) -> st.SearchStrategy[str]:
    return _simple_command(depth)


@cache
def command(depth: int = 0) -> st.SearchStrategy[str]:
    return _command(depth)


@cache
def scripts(depth: int = 0) -> st.SearchStrategy[str]:
    return _scripts(depth)


@st.composite
def hostile_scripts(draw: st.DrawFn) -> str:
    """A valid-looking script, sometimes with junk spliced in (so most are
    syntax errors of some kind, at some depth)."""
    text = draw(scripts())
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 2, 3]))):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(JUNK)) + text[at:]
    return text
