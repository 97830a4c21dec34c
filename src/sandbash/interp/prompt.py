"""Prompt-string expansion (${x@P}, PS1/PS4 backslash escapes)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .shell import Shell


def expand_prompt(sh: Shell, text: str) -> str:
    ident = sh.rt.identity
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
            out.append(ident.user)
        elif d in "hH":
            out.append(ident.hostname if d == "H" else ident.hostname.split(".")[0])
        elif d == "w":
            cwd = sh.state.fs.cwd
            home = sh.get_str("HOME") or ""
            out.append("~" + cwd[len(home):] if home and cwd.startswith(home) else cwd)
        elif d == "W":
            cwd = sh.state.fs.cwd
            out.append(cwd.rsplit("/", 1)[-1] or "/")
        elif d == "$":
            out.append("#" if ident.uid == 0 else "$")
        elif d == "s":
            out.append("bash")
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
        elif d == "#" or d == "!":
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
