"""Prompt-string expansion (${x@P}, PS1/PS4 backslash escapes).

As in bash, the decoded text then goes through parameter expansion, command
substitution and arithmetic expansion when `shopt promptvars` is on (the
default): `${x@P}` with x='$(cmd)' runs cmd, through the executor like any
command substitution, so the policy, limits and audit apply to it. What the
escapes insert (user, host, directory names) is quoted first, so a directory
named `$(cmd)` is shown, not run.
"""

from __future__ import annotations

import time

from ..syntax import ast as A
from ..syntax.errors import ParseError, ParseLimit
from ..syntax.lexer import HEREDOC

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .shell import Shell


def expand_prompt(sh: Shell, text: str) -> str:
    promptvars = bool(sh.state.shopts.get("promptvars", True))
    decoded = _decode(sh, text, promptvars)
    if not promptvars or not ("$" in decoded or "`" in decoded or "\\" in decoded):
        return decoded
    try:
        parts = sh.make_parser(decoded).read_parts(HEREDOC)
    except ParseLimit:
        raise
    except ParseError:
        return decoded  # an unclosed `$(`: bash shows such a prompt as it is
    # bash expands the text as if inside double quotes, where \" is a quote; the here-document
    # reading used here keeps it (an escaped backslash is its own part, so this is exact)
    parts = [
        A.Lit(p.text.replace('\\"', '"')) if isinstance(p, A.Lit) and '\\"' in p.text else p for p in parts
    ]
    status = sh.state.last_status  # bash keeps $? across a prompt's command substitutions
    try:
        return sh.expander.heredoc(A.Word(tuple(parts), 0, decoded))
    finally:
        sh.state.last_status = status


def _quoted(s: str) -> str:
    """An inserted value, safe from the expansion that follows (bash quotes these for double quotes)."""
    return s.replace("\\", "\\\\").replace("$", "\\$").replace("`", "\\`")


def _decode(sh: Shell, text: str, promptvars: bool) -> str:
    ident = sh.rt.identity
    q = _quoted if promptvars else (lambda s: s)
    out: list[str] = []
    i = 0
    n = len(text)
    now = time.localtime(sh.rt.clock())
    while i < n:
        c = text[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        d = text[i + 1]
        i += 2
        if d == "u":
            out.append(q(ident.user))
        elif d in "hH":
            out.append(q(ident.hostname if d == "H" else ident.hostname.split(".")[0]))
        elif d in "wW":
            out.append(q(_directory(sh, d)))
        elif d == "D" and i < n and text[i] == "{":
            close = text.find("}", i + 1)  # (unclosed: bash takes the rest as the format)
            end = close if close >= 0 else n
            out.append(q(time.strftime(text[i + 1 : end] or "%X", now)))
            i = end + 1
        elif d == "r":
            out.append("\r")
        elif d == "$":
            out.append("#" if ident.uid == 0 else q("$"))
        elif d == "s":
            out.append(q(_shell_name(sh)))
        elif d == "v":
            out.append("5.2")
        elif d == "V":
            out.append("5.2.15")
        elif d == "n":
            out.append("\n")
        elif d == "t":
            out.append(time.strftime("%H:%M:%S", now))
        elif d == "T":
            out.append(time.strftime("%I:%M:%S", now))
        elif d == "@":
            out.append(time.strftime("%I:%M %p", now))
        elif d == "A":
            out.append(time.strftime("%H:%M", now))
        elif d == "d":
            out.append(time.strftime("%a %b %d", now))
        elif d == "e":
            out.append("\x1b")
        elif d == "a":
            out.append("\a")
        elif d in "[]":
            pass
        elif d == "\\":
            out.append("\\")
        elif d == "#":
            out.append(str(sh.state.command_number))
        elif d == "!":
            out.append("1")
        elif d == "j":
            out.append(str(len(sh.rt.jobs)))
        elif d in "01234567":
            j = i - 1
            while j < n and j < i + 2 and text[j] in "01234567":
                j += 1
            out.append(chr(int(text[i - 1 : j], 8)))
            i = j
        else:
            out.append("\\" + d)
    return "".join(out)


def _shell_name(sh: Shell) -> str:
    """bash's base_pathname(shell_name): `-c`'s $0 (or BASH_ARGV0's value) names the shell; a
    script file's run keeps the shell's own name until BASH_ARGV0 is assigned."""
    st = sh.state
    name = st.arg0 if st.shell_name is None else st.shell_name
    return name if name == "/" else name.rpartition("/")[2]


def _directory(sh: Shell, letter: str) -> str:
    """\\w and \\W as bash shows them: from $PWD (the working directory when unset); $HOME and what is
    under it as ~ (\\W: only $HOME itself), \\w shortened by PROMPT_DIRTRIM."""
    pwd = sh.get_str("PWD") or sh.state.fs.cwd
    home = sh.get_str("HOME")
    if letter == "W" and (home is None or home != pwd):
        return pwd if pwd in ("/", "//") else pwd.rsplit("/", 1)[-1]
    # (bash's polite_directory_format: a one-character $HOME is no prefix)
    if home and len(home) > 1 and pwd.startswith(home) and pwd[len(home) : len(home) + 1] in ("", "/"):
        pwd = "~" + pwd[len(home) :]
    return _trim(pwd, sh.get_str("PROMPT_DIRTRIM") or "") if letter == "w" else pwd


def _trim(name: str, dirtrim: str) -> str:
    """PROMPT_DIRTRIM's shortening (bash's trim_pathname): past the leading ~/, keep the last N
    components after "..." when what is left out is longer than three characters."""
    try:
        keep = int(dirtrim.strip() or "0")
    except ValueError:
        keep = 0
    if keep <= 0:
        return name
    start = name.find("/") + 1 if name.startswith("~") and "/" in name else 0
    if start == 0 and name.startswith("~"):
        return name
    body = name[start:]
    if body.count("/") < keep:
        return name
    cut = len(body)
    for _ in range(keep):
        cut = body.rfind("/", 0, cut)
        if cut <= 0:
            return name
    if cut <= 3:
        return name
    return name[:start] + "..." + body[cut:]
