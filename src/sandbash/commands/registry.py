"""The explicit list of commands and where each is implemented.

Modules are imported on first use, so starting a sandbox for `echo hi` loads
none of them. A command whose module is missing does not exist (status 127).
Custom commands from the embedding program are added with `register()`.

Identity (what the policy decides on, see policy.py): `_add(..., spellings=True)` declares that
the names are spellings of ONE implementation: the first name is the implementation, the others
run the same program with preset options (`egrep` is `grep -E`, `zcat` is `gzip -dc`, `dir` is
`ls -C -b`, `[` is `test` wanting a closing `]`). `uses=` declares a program with a front end of
its own that runs another implementation's engine (`rg` searches with grep's matcher, `sdiff`
runs diff, `basenc` is base64/base32 and more, `cksum -a` computes every digest, `tar -z` compresses).
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterable

from .context import CommandFn

# command name -> "module:function" (module relative to sandbash.commands)
_TABLE: dict[str, str] = {}
# name -> the implementation it spells (only names of a family with several spellings)
_IMPLEMENTATION: dict[str, str] = {}
# name -> the implementations whose engine it runs behind a front end of its own
_USES: dict[str, frozenset[str]] = {}


def _add(module: str, names: Iterable[str], func: str | None = None, *, spellings: bool = False,
         uses: Iterable[str] = ()) -> None:
    names = list(names)
    for name in names:
        fn = func or ("cmd_" + name.replace("-", "_").replace("[", "bracket").replace(".", "_"))
        _TABLE[name] = f"{module}:{fn}"
        if spellings:
            _IMPLEMENTATION[name] = names[0]
        if uses:
            _USES[name] = frozenset(uses)


# files
_add("fileops", ["cp", "mv", "rm", "mkdir", "rmdir", "touch", "ln", "chmod", "chown", "chgrp", "truncate",
                 "install", "mktemp", "shred", "sync"])
_add("ls", ["ls", "dir", "vdir"], spellings=True)
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
_add("encode", ["od", "xxd", "hexdump", "base64", "base32", "strings"])
_add("encode", ["basenc"], uses=["base64", "base32"])
_DIGESTS = ["md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "sum"]
_add("hashsum", _DIGESTS)
_add("hashsum", ["cksum"], uses=_DIGESTS)
_add("diff", ["diff", "cmp", "patch", "diff3"])
_add("diff", ["sdiff"], uses=["diff"])
_add("misc_text", ["iconv", "numfmt", "tsort", "split", "csplit", "factor"])
# search and edit
_add("grep", ["grep", "egrep", "fgrep"], spellings=True)
_add("grep", ["rg"], uses=["grep"])
_add("sed", ["sed"])
_add("awk", ["awk", "gawk", "mawk", "nawk"], spellings=True)
_add("jq", ["jq"])
_add("yq", ["yq"])
# shell utilities
_add("shellutils", ["seq", "yes", "sleep", "env", "printenv", "which", "whoami", "id", "groups", "hostname",
                    "uname", "nproc", "tty", "clear", "nohup", "nice", "timeout", "time", "logname", "users",
                    "arch", "uptime", "stty", "tput", "getconf", "mesg", "whatis", "man"])
_add("coreutils_builtins", ["echo", "printf", "true", "false", "pwd", "kill"])
_add("coreutils_builtins", ["test", "["], spellings=True)
_add("date", ["date", "cal"])
_add("expr", ["expr"])
_add("bc", ["bc", "dc"])
_add("xargs", ["xargs"])
_add("archive", ["zip", "unzip"])
_add("archive", ["gzip", "gunzip", "zcat"], spellings=True)
_add("archive", ["bzip2", "bunzip2", "bzcat"], spellings=True)
_add("archive", ["xz", "unxz", "xzcat"], spellings=True)
_add("archive", ["tar"], uses=["gzip", "bzip2", "xz"])  # -z/-j/-J run the compressors' codecs
_add("net", ["curl", "wget"])
_add("shells", ["bash", "sh"], spellings=True)

# commands that exist only when the embedding program configures a network
NETWORK_COMMANDS = frozenset({"curl", "wget"})

# host mode (sandbash.host): commands that exist only with a HostAccess, and commands that read the
# real machine instead of the sandbox's virtual one there
_add("hostinfo", ["ps", "ss", "ip", "free", "systemctl", "sudo", "ping"])
HOST_COMMANDS = frozenset({"ps", "ss", "ip", "free", "systemctl", "sudo", "ping"})
_HOST_TABLE: dict[str, str] = {n: f"hostinfo:host_{n}" for n in ("uname", "uptime", "df")}

_CUSTOM: dict[str, CommandFn] = {}
_LOADED: dict[str, CommandFn | None] = {}
_IMPORT_LOCK = threading.RLock()


def register(name: str, fn: CommandFn) -> None:
    """Add (or replace) a command for every sandbox in this process."""
    _CUSTOM[name] = fn


def lookup(name: str, host: bool = False) -> CommandFn | None:
    """The command `name` runs; `host`: in host mode (the host's uname, uptime, df)."""
    fn = _CUSTOM.get(name)
    if fn is not None:
        return fn
    if host and name in _HOST_TABLE:
        found = _load(name, _HOST_TABLE[name], f"host:{name}")
        if found is not None:
            return found
    return _load(name, _TABLE.get(name), name)


def _load(name: str, target: str | None, key: str) -> CommandFn | None:
    if key in _LOADED:
        return _LOADED[key]
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
    _LOADED[key] = found
    return found


def names() -> list[str]:
    """Every command that exists (implemented), sorted."""
    return sorted(n for n in set(_TABLE) | set(_CUSTOM) if lookup(n) is not None)


def known(name: str) -> bool:
    return name in _CUSTOM or (name in _TABLE and lookup(name) is not None)


def implementation(name: str) -> str:
    """The implementation a command name spells (`zcat` -> `gzip`); the name itself otherwise."""
    return _IMPLEMENTATION.get(name, name)


def spellings(name: str) -> frozenset[str]:
    """Every name of the implementation `name` spells (itself included)."""
    impl = _IMPLEMENTATION.get(name)
    if impl is None:
        return frozenset({name})
    return frozenset(n for n, i in _IMPLEMENTATION.items() if i == impl)


def engines(name: str) -> frozenset[str]:
    """The implementations whose engine `name` runs behind a front end of its own (`rg` -> grep)."""
    return _USES.get(name, frozenset())


def known_names() -> list[str]:
    """Every name of the table and of the custom commands (loaded or not)."""
    return sorted(set(_TABLE) | set(_CUSTOM))
