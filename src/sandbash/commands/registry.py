"""The explicit list of commands and where each is implemented.

Modules are imported on first use, so starting a sandbox for `echo hi` loads
none of them. A command whose module is missing does not exist (status 127).
Custom commands from the embedding program are added with `register()`.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterable

from .context import CommandFn

# command name -> "module:function" (module relative to sandbash.commands)
_TABLE: dict[str, str] = {}


def _add(module: str, names: Iterable[str], func: str | None = None) -> None:
    for name in names:
        fn = func or ("cmd_" + name.replace("-", "_").replace("[", "bracket").replace(".", "_"))
        _TABLE[name] = f"{module}:{fn}"


# files
_add("fileops", ["cp", "mv", "rm", "mkdir", "rmdir", "touch", "ln", "chmod", "chown", "chgrp", "truncate",
                 "install", "mktemp", "shred", "sync"])
_add("ls", ["ls", "dir", "vdir"])
_add("fileinfo", ["stat", "du", "df", "file", "realpath", "readlink", "basename", "dirname", "tree", "pathchk",
                  "mkfifo"])
_add("find", ["find"])
_add("mountcmd", ["mount"])
# text
_add("textbasic", ["cat", "tac", "head", "tail", "tee", "wc", "rev", "nl"])
_add("cut", ["cut"])
_add("tr", ["tr"])
_add("columns", ["paste", "comm", "join", "column", "fold", "fmt", "expand", "unexpand", "pr"])
_add("sort", ["sort"])
_add("uniq", ["uniq"])
_add("shuf", ["shuf"])
_add("encode", ["od", "xxd", "hexdump", "base64", "base32", "basenc", "strings"])
_add("hashsum", ["md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "cksum", "b2sum",
                 "sum"])
_add("diff", ["diff", "cmp", "patch", "diff3", "sdiff"])
_add("misc_text", ["iconv", "numfmt", "tsort", "split", "csplit", "factor"])
# search and edit
_add("grep", ["grep", "egrep", "fgrep", "rg"])
_add("sed", ["sed"])
_add("awk", ["awk", "gawk", "mawk", "nawk"])
_add("jq", ["jq"])
_add("yq", ["yq"])
# shell utilities
_add("shellutils", ["seq", "yes", "sleep", "env", "printenv", "which", "whoami", "id", "groups", "hostname",
                    "uname", "nproc", "tty", "clear", "nohup", "nice", "timeout", "time", "logname", "users",
                    "arch", "uptime", "stty", "tput", "getconf", "mesg", "whatis", "man"])
_add("coreutils_builtins", ["echo", "printf", "test", "[", "true", "false", "pwd", "kill"])
_add("date", ["date", "cal"])
_add("expr", ["expr"])
_add("bc", ["bc", "dc"])
_add("xargs", ["xargs"])
_add("archive", ["tar", "gzip", "gunzip", "zcat", "zip", "unzip", "bzip2", "bunzip2", "bzcat", "xz", "unxz",
                 "xzcat"])
_add("net", ["curl", "wget"])
_add("shells", ["bash", "sh"])

# commands that exist only when the embedding program configures a network
NETWORK_COMMANDS = frozenset({"curl", "wget"})

_CUSTOM: dict[str, CommandFn] = {}
_LOADED: dict[str, CommandFn | None] = {}
_IMPORT_LOCK = threading.RLock()


def register(name: str, fn: CommandFn) -> None:
    """Add (or replace) a command for every sandbox in this process."""
    _CUSTOM[name] = fn


def lookup(name: str) -> CommandFn | None:
    fn = _CUSTOM.get(name)
    if fn is not None:
        return fn
    if name in _LOADED:
        return _LOADED[name]
    target = _TABLE.get(name)
    found: CommandFn | None = None
    if target is not None:
        module_name, func = target.split(":")
        # Pipeline stages load their commands from several threads at once;
        # two threads importing sibling modules of one package can trip the
        # import system's deadlock detector, so lazy loads go one at a time.
        with _IMPORT_LOCK:
            try:
                module = importlib.import_module(f"sandbash.commands.{module_name}")
            except ModuleNotFoundError as e:
                if e.name and e.name.startswith("sandbash.commands."):
                    module = None
                else:
                    raise
        if module is not None:
            found = getattr(module, func, None)
    _LOADED[name] = found
    return found


def names() -> list[str]:
    """Every command that exists (implemented), sorted."""
    return sorted(n for n in set(_TABLE) | set(_CUSTOM) if lookup(n) is not None)


def known(name: str) -> bool:
    return name in _CUSTOM or (name in _TABLE and lookup(name) is not None)
