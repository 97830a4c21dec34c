"""Session snapshots: a session's whole state as bytes, restored on any host, forked cheaply.

Format (docs/snapshots.md): the magic `SBSNAP`, one version byte, then zlib-compressed JSON (UTF-8,
lone surrogates kept: a variable may hold any bytes). The JSON holds the shell (variables with
their attributes and arrays, functions as their source text, aliases, options, traps, directory
stack, umask, `$RANDOM`'s generator, hash table, positional parameters, completions, ulimits, the
cwd) and the mount table, with an image of every in-memory layer. Never pickle: restoring untrusted
bytes must be as safe as running an untrusted script. So the decoder bounds the compressed and the
inflated size, checks every field's type and size, re-parses function texts with the parser, and
builds files through the filesystem under its quota. Limits, policy, network, identity and host
mounts always come from the restoring `Bash`, never from the snapshot.
"""

from __future__ import annotations

import copy
import json
import time
import zlib
from collections.abc import Callable

from ..builtins.complete import spec_ok
from ..builtins.ulimit import LETTERS as ULIMIT_LETTERS
from ..builtins.ulimit import within_own
from ..interp.executor import hashed_entry_ok
from ..interp.runmode import Disabled
from ..interp.state import AliasTable, CompletionTable, HashTable
from ..shvars.arrays import AssocArray, IndexedArray
from ..shvars.vars import ARRAY, ASSOC, EXPORT, READONLY, Var, params_size, value_size
from ..syntax import ast as A
from ..syntax.parser import Parser
from ..vfs.errors import FsError
from ..vfs.facade import Vfs
from ..vfs.memory import MemoryFs
from ..vfs.mount import MountFs
from ..vfs.ops import FileOp
from ..vfs.overlay import OverlayFs
from ..vfs.quota import DiskQuota
from . import fsimage
from .errors import SnapshotError
from .schema import (
    check_bool,
    check_dict,
    check_int,
    check_list,
    check_str,
    check_str_map,
    json_within,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..api import Bash, Session
    from ..interp.state import ShellState
    from ..limits import Limits
    from ..vfs.base import Backend


def _hash_table(hashed: dict[str, str], hits: dict[str, int], dotted: list[str]) -> HashTable:
    """The snapshot's hash table as the shell keeps it (each entry's hits, as `hash` lists them):
    entries first (0 hits each), then the counts saved with them, then the names a PATH search
    found past `.` (HashTable.dotted: a ./NAME made later runs instead). Not yet charged."""
    table = HashTable(hashed)
    table.hits = {k: hits.get(k, 0) for k in hashed}
    for name in dotted:
        if name in hashed:
            table.mark_dot(name)
    table.created = True  # (as a restored table always was)
    return table


MAGIC = b"SBSNAP"
VERSION = 1
FORMAT = "sandbash.session"
# what a snapshot may hold beyond the restoring sandbox's filesystem quota and session memory
_SLACK = 1 << 20
# identity the restoring host supplies: never taken from a snapshot
_HOST_VARS = frozenset({"UID", "EUID", "PPID", "BASH_VERSINFO", "BASH_VERSION", "BASHPID"})
_MAX_TEXT = 1 << 24


# ---------------------------------------------------------------- capture


def _value(v: Var) -> list[Any]:
    value = v.value
    if value is None:
        return [v.attrs, "u", None]
    if isinstance(value, IndexedArray):
        return [v.attrs, "a", [[i, s] for i, s in value.items()]]
    if isinstance(value, AssocArray):
        return [v.attrs, "A", [[k, s] for k, s in value.items()]]
    return [v.attrs, "s", value]


def _shell(state: ShellState, exited: int | None) -> dict[str, Any]:
    scope = state.vars.globals
    functions = [
        {
            "name": name,
            "text": f.text,
            "line": f.line,
            "exported": name in state.exported_funcs,
            "readonly": name in state.readonly_funcs,
            "source": list(state.func_sources.get(name, ("", 0))),
        }
        for name, f in state.functions.items()
    ]
    rng = state.rng.getstate()
    return {
        "cwd": state.fs.cwd,
        "umask": state.umask,
        "vars": {name: _value(v) for name, v in scope.items()},
        "functions": functions,
        "aliases": dict(state.aliases),
        "traps": dict(state.traps),
        "opts": dict(state.opts),
        "shopts": dict(state.shopts),
        "dirstack": list(state.dirstack),
        "positional": list(state.positional),
        "arg0": state.arg0,
        "last_status": state.last_status,
        "pipestatus": list(state.pipestatus),
        "last_arg": state.last_arg,
        "hashed": dict(state.hashed),
        "hash_hits": dict(getattr(state.hashed, "hits", None) or {}),
        "hash_dotted": sorted(getattr(state.hashed, "dotted", None) or ()),
        "disabled_builtins": sorted(state.disabled_builtins),
        "ulimits": {k: list(v) for k, v in state.ulimits.items()},
        "completions": state.completions,
        "rng": [rng[0], list(rng[1]), rng[2]],
        "random": [state.rand_seed, state.last_random],
        "unspecial": sorted(state.unspecial),
        "table_attrs": {k: _attr_letters(v) for k, v in state.table_attrs.items()},
        "exited": exited,
    }


_TABLE_ATTRS = {"r": READONLY, "x": EXPORT}


def _attr_letters(attrs: int) -> str:
    return "".join(c for c, bit in _TABLE_ATTRS.items() if attrs & bit)


def _letters_attrs(name: str, letters: str) -> int:
    """BASH_CMDS/BASH_ALIASES's -r/-x as a snapshot writes them ("rx"); anything else is refused."""
    if name not in ("BASH_CMDS", "BASH_ALIASES") or not set(letters) <= _TABLE_ATTRS.keys():
        raise SnapshotError(f"table attributes {name[:40]!r}: not ones the shell makes")
    attrs = 0
    for c in letters:
        attrs |= _TABLE_ATTRS[c]
    return attrs


def _layers(backend: Backend, prefix: str = "") -> list[tuple[str, Backend]]:
    """(mount point, backend) of every layer below a MountFs, flattened; a plain backend is '/'."""
    if not isinstance(backend, MountFs):
        return [(prefix or "/", backend)]
    out: list[tuple[str, Backend]] = []
    for m in backend.mounts:
        where = (prefix + m.path) if m.path != "/" else (prefix or "/")
        out.extend(_layers(m.fs, where.replace("//", "/")))
    return out


def _mounts(vfs: Vfs) -> list[dict[str, Any]]:
    out = []
    for where, fs in sorted(_layers(vfs.backend)):
        entry: dict[str, Any] = {"path": where, "fstype": getattr(fs, "fstype", "none")}
        if isinstance(fs, MemoryFs):
            entry["image"] = fsimage.image(fs)
        elif isinstance(fs, OverlayFs):
            entry["image"] = fsimage.image(fs.upper, overlay=fs)
        out.append(entry)
    return out


def snapshot(session: Session) -> bytes:
    """The session's whole state (shell and in-memory files) as bytes. Taken between calls: a
    call running in another thread is waited for."""
    session._take_turn(session.bash.limits, None)
    try:
        doc = {
            "format": FORMAT,
            "version": VERSION,
            "created": time.time(),
            "shell": _shell(session.shell.state, session.exited),
            "mounts": _mounts(session.bash.vfs),
        }
        text = json.dumps(doc, ensure_ascii=False, separators=(",", ":"))
    finally:
        session._give_turn()
    return MAGIC + bytes([VERSION]) + zlib.compress(text.encode("utf-8", "surrogatepass"), 6)


# ---------------------------------------------------------------- decode


def max_snapshot_bytes(bash: Bash) -> int:
    """The largest inflated snapshot this sandbox accepts: its files and its session memory, and some."""
    lim = bash.limits
    files = sum(
        fs.quota.max_bytes for _, fs in _layers(bash.vfs.backend) if isinstance(fs, (MemoryFs, OverlayFs))
    )
    # base64 and JSON framing inflate file contents by a third; variables by their quoting
    return int(files * 1.4) + 2 * int(lim.max_session_memory) + _SLACK


def max_snapshot_values(bash: Bash) -> int:
    """The most JSON values a snapshot for this sandbox may hold. Each decoded value costs Python
    up to ~72 bytes whatever its text (`[],` is 3 bytes, an empty list 56 plus its slot), so a
    snapshot within max_snapshot_bytes could still inflate twentyfold as it is decoded. What a real
    one holds is bounded by what restoring charges: an array element (3 values) costs at least
    ELEMENT_OVERHEAD (136 bytes) of session memory, a variable (5) VAR_OVERHEAD (160); a file
    entry is about 20 values (its fields, up to max_files), and the lists _apply_shell bounds by
    restored_entries bounds hold a few each (a function entry ~16, an alias 2, a parameter 1)."""
    lim = bash.limits
    layers = _layers(bash.vfs.backend)
    files = sum(fs.quota.max_files for _, fs in layers if isinstance(fs, (MemoryFs, OverlayFs)))
    return int(lim.max_session_memory) // 32 + 32 * files + 24 * restored_entries(lim) + _SLACK_VALUES


_SLACK_VALUES = 1 << 16


def restored_entries(lim: Limits) -> int:
    """How many variables, functions, aliases and positional parameters a snapshot may give a
    session: what the session may keep, at 1 KiB an entry (a variable or a function costs more of
    max_session_memory than that once restored), with a floor for small budgets. A bound of its
    own: it was max_array_elements, which kept that limit from being raised without letting a
    snapshot hold 24 decoded values (~1.7 KB of Python) per element more."""
    return max(20_000, int(lim.max_session_memory) // 1024)


def decode(data: bytes, limit: int, max_values: int | None = None) -> dict[str, Any]:
    """The checked JSON document of a snapshot (SnapshotError for anything else). `max_values`
    bounds the values it may hold (max_snapshot_values): checked before decoding, which would
    otherwise build them all."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise SnapshotError("a snapshot is bytes")
    data = bytes(data)
    if not data.startswith(MAGIC) or len(data) < len(MAGIC) + 1:
        raise SnapshotError("not a sandbash session snapshot")
    version = data[len(MAGIC)]
    if version != VERSION:
        raise SnapshotError(
            f"snapshot format version {version} is not supported (this sandbash reads {VERSION})"
        )
    if len(data) > limit:
        raise SnapshotError(f"snapshot larger than this sandbox accepts ({limit} bytes)")
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(data[len(MAGIC) + 1 :], limit + 1)
    except zlib.error:
        raise SnapshotError("snapshot damaged: not valid compressed data") from None
    if len(raw) > limit or inflater.unconsumed_tail:
        raise SnapshotError(f"snapshot inflates past what this sandbox accepts ({limit} bytes)")
    if not inflater.eof:
        raise SnapshotError("snapshot damaged: truncated")
    if max_values is not None and not json_within(raw, max_values):
        raise SnapshotError(f"snapshot holds more values than this sandbox accepts ({max_values})")
    try:
        doc = json.loads(raw.decode("utf-8", "surrogatepass"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise SnapshotError("snapshot damaged: not valid JSON") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("version") != VERSION:
        raise SnapshotError("not a sandbash session snapshot (format field)")
    return doc


# ---------------------------------------------------------------- restore


def _fs_plan(bash: Bash, mounts: object) -> list[tuple[Backend, MemoryFs, set[str] | None]]:
    """Check the snapshot's mount table against this sandbox's and build each in-memory layer
    (nothing is changed yet): (target backend, new tree, whiteouts)."""
    here = dict(_layers(bash.vfs.backend))
    gate = bash.vfs.gate  # (the policy and the audit of this sandbox's own file calls)
    plan: list[tuple[Backend, MemoryFs, set[str] | None]] = []
    for i, m in enumerate(check_list(mounts, "mounts", 256)):
        entry = check_dict(m, f"mount {i}", 8)
        path = check_str(entry.get("path"), f"mount {i} path", 4096)
        fstype = check_str(entry.get("fstype"), f"mount {i} type", 64)
        target = here.get(path)
        if target is None or getattr(target, "fstype", "none") != fstype:
            raise SnapshotError(
                f"the snapshot needs a {fstype} mount at {path}, which this sandbox does not have"
            )
        img = entry.get("image")
        if img is None:
            continue  # host-backed: the data stays on the host
        if isinstance(target, MemoryFs):
            plan.append((target, fsimage.build(img, target.quota, target), None))
        elif isinstance(target, OverlayFs):
            top = path.rstrip("/")
            may_read = None if gate is None else lambda p, top=top: gate(FileOp.READ, top + p)  # type: ignore[misc]
            new = fsimage.build(img, target.quota, target.upper, lower=target, may_read=may_read)
            plan.append((target, new, fsimage.whiteouts(img, target.quota.max_files)))  # type: ignore[arg-type]
        else:
            raise SnapshotError(
                f"mount {path}: this sandbox keeps it on the host; the snapshot has its files"
            )
    return plan


def _apply_fs(plan: list[tuple[Backend, MemoryFs, set[str] | None]]) -> Callable[[], None]:
    """Swap the planned trees in; returns what puts the old ones back."""
    undo: list[Callable[[], None]] = []
    for target, new, whiteouts in plan:
        if isinstance(target, OverlayFs):
            undo.append(fsimage.swap_in(target.upper, new))
            old_whiteouts = target.whiteouts
            target.whiteouts = whiteouts or set()
            undo.append(lambda t=target, w=old_whiteouts: setattr(t, "whiteouts", w))  # type: ignore[misc]
        else:
            assert isinstance(target, MemoryFs)
            undo.append(fsimage.swap_in(target, new))

    def back() -> None:
        for step in reversed(undo):
            step()

    return back


def _var(name: str, raw: object, limit: int) -> Var:
    item = check_list(raw, f"variable {name[:40]}", 3)
    if len(item) != 3:
        raise SnapshotError(f"variable {name[:40]}: expected [attributes, kind, value]")
    attrs = check_int(item[0], f"variable {name[:40]} attributes", 0, (1 << 12) - 1)
    kind, value = item[1], item[2]
    if kind == "u":
        return Var(None, attrs)
    if kind == "s":
        return Var(check_str(value, f"variable {name[:40]}", limit), attrs)
    if kind == "a":
        arr = IndexedArray()
        for pair in check_list(value, f"array {name[:40]}", limit):
            p = check_list(pair, f"array {name[:40]} element", 2)
            arr.set(
                check_int(p[0] if p else None, f"array {name[:40]} index", 0, (1 << 63) - 1),
                check_str(p[1] if len(p) > 1 else None, f"array {name[:40]} element", limit),
            )
        return Var(arr, attrs | ARRAY)
    if kind == "A":
        assoc = AssocArray()
        for pair in check_list(value, f"array {name[:40]}", limit):
            p = check_list(pair, f"array {name[:40]} element", 2)
            assoc.set(
                check_str(p[0] if p else None, f"array {name[:40]} key", limit),
                check_str(p[1] if len(p) > 1 else None, f"array {name[:40]} element", limit),
            )
        return Var(assoc, attrs | ASSOC)
    raise SnapshotError(f"variable {name[:40]}: unknown kind")


def _function(
    raw: object, extglob: bool, aliases: dict[str, str], tick: Callable[[], None]
) -> tuple[A.FuncDef, dict[str, Any]]:
    tick()
    entry = check_dict(raw, "function", 8)
    name = check_str(entry.get("name"), "function name", 4096)
    text = check_str(entry.get("text"), f"function {name[:40]}", _MAX_TEXT)
    try:
        tree = Parser(text, aliases=aliases, extglob=extglob, tick=tick).parse_all()
    except SnapshotError:
        raise  # (the restore's deadline, from tick)
    except Exception:  # the parser's own errors: a damaged or hostile text
        raise SnapshotError(f"function {name[:40]}: its text does not parse") from None
    items = tree.items
    node = items[0].cmd if len(items) == 1 and not items[0].background else None
    if not isinstance(node, A.FuncDef) or node.name != name:
        raise SnapshotError(f"function {name[:40]}: its text is not one definition of it")
    line = check_int(entry.get("line", 0), f"function {name[:40]} line", 0, 1 << 31)
    return A.FuncDef(node.name, node.body, line, node.text, node.keyword), entry


def _apply_shell(session: Session, doc: object) -> None:
    bash = session.bash
    shell = check_dict(doc, "shell", 64)
    state = session.shell.state
    lim = bash.limits
    text_limit = int(lim.max_string_length)
    count_limit = restored_entries(lim)
    raw_vars = check_dict(shell.get("vars"), "variables", count_limit)
    aliases = check_str_map(shell.get("aliases", {}), "aliases", count_limit, text_limit)
    shopts = check_dict(shell.get("shopts", {}), "shell options", 256)
    opts = check_dict(shell.get("opts", {}), "set options", 256)
    for table, what in ((shopts, "shopt"), (opts, "set -o")):
        for k, v in table.items():
            check_bool(v, f"{what} {k[:40]}")
    # build everything first: a bad field leaves the session untouched
    new_vars = {name: _var(name, raw, text_limit) for name, raw in raw_vars.items() if name not in _HOST_VARS}
    extglob = bool(shopts.get("extglob", state.shopts.get("extglob", False)))
    # parsing the functions is the restore's one costly step (a few ms each): bounded by the
    # sandbox's timeout, as a run's parse is (20,000 functions of 500 words took over 2 minutes)
    deadline = time.monotonic() + float(lim.timeout)

    def tick() -> None:
        if time.monotonic() > deadline:
            raise SnapshotError(f"restoring took longer than this sandbox's timeout ({lim.timeout:g} s)")

    funcs = [
        _function(f, extglob, aliases, tick)
        for f in check_list(shell.get("functions", []), "functions", count_limit)
    ]
    traps = check_str_map(shell.get("traps", {}), "traps", 128, text_limit)
    dirstack = [
        check_str(d, "directory stack", 4096)
        for d in check_list(shell.get("dirstack", []), "directory stack", 10_000)
    ]
    positional = [
        check_str(a, "positional parameter", text_limit)
        for a in check_list(shell.get("positional", []), "positional parameters", count_limit)
    ]
    hashed = check_str_map(shell.get("hashed", {}), "hash table", 10_000, 4096)
    for hname, hvalue in hashed.items():
        kind, _, where = hvalue.partition(":")
        if not hname or not hashed_entry_ok(kind, where):
            raise SnapshotError(f"hash table entry {hname[:40]!r}: not one the shell makes")
    hash_hits = {
        k: check_int(v, "hash table hits", 0, 2**31 - 1)
        for k, v in check_dict(shell.get("hash_hits", {}), "hash table hits", 10_000).items()
    }
    hash_dotted = [
        check_str(n, "hash table name", 4096)
        for n in check_list(shell.get("hash_dotted", []), "hash table names", 10_000)
    ]
    hash_table = _hash_table(hashed, hash_hits, hash_dotted)
    alias_table = AliasTable(aliases)
    completions = CompletionTable()
    for cname, spec in check_dict(shell.get("completions", {}), "completions", count_limit).items():
        if not cname or len(cname) > text_limit or not spec_ok(spec, text_limit):
            raise SnapshotError(f"completion {cname[:40]!r}: not one complete makes")
        completions[cname] = {o: list(w) for o, w in spec.items()}  # type: ignore[attr-defined]
    ulimits = within_own(_ulimits(shell.get("ulimits", {})), lim)
    cwd = check_str(shell.get("cwd"), "cwd", 4096)
    umask = check_int(shell.get("umask", 0o022), "umask", 0, 0o777)
    last_status = check_int(shell.get("last_status", 0), "last status", 0, 255)
    # PIPESTATUS of the last pipeline (a snapshot without it: the last status alone)
    pipestatus = [
        check_int(n, "pipe status", 0, 255)
        for n in check_list(shell.get("pipestatus", [last_status]), "pipe statuses", count_limit)
    ]
    exited = shell.get("exited")
    if exited is not None:
        exited = check_int(exited, "exit status", 0, 255)
    rng_raw = check_list(shell.get("rng"), "random state", 3)
    try:
        state.rng.setstate((rng_raw[0], tuple(check_list(rng_raw[1], "random state", 700)), rng_raw[2]))  # type: ignore[arg-type]
    except (TypeError, ValueError, IndexError, OverflowError):
        raise SnapshotError("random state: not a generator state") from None
    rand = check_list(shell.get("random", [None, 0]), "$RANDOM state", 2)
    rand_seed = None if not rand or rand[0] is None else check_int(rand[0], "$RANDOM seed", 0, 0xFFFFFFFF)
    last_random = check_int(rand[1] if len(rand) > 1 else 0, "$RANDOM last value", 0, 32767)
    table_attrs = {
        k: _letters_attrs(k, v)
        for k, v in check_str_map(shell.get("table_attrs", {}), "table attributes", 2, 2).items()
    }
    unspecial = {
        check_str(n, "unset dynamic variable", 64)
        for n in check_list(shell.get("unspecial", []), "unset dynamic variables", 64)
    }
    size = sum(value_size(v.value) + 160 for v in new_vars.values()) + sum(len(f.text) * 4 for f, _ in funcs)
    params = params_size(positional)  # (kept between runs as variables are: Session.held)
    size += params
    # what the alias, hash and completion tables will charge to the account as they adopt them
    table_size = alias_table.total() + hash_table.total() + completions.total()
    if size + table_size > lim.max_session_memory:
        raise SnapshotError(
            f"the snapshot's shell state ({size + table_size} bytes) is over this sandbox's max_session_memory"
        )
    if not _is_dir(bash, cwd):
        raise SnapshotError(f"cwd {cwd[:80]}: not a directory in the restored filesystem")

    # now apply
    scope = state.vars.globals
    keep = {name: scope[name] for name in _HOST_VARS if name in scope}
    state.vars.charge(scope, -scope.nbytes())
    scope.clear()
    state.vars.charge(scope, size - params)  # (the parameters are charged as they are set, below)
    scope.update(new_vars)
    scope.update(keep)
    state.vars.readonly_names = {n for n, v in scope.items() if v.attrs & READONLY}
    for fn in list(state.functions):
        del state.functions[fn]
    state.exported_funcs.clear()
    state.readonly_funcs.clear()
    state.func_sources.clear()
    for node, entry in funcs:
        state.functions[node.name] = node
        if entry.get("exported") is True:
            state.exported_funcs.add(node.name)
        if entry.get("readonly") is True:
            state.readonly_funcs.add(node.name)
        src = entry.get("source")
        if (
            isinstance(src, list)
            and len(src) == 2
            and isinstance(src[0], str)
            and type(src[1]) is int
            and src[0]
        ):
            state.func_sources[node.name] = (src[0], src[1])
    # each table replaces the shell's own: the old one gives its charge back, the new one takes it
    state.aliases.clear()
    state.aliases = alias_table
    state.hashed.clear()
    state.hashed = hash_table
    state.completions.clear()
    state.completions = completions
    alias_table.adopt(state.vars.acct)
    hash_table.adopt(state.vars.acct)
    completions.adopt(state.vars.acct)
    state.traps.clear()
    state.traps.update(traps)
    state.opts.update({k: bool(v) for k, v in opts.items() if k in state.opts})
    state.shopts.update({k: bool(v) for k, v in shopts.items() if k in state.shopts})
    state.dirstack = dirstack
    state.set_positional(positional)
    state.arg0 = check_str(shell.get("arg0", "bash"), "$0", 4096)
    state.last_status = last_status
    state.pipestatus = pipestatus
    state.last_arg = check_str(shell.get("last_arg", ""), "$_", text_limit)
    state.disabled_builtins = Disabled(
        state.run_mode,
        (
            check_str(b, "disabled builtin", 64)
            for b in check_list(shell.get("disabled_builtins", []), "disabled builtins", 256)
        ),
    )
    state.rand_seed, state.last_random, state.unspecial = rand_seed, last_random, unspecial
    state.table_attrs = table_attrs
    state.vars.readonly_names.update(k for k, v in table_attrs.items() if v & READONLY)
    state.ulimits = ulimits
    state.umask = umask
    state.fs.umask = umask
    state.fs.cwd = cwd
    state.args_version += 1
    session.exited = exited


def _ulimits(raw: object) -> dict[str, tuple[int | None, int | None]]:
    """The snapshot's `ulimit` table: a letter ulimit knows to [soft, hard], each a number or null
    (unlimited). Restored as ulimit.within_own bounds it: never above the restoring sandbox's."""
    table: dict[str, tuple[int | None, int | None]] = {}
    for letter, pair in check_dict(raw, "ulimits", len(ULIMIT_LETTERS)).items():
        if letter not in ULIMIT_LETTERS:
            raise SnapshotError(f"ulimit {letter[:8]!r}: not a limit ulimit sets")
        values = check_list(pair, f"ulimit -{letter}", 2)
        if len(values) != 2:
            raise SnapshotError(f"ulimit -{letter}: expected [soft, hard]")
        soft, hard = (
            None if v is None else check_int(v, f"ulimit -{letter}", 0, (1 << 63) - 1) for v in values
        )
        table[letter] = (soft, hard)
    return table


def _is_dir(bash: Bash, path: str) -> bool:
    """Whether `path` is a directory of the restored tree (asked of the filesystem itself: the
    policy decides the session's own operations later, not whether the snapshot fits)."""
    try:
        return bash.vfs.tree.lstat(path).is_dir
    except FsError:
        return False


def restore(bash: Bash, data: bytes) -> Session:
    """A session of `bash` holding the snapshot's state: its in-memory files replace this
    sandbox's (so restore into a `Bash` made for it), its shell becomes the session's."""
    doc = decode(data, max_snapshot_bytes(bash), max_snapshot_values(bash))
    plan = _fs_plan(bash, doc.get("mounts"))
    undo = _apply_fs(plan)
    try:
        session = bash.session()
        _apply_shell(session, doc.get("shell"))
    except BaseException:
        undo()  # the shell part was refused (or a limit hit): the files are as they were
        raise
    return session


# ---------------------------------------------------------------- fork


def _memory_twin(fs: MemoryFs) -> MemoryFs:
    """An empty memory tree with `fs`'s quota limits, clock and owner."""
    return MemoryFs(
        quota=DiskQuota(fs.quota.max_bytes, fs.quota.max_files), clock=fs.clock, uid=fs.uid, gid=fs.gid
    )


def _clone_backend(fs: Backend) -> Backend:
    """An empty twin of a layer: memory layers get their own tree (same quota limits); host-backed
    layers are the same host data, shared."""
    if isinstance(fs, MemoryFs):
        return _memory_twin(fs)
    if isinstance(fs, OverlayFs):
        twin = copy.copy(fs)
        twin.upper = _memory_twin(fs.upper)  # the overlay's quota, owner and clock are its upper layer's
        twin.quota = twin.upper.quota
        twin.lock = twin.upper.lock
        twin.whiteouts = set()
        return twin
    if isinstance(fs, MountFs):
        root = fs.mounts[[m.path for m in fs.mounts].index("/")]
        new = MountFs(_clone_backend(root.fs), read_only=root.read_only)
        for m in fs.mounts:
            if m.path != "/":
                new.mount(m.path, _clone_backend(m.fs), m.read_only, m.source, m.fstype)
        return new
    return fs


def twin(bash: Bash) -> Bash:
    """A `Bash` configured as `bash` (limits, policy, audit, network, identity, custom commands,
    host-backed mounts) with empty in-memory layers of its own."""
    from ..commands import registry
    from ..vfs.bindir import SHELL_NAMES, mount_command_dirs

    new = copy.copy(bash)
    vfs = bash.vfs
    seed = None if bash.seed is None else vfs.rng.getrandbits(64)
    new.vfs = Vfs(_clone_backend(vfs.backend), uid=vfs.uid, gid=vfs.gid, clock=vfs.clock, seed=seed)
    new.vfs.gate, new.vfs.gate_entries = vfs.gate, vfs.gate_entries
    mount_command_dirs(new.vfs.tree, new._command_listed, lambda: [*SHELL_NAMES, *registry.known_names()])
    return new


def fork(session: Session) -> Session:
    """An independent copy of the session: its own shell and its own in-memory files (host-backed
    mounts stay shared, as the host's data is), under the same limits, policy and network."""
    return restore(twin(session.bash), snapshot(session))
