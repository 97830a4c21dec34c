"""Policy: what a script may do, decided in one place for the executor, the Vfs and the network.

A `Policy` is pure data plus rule matching:

- **commands**: an allow list and a deny list (deny wins). No allow list means every command. The
  shell's own builtins (`cd`, `echo`, `export`, `eval`, ...) are implicitly allowed because whatever
  they reach goes back through a gate; a deny list entry still refuses them. Functions defined by
  the script need no allow-list entry (their bodies are decided command by command), but a denied
  name is refused whatever it resolves to. A command given by path (`/bin/cat`) is decided by its
  base name.
  **What is decided is what really runs**: the executor resolves the hash table, PATH, `command`,
  `builtin`, `exec`, `env`/`nice`/`nohup`/`timeout`/`xargs`/`find -exec` (each sub-command goes
  back through the gate), aliases and functions first, and passes the program that will run
  (`hash -p /bin/rm cat; cat f` is decided, audited and shown to `decide` as `rm`, with argv
  `[cat, f]` as rm sees it); a shebang interpreter (`#!/bin/rm`, and `env` plus its PROG in
  `#!/usr/bin/env PROG`) is decided like any command before the script runs.
  **A rule names an implementation, not a spelling** (one source of truth: the command registry's
  declarations and the builtins table, see `command_family`):
  - *spellings* are names that run one implementation with preset options (`egrep`=`grep -E`,
    `zcat`=`gzip -dc`, `dir`/`vdir`=`ls`, `[`=`test`, `gawk`/`mawk`/`nawk`=`awk`, `sh`=`bash`)
    or one builtin function (`.`=`source`, `typeset`/`local`=`declare`, `readarray`=`mapfile`);
  - a *deny* entry refuses every spelling of its implementation (an entry naming sandbash's own
    command by a command directory, `/bin/rm`, names that command: `rm` and `/usr/bin/rm` are
    refused too; any other path is decided as that path), and every program whose own
    front end runs that implementation's engine (`rg` for grep, `sdiff` for diff, `basenc` for
    base64/base32, `cksum` for the digests, `tar` for the compressors): whatever a denied program
    does, no other name does it instead;
  - an *allow* entry naming an implementation (`grep`, `gzip`) allows its spellings (they do
    nothing it cannot do), but naming a spelling (`zcat`) allows that spelling only, and no
    allow entry reaches a program with a front end of its own (`grep` does not allow `rg`: other
    defaults, recursion, ignore files). Builtin spellings are the same function: any allows all.
    A path is read as a deny entry's is: `/usr/bin/jq` allows sandbash's `jq` (as `jq` would),
    any other path the script at that canonical path.
  `decide` sees `target` = the implementation that runs (`grep` for `egrep`, `rm` for the hashed
  `cat`, the script's path for a script) and `argv` as the program receives it.
- **paths**: grants such as `/data:ro` and `/workspace:rw`. The last `:ro`/`:rw` is the mode (no
  suffix means `ro`); the most specific grant covering a canonical path decides; when the same path
  is granted twice, `ro` wins (a read-only alias never widens writes). With grants, a path no grant
  covers is denied. `paths=None` means no path restriction. Always allowed: reading and writing
  the devices under `/dev` (in every mode; removing, renaming or chmod there is refused, and
  the Vfs refuses new entries),
  and `stat` of the directories above a grant and of the command directories (so `cd`, `[ -d ]`
  and command lookup work). A rename or removal is refused when a stricter grant lies inside the
  path (`/workspace:rw` with `/workspace/.git:ro`: `mv /workspace /w2` and `rm -r /workspace`
  are refused, so the read-only tree cannot be moved out of its grant and rewritten); so is a
  new symbolic link there (`symlink`). A grant whose path runs through a link also covers where
  the link leads (`Policy.effective(vfs)`).
- **mode**: `read-only` refuses every write-like action (write, create, delete, rename, chmod,
  link, symlink); `remediation` allows them where a `:rw` grant covers the path (or everywhere without
  grants). `mode=None` keeps the host mounts read-only and decides every other path (in memory:
  `/tmp`, a home that is not a host mount) as remediation does (`Policy.effective(vfs)` records
  the host mount points). `Policy.warnings` says when a `:rw` grant cannot write for that reason.
- **decide**: a host callback `decide(Action) -> Decision | bool | (bool, reason) | None` consulted
  for every action the static rules allow (a static denial is final): `shell:exec` (argv after
  expansion, sub-commands included), `fs:<action>` (canonical path), `http:request` (method, URL)
  and `net:connect`. `None` abstains (allow); an exception denies (fail closed). A directory
  renamed in one step moves every entry below it: `decide` is asked about each one (`fs:rename`,
  old and new path), so a name it refuses is never carried out from under its rule.

A `Gate` binds a policy to one audit `Recorder` and hands out the hooks: `gate.command`
(Runtime.policy_gate), `gate.fs` (the gate of a run's `Vfs.bind`), `gate.net`/`gate.net_audit`
(NetworkConfig.gate/audit, see `attach_network`). Every decision is recorded as an audit event.
`Bash` keeps one Gate for its own file calls and gives each run `gate.bind(recorder)`: a Gate is
never shared by two runs (docs/threat-model.md, T-TEN-1).

Wiring still to add outside this module (interp/, builtins/, vfs/, net/ are not owned here);
`Bash` (api.py) already sets `runtime.audit` (a `Recorder`) and `runtime.policy_gate` (this `Gate`,
or None) on every run, and installs `gate.command` as `Runtime.command_gate` and `gate.fs` as
`Vfs.gate`:
1. First word (executor.exec_simple): expand ONLY `cmd.words[0]` first; if it gives a name, resolve
   its kind ("function" | "builtin" | "command" | "script" | "shell" | "" for not found) and call
   `gate.command_name(name, kind)`; on a message print `bash: NAME: <message>` (err_prefix) and
   return 126 WITHOUT expanding the other words, the assignments or the redirections (so a refused
   command cannot trigger `$(...)`). Then expand the rest as today.
2. dispatch(): call `gate.command(argv, kind)` with the kind it resolved (function, builtin, ...):
   a function needs no allow-list entry, a builtin is implicit. Until then functions are refused
   under an allow list. `exec CMD ARGS` (builtins/core.py calls run_external directly) and
   `builtin NAME ARGS` (calls the builtin directly) must go through the gate as well.
3. Command events: `cid = runtime.audit.command_start(argv, kind)` before a command runs (refused
   ones included) and `runtime.audit.command_end(cid, status)` after.
4. Discovery: `type`, `command -v/-V`, `which` and `hash` report a name `gate.visible(name, kind)`
   refuses as not found; `help` without arguments appends `gate.help_text(names)` (available now,
   needing remediation mode, denied).
5. Vfs (facade.py): call the gate before existence checks (today `stat`/`open` of a missing path in
   a denied directory say ENOENT: a denied path is not refused and its existence leaks);
   `link(src, dst)` gates `("read", src)` too; `readlink` gates `("stat", path)`; running a script
   file may gate `("exec", path)` and `source` `("source", path)` (both decided like a read).
   `source` of a refused path prints "No such file or directory"; it should say "Permission denied".
6. Network: done (`gate.attach_network` in `Bash`); the client may also call
   `config.gate("net:connect", url)` with the address it connects to, for `decide`.
7. Limits: a limit that ends the run is recorded by `Bash`; others (a sub-command's timeout) can
   be recorded with `runtime.audit.limit(name, value, message)`.
"""

from __future__ import annotations

import errno
import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from .audit import DECISION, Recorder, bounded_text
from .host.services import SERVICE_ACTIONS, SERVICE_WRITES, UNIT_SUFFIXES
from .vfs.ops import READ_OPS, SUBTREE_OPS, WRITE_OPS, FileOp

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

READ_ONLY = "read-only"
REMEDIATION = "remediation"
MODES = (READ_ONLY, REMEDIATION)

# the Vfs actions (vfs/ops.py): "exec"/"source" are the reads of a script file that is run or sourced
READ_ACTIONS = READ_OPS
WRITE_ACTIONS = WRITE_OPS
FS_ACTIONS = READ_OPS | WRITE_OPS
SUBTREE_ACTIONS = SUBTREE_OPS

_FS_KINDS = {op: f"fs:{op}" for op in FileOp}  # an action's audit and `decide` name

# where commands are looked up: `stat` there is always allowed so lookup works under grants
COMMAND_DIRS = ("/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin", "/usr/local/sbin")
DEVICES = "/dev"
HOST_FSTYPES = frozenset({"overlay", "hostfs"})

# rule ids: stable strings for messages, audit events and tests
RULE_DENY = "commands.deny"
RULE_ALLOW = "commands.allow"
RULE_ALL = "commands.all"
RULE_BUILTIN = "commands.builtin"
RULE_FUNCTION = "commands.function"
RULE_NO_GRANT = "paths.no-grant"
RULE_RO_GRANT = "paths.read-only"
RULE_GRANT = "paths.grant"
RULE_NO_PATHS = "paths.unrestricted"
RULE_READ_ONLY = "mode.read-only"
RULE_RO_INSIDE = "paths.read-only-inside"
RULE_DEVICES = "paths.devices"
RULE_IMPLICIT = "paths.implicit"
RULE_DECIDE = "decide"
RULE_DECIDE_ERROR = "decide.error"


class PolicyError(ValueError):
    """A policy that cannot be built (bad TOML, unknown mode, malformed grant)."""


@dataclass(frozen=True)
class Decision:
    allowed: bool
    rule: str
    reason: str = ""

    @staticmethod
    def allow(rule: str, reason: str = "") -> Decision:
        return Decision(True, rule, reason)

    @staticmethod
    def deny(rule: str, reason: str = "") -> Decision:
        return Decision(False, rule, reason)


@dataclass(frozen=True)
class Action:
    """What `decide` is asked about. kind: `shell:exec`, `fs:read` (etc.), `http:request`,
    `net:connect`; target: the command name, canonical path or URL. `dry_run` is True when the
    static check asks (nothing will happen)."""

    kind: str
    target: str
    argv: tuple[str, ...] = ()
    method: str = ""
    url: str = ""
    dry_run: bool = False

    @property
    def path(self) -> str:
        return self.target if self.kind.startswith("fs:") else ""


DecideResult = Decision | bool | tuple[bool, str] | None
Decide = Callable[[Action], DecideResult]


def normpath(path: str) -> str:
    """Lexical normalisation of an absolute path (`//`, `.`, `..`, trailing `/`)."""
    parts: list[str] = []
    for piece in path.split("/"):
        if piece in ("", "."):
            continue
        if piece == "..":
            if parts:
                parts.pop()
            continue
        parts.append(piece)
    return "/" + "/".join(parts)


def _is_normal(path: str) -> bool:
    """Whether normpath(path) is `path` itself: absolute, no empty, '.' or '..' name, no
    trailing slash (a conservative test: '/.x' is normal but answers False)."""
    return path[:1] == "/" and "//" not in path and "/." not in path and (path == "/" or path[-1] != "/")


def under(path: str, root: str) -> bool:
    """`path` is `root` or inside it (both normalised)."""
    return root == "/" or path == root or path.startswith(root + "/")


@dataclass(frozen=True)
class PathGrant:
    path: str
    writable: bool
    via: str = ""  # the grant naming this path through a symbolic link (added by Policy.effective)

    @staticmethod
    def parse(spec: str) -> PathGrant:
        head, sep, tail = spec.rpartition(":")
        writable = False
        if sep and tail in ("ro", "rw"):
            spec, writable = head, tail == "rw"
        if not spec.startswith("/"):
            raise PolicyError(f"path grant '{spec}': expected an absolute path with an optional :ro or :rw")
        if "\0" in spec:
            raise PolicyError("path grant: NUL byte in path")
        return PathGrant(normpath(spec), writable)

    @property
    def spec(self) -> str:
        return f"{self.path}:{'rw' if self.writable else 'ro'}"


def _names(value: Iterable[str] | str | None) -> frozenset[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = split_list(value)
    return frozenset(command_grant(v) for v in value if v.strip())


NAMESPACE = "rshell"  # rshell's command grants are namespaced: `rshell:cat` is the grant `cat`


def command_grant(entry: str) -> str:
    """A command list entry: `rshell:cat` and `cat` are the same grant; any other namespace is a
    configuration error (as rshell refuses it), so is an empty name after the namespace."""
    entry = entry.strip()
    ns, sep, name = entry.partition(":")
    if not sep or not ns:  # `:` (the builtin) and other names that start with a colon are plain names
        return entry
    if ns != NAMESPACE:
        raise PolicyError(
            f'commands: "{entry}" has unknown namespace "{ns}" (only "{NAMESPACE}" is supported)'
        )
    if not name or (":" in name and name != ":"):
        raise PolicyError(f'commands: "{entry}": expected "{NAMESPACE}:<command>"')
    return name


# ------------------------------------------------------------ services and elevation (host mode)

RULE_SERVICE = "services.grant"
RULE_NO_SERVICE = "services.no-grant"
RULE_SERVICE_MODE = "services.remediation"
RULE_ELEVATE = "elevation.allowed"
RULE_NOT_ELEVATABLE = "elevation.not-elevatable"
RULE_ELEVATE_CHECK = "elevation.check"


@dataclass(frozen=True)
class ServiceGrant:
    """One systemd unit and the exact actions allowed on it: `ServiceGrant("nginx.service",
    ["status", "restart"])`. The unit is named in full (with its suffix), as rshell requires."""

    unit: str
    actions: tuple[str, ...]

    def __init__(self, unit: str, actions: Iterable[str]) -> None:
        acts = (actions,) if isinstance(actions, str) else tuple(actions)
        if not unit.endswith(UNIT_SUFFIXES) or "/" in unit or len(unit) > 256:
            raise PolicyError(f"service grant '{unit}': expected a full unit name such as nginx.service")
        bad = [a for a in acts if a not in SERVICE_ACTIONS]
        if bad or not acts:
            raise PolicyError(
                f"service grant '{unit}': unknown action(s) {', '.join(bad) or '(none)'} "
                f"(expected {', '.join(SERVICE_ACTIONS)})"
            )
        object.__setattr__(self, "unit", unit)
        object.__setattr__(self, "actions", tuple(dict.fromkeys(acts)))

    @staticmethod
    def parse(spec: str) -> ServiceGrant:
        """`nginx.service:status+restart` (the TOML/CLI form; help shows grants the same way)."""
        unit, sep, acts = spec.rpartition(":")
        if not sep:
            raise PolicyError(f"service grant '{spec}': expected UNIT:ACTION[+ACTION...]")
        return ServiceGrant(unit, acts.split("+"))

    @property
    def spec(self) -> str:
        return f"{self.unit}:{'+'.join(self.actions)}"


def _services(
    value: Iterable[ServiceGrant | str] | Mapping[str, Iterable[str]] | None,
) -> tuple[ServiceGrant, ...]:
    if value is None:
        return ()
    if isinstance(value, Mapping):
        return tuple(ServiceGrant(u, a) for u, a in value.items())
    return tuple(g if isinstance(g, ServiceGrant) else ServiceGrant.parse(g) for g in value)


def path_grant_warnings(specs: Iterable[str], kind: Callable[[str], str]) -> list[str]:
    """rshell's warnings for host path grants: `kind(path)` says what a host path is ('dir',
    'file', 'other' or '' when missing). A grant whose whole text (`/data:ro`) names an existing
    path is read with the suffix as its mode, and says so; a missing path or one that is not a
    directory is skipped (the grant stays, and reaches nothing)."""
    out: list[str] = []
    for spec in specs:
        grant = PathGrant.parse(spec)
        if grant.path != normpath(spec) and kind(spec):
            mode = "read-write" if grant.writable else "read-only"
            out.append(
                f'AllowedPaths: "{spec}" exists, but its ":{spec.rsplit(":", 1)[1]}" suffix is read as '
                f'the access mode: granting "{grant.path}" {mode}'
            )
        what = kind(grant.path)
        if not what:
            out.append(f'AllowedPaths: skipping "{grant.path}": no such file or directory')
        elif what != "dir":
            out.append(f'AllowedPaths: skipping "{grant.path}": not a directory')
    return out


def split_list(text: str) -> list[str]:
    """`a,b c` -> [a, b, c]: the environment variable form."""
    return [p for p in text.replace(",", " ").split() if p]


class Policy:
    """See the module docstring. `commands` is None (all), a list (allow list; `*` means all), or a
    mapping/`{"allow": [...], "deny": [...]}`; `deny` adds to the deny list."""

    def __init__(
        self,
        commands: Iterable[str] | Mapping[str, Iterable[str]] | None = None,
        paths: Iterable[str | PathGrant] | None = None,
        mode: str | None = None,
        decide: Decide | None = None,
        *,
        deny: Iterable[str] = (),
        name: str = "policy",
        implicit_builtins: bool = True,
        host_paths: Iterable[str] | None = None,
        services: Iterable[ServiceGrant | str] | Mapping[str, Iterable[str]] | None = None,
        elevatable_commands: Iterable[str] | None = None,
        mode_settled: bool = False,
    ) -> None:
        allow: frozenset[str] | None
        denied = set(_names(deny) or ())
        if commands is None:
            allow = None
        elif isinstance(commands, Mapping):
            unknown = set(commands) - {"allow", "deny"}
            if unknown:
                raise PolicyError(f"commands: unknown key(s) {', '.join(sorted(unknown))}")
            allow = _names(commands.get("allow"))
            denied |= _names(commands.get("deny")) or set()
        else:
            allow = _names(commands)
        if allow is not None and "*" in allow:
            allow = None
        if mode is not None and mode not in MODES:
            raise PolicyError(f"mode must be one of {', '.join(MODES)}, not '{mode}'")
        self.allow = allow
        self.deny = frozenset(denied)
        self.grants: tuple[PathGrant, ...] | None = None
        if paths is not None:
            self.grants = tuple(g if isinstance(g, PathGrant) else PathGrant.parse(g) for g in paths)
        self.mode = mode
        self.decide = decide
        self.name = name
        self.implicit_builtins = implicit_builtins
        # mode=None settled for a filesystem: the host mount points it keeps read-only
        self.host_paths = tuple(normpath(p) for p in host_paths) if host_paths is not None else None
        # host mode: exact unit/action grants for systemctl; commands `sudo` may mark (None: host
        # mode is not configured, so help shows no elevation section)
        self.services = _services(services)
        self.elevatable = _names(elevatable_commands)
        # mode was None and `effective` settled it for the filesystem: the host (services) stays read-only
        self.mode_settled = mode_settled

    def __repr__(self) -> str:
        return (
            f"Policy(name={self.name!r}, allow={sorted(self.allow) if self.allow is not None else None}, "
            f"deny={sorted(self.deny)}, paths={self.path_specs()}, mode={self.mode!r})"
        )

    # ------------------------------------------------------------ building

    def replace(self, **changes: Any) -> Policy:
        fields: dict[str, Any] = {
            "commands": {"allow": self.allow if self.allow is not None else ["*"], "deny": self.deny},
            "paths": self.grants,
            "mode": self.mode,
            "decide": self.decide,
            "name": self.name,
            "implicit_builtins": self.implicit_builtins,
            "host_paths": self.host_paths,
            "services": self.services,
            "elevatable_commands": self.elevatable,
            "mode_settled": self.mode_settled,
        }
        if "mode" in changes:  # a mode given now is the embedder's own, not one settled by effective()
            fields["mode_settled"] = False
        fields.update(changes)
        return Policy(**fields)

    def effective(self, vfs: object | None) -> Policy:
        """This policy with `mode=None` settled for a filesystem: the host mounts (real host
        directories) stay read-only, every other path (in memory: `/tmp`, a home that is not a
        host mount) is decided as in remediation mode. A filesystem all in memory gets
        `remediation`, one whose root is a host tree `read-only`."""
        policy = self._through_links(vfs)
        if policy.mode is not None:
            return policy
        host = host_mount_points(vfs)
        if not host or "/" in host:  # all in memory, or all on the host: one mode for every path
            return policy.replace(mode=READ_ONLY if host else REMEDIATION, mode_settled=True)
        return policy.replace(host_paths=host)

    def _through_links(self, vfs: object | None) -> Policy:
        """Decisions are made on canonical paths, so a grant whose path runs through a
        symbolic link (`/w/link:ro`, `/w/link` -> `/w/real`) would not cover what it names:
        it also grants the path the link leads to when the filesystem is settled. The link
        itself stays under the grant (a `:ro` link cannot be removed or retargeted)."""
        resolve = getattr(vfs, "resolve", None)
        if not self.grants or not callable(resolve):
            return self
        have = {(g.path, g.writable) for g in self.grants}
        extra: list[PathGrant] = []
        for g in self.grants:
            try:
                canon = normpath(str(resolve(g.path)))
            except OSError:  # missing, or a host link that leaves its root: nothing to follow
                continue
            if (canon, g.writable) not in have:
                have.add((canon, g.writable))
                extra.append(PathGrant(canon, g.writable, via=g.spec))
        return self.replace(paths=[*self.grants, *extra]) if extra else self

    @property
    def warnings(self) -> list[str]:
        """One line per setting that does not do what it seems to (the CLI prints them at
        start-up): a `:rw` grant without `mode = "remediation"`."""
        if self.mode == REMEDIATION or not self.grants:
            return []
        rw = [g for g in self.grants if g.writable and not g.via]
        if self.mode == READ_ONLY:
            what = 'allows no writes: mode is "read-only"'
        else:
            what = "allows no writes to host mounts: mode is not set (host mounts stay read-only)"
            if self.host_paths is not None:  # settled for a filesystem: only grants that meet one
                rw = [g for g in rw if any(under(g.path, h) or under(h, g.path) for h in self.host_paths)]
        who = "policy" if self.name == "policy" else f"policy {self.name}"
        return [f'{who}: grant {g.spec} {what}; set mode = "remediation" to write there' for g in rw]

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], decide: Decide | None = None) -> Policy:
        """From the TOML layout:

        name = "agent"
        mode = "read-only"              # or "remediation"
        paths = ["/data:ro", "/workspace:rw"]
        [commands]
        allow = ["cat", "grep", "ls"]   # or `commands = [...]` for an allow list
        deny = ["rm"]
        """
        known = {"name", "mode", "paths", "commands", "implicit_builtins", "services", "elevatable_commands"}
        unknown = set(data) - known
        if unknown:
            raise PolicyError(f"unknown policy key(s): {', '.join(sorted(unknown))}")
        commands = data.get("commands")
        if commands is not None and not isinstance(commands, list | dict):
            raise PolicyError("commands: expected a list (allow list) or a table with allow/deny")
        paths = data.get("paths")
        if isinstance(paths, dict):  # [paths] grants = [...] / ro = [...] / rw = [...]
            odd = set(paths) - {"grants", "ro", "rw"}
            if odd:
                raise PolicyError(f"paths: unknown key(s) {', '.join(sorted(odd))} (expected grants, ro, rw)")
            if not all(isinstance(paths.get(k, []), list) for k in ("grants", "ro", "rw")):
                raise PolicyError("paths: grants, ro and rw take lists of paths")
            specs = list(paths.get("grants", []))
            specs += [f"{p}:ro" for p in paths.get("ro", [])] + [f"{p}:rw" for p in paths.get("rw", [])]
            paths = specs
        if paths is not None and not (isinstance(paths, list) and all(isinstance(p, str) for p in paths)):
            raise PolicyError('paths: expected a list of grants such as "/data:ro"')
        mode = data.get("mode")
        if mode is not None and not isinstance(mode, str):
            raise PolicyError("mode: expected a string")
        services = data.get("services")
        if services is not None and not isinstance(services, list | dict):
            raise PolicyError('services: expected a list such as ["nginx.service:status+restart"] or a table')
        elevatable = data.get("elevatable_commands")
        if elevatable is not None and not (
            isinstance(elevatable, list) and all(isinstance(e, str) for e in elevatable)
        ):
            raise PolicyError("elevatable_commands: expected a list of command names")
        return cls(
            commands,
            paths,
            mode,
            decide,
            name=str(data.get("name", "policy")),
            implicit_builtins=bool(data.get("implicit_builtins", True)),
            services=services,
            elevatable_commands=elevatable,
        )

    @classmethod
    def from_toml(cls, text: str | bytes, decide: Decide | None = None) -> Policy:
        """Parse a policy file's text (the caller reads the file: sandbash opens no host file)."""
        import tomllib  # only policy files need it (start-up cost)

        if isinstance(text, bytes):
            text = text.decode("utf-8")
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise PolicyError(f"policy file: {e}") from None
        return cls.from_mapping(data, decide)

    @classmethod
    def from_env(cls, environ: Mapping[str, str], base: Policy | None = None) -> Policy | None:
        """`SANDBASH_ALLOWED_COMMANDS`, `SANDBASH_DENIED_COMMANDS` (comma or space separated),
        `SANDBASH_ALLOWED_PATHS` (comma separated grants), `SANDBASH_MODE`; each one set overrides
        the same part of `base`. None when none is set and there is no base."""
        allow = environ.get("SANDBASH_ALLOWED_COMMANDS")
        deny = environ.get("SANDBASH_DENIED_COMMANDS")
        paths = environ.get("SANDBASH_ALLOWED_PATHS")
        mode = environ.get("SANDBASH_MODE")
        if allow is None and deny is None and paths is None and mode is None:
            return base
        policy = base or cls()
        changes: dict[str, Any] = {}
        if allow is not None or deny is not None:
            changes["commands"] = {
                "allow": split_list(allow)
                if allow is not None
                else (policy.allow if policy.allow is not None else ["*"]),
                "deny": split_list(deny) if deny is not None else policy.deny,
            }
        if paths is not None:
            changes["paths"] = [p.strip() for p in paths.split(",") if p.strip()]
        if mode is not None:
            changes["mode"] = mode.strip() or None
        return policy.replace(**changes)

    # ------------------------------------------------------------ static rules

    def path_specs(self) -> list[str] | None:
        return None if self.grants is None else [g.spec for g in self.grants if not g.via]

    def restricts_fs(self) -> bool:
        """Whether file operations can be refused at all (else the check skips them)."""
        return (
            self.grants is not None
            or self.mode == READ_ONLY
            or self.decide is not None
            or bool(self.host_paths)
        )

    def command_decision(self, name: str, kind: str = "", runs: str | None = None) -> Decision:
        """The static rules for a command name (argv[0]) that runs `runs` (what the executor
        resolved: the registry command behind a hashed or PATH name, a script's path; default
        `name`); kind as the executor resolved it. A denied name is refused whatever runs; what
        runs must itself pass the deny and allow lists (see the module docstring)."""
        base = name.rsplit("/", 1)[-1] if "/" in name else name
        real = base if not runs or runs == name else _base(runs)
        denied = self.__dict__.get("_denied") or self._deny_closure()
        if base in denied or real in denied or name in self.deny or (runs is not None and runs in denied):
            return self._denied_by_list(name, base, real, denied, runs)
        if self.allow is None:
            return _ALLOW_ALL  # decisions are frozen: the common answers are shared
        allowed = self.__dict__.get("_allowed") or self._allow_closure()
        if real in allowed or (runs or name) in allowed:
            return _ALLOW_LISTED
        if kind == "function":
            return _ALLOW_FUNCTION
        if self.implicit_builtins and kind in ("", "builtin") and is_builtin(real):
            return _ALLOW_BUILTIN
        via = f"{base} runs {real}: " if real != base else ""  # shown in the message (a hidden retarget)
        return Decision.deny(RULE_ALLOW, f"{via}{real} is not on the allow list")

    def _denied_by_list(
        self, name: str, base: str, real: str, denied: dict[str, str], runs: str | None = None
    ) -> Decision:
        via = f"{base} runs {real}: " if real != base else ""  # shown in the message (a hidden retarget)
        for n in (base, real, runs or real):
            if n in denied:
                entry = denied[n]
                return Decision.deny(
                    RULE_DENY,
                    via
                    + (
                        f"{n} is on the deny list"
                        if n in (entry, normpath(entry))
                        else f"{n} is on the deny list (as {entry})"
                        if n == _base(entry)
                        else f"{n} runs the implementation of {entry}, which is on the deny list"
                    ),
                )
        return Decision.deny(RULE_DENY, f"{name} is on the deny list")

    def _deny_closure(self) -> dict[str, str]:
        """Every name the deny list refuses -> the deny entry that refuses it."""
        cached = self.__dict__.get("_denied")
        if cached is None:
            cached = {}
            for d in sorted(self.deny):
                cached.setdefault(
                    normpath(d) if d.startswith("/") else d, d
                )  # (a script: its canonical path)
                for n in command_family(_own_command(d)):
                    cached.setdefault(n, d)
            for n in _engine_users():
                for e in _registry().engines(n):
                    if e in cached:
                        cached.setdefault(n, cached[e])
            self.__dict__["_denied"] = cached
        return cached

    def _allow_closure(self) -> frozenset[str]:
        """Every name the allow list allows: each entry, and the spellings of an entry that names
        an implementation (module docstring). An entry written as a path is read as a deny entry
        is (`_own_command`): `/usr/bin/jq` allows sandbash's `jq`, any other path the script at
        that canonical path; else the entry would allow nothing, not even itself."""
        cached = self.__dict__.get("_allowed")
        if cached is None:
            names: set[str] = set()
            for entry in self.allow or ():
                a = _own_command(entry)
                a = normpath(a) if a.startswith("/") else a
                names.add(a)
                names |= _allowed_spellings(a)
            cached = frozenset(names)
            self.__dict__["_allowed"] = cached
        return cached

    def service_decision(self, unit: str, action: str) -> Decision:
        """systemctl ACTION UNIT: the pair must be granted exactly; a mutating action also needs
        remediation mode."""
        for g in self.services:
            if g.unit == unit and action in g.actions:
                if action in SERVICE_WRITES and (self.mode != REMEDIATION or self.mode_settled):
                    return Decision.deny(RULE_SERVICE_MODE, f"'{action}' needs remediation mode")
                return Decision.allow(RULE_SERVICE, g.spec)
        return Decision.deny(RULE_NO_SERVICE, f"{unit}: action '{action}' is not granted")

    def elevation_decision(self, name: str) -> Decision:
        """`sudo NAME`: NAME must be elevatable (and still needs its own command grant)."""
        if self.elevatable and (name in self.elevatable or _base(name) in self.elevatable):
            return Decision.allow(RULE_ELEVATE)
        return Decision.deny(RULE_NOT_ELEVATABLE, f"{name} is not an elevatable command")

    def path_decision(self, action: FileOp | str, path: str) -> Decision:
        """The static rules for a file action on a canonical path. A rename or removal also
        changes every path below its own: it is refused when a stricter grant lies there.
        `action` may come as text (the static check's effect names): an unknown one is refused."""
        if type(action) is not FileOp:
            try:
                action = FileOp(action)
            except ValueError:
                return Decision.deny(RULE_NO_GRANT, f"unknown file action {action}")
        if not _is_normal(path):  # (the Vfs asks about canonical paths: most need no work)
            path = normpath(path)
        if under(path, DEVICES):
            # the devices are read and written (opened with `>`, a "create") in every mode; their
            # names and modes are fixed (the Vfs also refuses new entries there, policy or not)
            if action in READ_ACTIONS or action in (FileOp.WRITE, FileOp.CREATE):
                return _ALLOW_DEVICE
            return Decision.deny(RULE_DEVICES, "/dev entries are not removed, renamed or changed")
        writing = action in WRITE_ACTIONS
        if writing and self.mode == READ_ONLY:
            return Decision.deny(RULE_READ_ONLY, "read-only mode refuses every write")
        if writing and self.mode is None and self.host_paths:
            host = self._host_below(path, action)
            if host is not None:
                return Decision.deny(RULE_READ_ONLY, f'{host} is a host mount and mode is not "remediation"')
        if self.grants is None:
            return _ALLOW_UNRESTRICTED
        grant = self.grant_for(path)
        if grant is None:
            if action is FileOp.STAT and (
                path in COMMAND_DIRS
                or path.rsplit("/", 1)[0] in COMMAND_DIRS
                or any(under(g.path, path) for g in self.grants)
            ):
                # command lookup stats PATH entries; directories above a grant let `cd` work
                return Decision.allow(RULE_IMPLICIT, "command directory or directory above a grant")
            return Decision.deny(RULE_NO_GRANT, f"no grant covers {path}")
        if writing and not grant.writable:
            return Decision.deny(RULE_RO_GRANT, f"{grant.spec} is read-only")
        if action in SUBTREE_ACTIONS:
            for g in self.grants:
                if not g.writable and g.path != path and under(g.path, path):
                    return Decision.deny(RULE_RO_INSIDE, f"{g.spec} lies inside {path}")
        return _grant_allows(grant)

    def _host_below(self, path: str, action: str) -> str | None:
        """The host mount point holding `path` (or, for a rename or removal, lying inside it)."""
        for hp in self.host_paths or ():
            if under(path, hp) or (action in SUBTREE_ACTIONS and under(hp, path)):
                return hp
        return None

    def grant_for(self, path: str) -> PathGrant | None:
        best: PathGrant | None = None
        for g in self.grants or ():
            if under(path, g.path):
                if best is None or len(g.path) > len(best.path) or (g.path == best.path and not g.writable):
                    best = g
        return best

    def ask(self, action: Action, static: Decision) -> Decision:
        """The final decision: a static denial stands; otherwise `decide` may deny."""
        if not static.allowed or self.decide is None:
            return static
        try:
            answer = self.decide(action)
        except Exception as e:  # a failing host callback must not open the gate
            return Decision.deny(RULE_DECIDE_ERROR, f"decide raised {type(e).__name__}: {e}")
        return _coerce(answer, static)

    def writes_need_remediation(self) -> bool:
        return self.mode == READ_ONLY

    def allowed_summary(self) -> str:
        """The line a refusal prints after the message: what is allowed."""
        if self.allow is None:
            if self.deny:
                return "denied commands: " + _short(sorted(self.deny)) + " (all other commands are allowed)"
            return "all commands are allowed"
        allowed = sorted(self.allow - self._deny_closure().keys())
        tail = " (and the shell builtins)" if self.implicit_builtins else ""
        return "allowed commands: " + (_short(allowed) if allowed else "none") + tail

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "mode": self.mode,
            "allow": sorted(self.allow) if self.allow is not None else None,
            "deny": sorted(self.deny),
            "paths": self.path_specs(),
            "decide": self.decide is not None,
            **({"services": [g.spec for g in self.services]} if self.services else {}),
            **({"elevatable_commands": sorted(self.elevatable)} if self.elevatable is not None else {}),
        }


def _short(names: Sequence[str], limit: int = 60) -> str:
    if len(names) <= limit:
        return ", ".join(names)
    return ", ".join(names[:limit]) + f", ... ({len(names) - limit} more)"


def _coerce(answer: DecideResult, static: Decision) -> Decision:
    if answer is None:
        return static
    if isinstance(answer, Decision):
        return answer
    if isinstance(answer, bool):
        return Decision(answer, RULE_DECIDE if not answer else static.rule)
    if isinstance(answer, tuple) and len(answer) == 2:
        ok, reason = answer
        return Decision(bool(ok), RULE_DECIDE, str(reason))
    if isinstance(answer, str) and answer in ("allow", "deny"):
        return Decision(answer == "allow", RULE_DECIDE)
    return Decision.deny(RULE_DECIDE_ERROR, f"decide returned {answer!r}")


def is_builtin(name: str) -> bool:
    from .builtins import BUILTINS  # imported late: builtins import the interpreter

    return name in BUILTINS


# ------------------------------------------------------------ command identity

_ALLOW_ALL = Decision.allow(RULE_ALL)
_ALLOW_LISTED = Decision.allow(RULE_ALLOW)
_ALLOW_FUNCTION = Decision.allow(RULE_FUNCTION)
_ALLOW_BUILTIN = Decision.allow(RULE_BUILTIN)
_ALLOW_DEVICE = Decision.allow(RULE_IMPLICIT, "device")
_ALLOW_UNRESTRICTED = Decision.allow(RULE_NO_PATHS)


@functools.lru_cache(maxsize=256)
def _grant_allows(grant: PathGrant) -> Decision:
    """The decision a grant gives (one frozen value per grant, not one per file operation)."""
    return Decision.allow(RULE_GRANT, grant.spec)


def _base(name: str) -> str:
    return name.rsplit("/", 1)[-1] if "/" in name else name


def _own_command(entry: str) -> str:
    """The command a list entry names: a path in a command directory (`/bin/rm`) names sandbash's
    own command there (`rm`), whatever path or name spells it: else `rm` and `/usr/bin/rm` would
    run what `/bin/rm` may not. Any other path (a script, box mode's host program) is itself."""
    directory, _, base = (normpath(entry) if entry.startswith("/") else entry).rpartition("/")
    if directory in COMMAND_DIRS and base and (_registry().BUILTIN_TABLE.known(base) or is_builtin(base)):
        return base
    return entry


def _registry() -> Any:
    from .commands import registry  # the table only: no command module is imported

    return registry


def _builtin_group(name: str) -> tuple[str, ...]:
    """The builtin names bound to the same function as `name` (registration order)."""
    from .builtins import BUILTINS

    return _builtin_group_of(name) if name in BUILTINS else ()


@functools.lru_cache(maxsize=256)
def _builtin_group_of(name: str) -> tuple[str, ...]:
    # the table is fixed once loaded; this is asked for every command the gate decides
    from .builtins import BUILTINS

    fn = BUILTINS[name]
    return tuple(n for n, f in BUILTINS.items() if f is fn)


def command_family(name: str) -> frozenset[str]:
    """Every name that runs the implementation `name` runs: the registry's spellings and the
    builtins bound to the same function, closed over each other (`test`, `[` as builtins and as
    commands; `:` and `true`)."""
    reg = _registry()
    family = {name}
    todo = [name]
    while todo:
        n = todo.pop()
        for m in (*reg.spellings(n), *_builtin_group(n)):
            if m not in family:
                family.add(m)
                todo.append(m)
    return frozenset(family)


def command_identity(name: str) -> str:
    """The implementation a name runs, as one stable name for audit events and `decide`
    (`egrep` -> `grep`, `.` -> `source`, `typeset` -> `declare`); a path's base name."""
    # cached for the names commands have; a script's long made-up names are not kept
    return _identity(name) if len(name) <= 64 else _identity.__wrapped__(name)


@functools.lru_cache(maxsize=4096)
def _identity(name: str) -> str:
    base = _base(name)
    reg = _registry()
    impl = reg.implementation(base)
    if impl != base:
        return str(impl)
    group = _builtin_group(base)
    words = [n for n in group if n.isidentifier()]
    return words[0] if words else base


def command_target(runs: str, kind: str = "") -> str:
    """What audit events and `decide` name: the implementation of a command (`egrep` -> `grep`,
    `/bin/rm` -> `rm`), a script's path, a function's name."""
    if kind in ("script", "function") or (kind == "" and "/" in runs):
        return runs
    return command_identity(runs)


def _allowed_spellings(entry: str) -> set[str]:
    """What an allow entry allows besides itself: the spellings of the implementation it names;
    a builtin's other names (the same function, no preset)."""
    reg = _registry()
    out = set(reg.spellings(entry)) if reg.implementation(entry) == entry else set()
    out |= set(_builtin_group(entry))
    return out


def _engine_users() -> list[str]:
    reg = _registry()
    return [n for n in reg.known_names() if reg.engines(n)]


def mounts_host(vfs: object | None) -> bool:
    """Whether a Vfs (or backend) shows real host directories."""
    return bool(host_mount_points(vfs))


def host_mount_points(vfs: object | None) -> tuple[str, ...]:
    """Where a Vfs (or backend) shows real host directories ("/" for a host backend alone)."""
    if vfs is None:
        return ()
    mounts = getattr(vfs, "mounts", None)
    if callable(mounts):
        return tuple(m.path for m in mounts() if m.fstype in HOST_FSTYPES)
    return ("/",) if getattr(vfs, "fstype", "") in HOST_FSTYPES else ()


STATIC_RULES = frozenset({RULE_DENY, RULE_ALLOW, RULE_ALL, RULE_BUILTIN, RULE_FUNCTION})


def refusal_message(policy: Policy, decision: Decision) -> str:
    """What follows `bash: NAME: ` when a command is refused; then what is allowed (when the
    policy restricts names at all). The reason is shown when it came from `decide`."""
    shown = decision.rule not in STATIC_RULES or " runs " in decision.reason  # a retarget is not obvious
    reason = f" ({decision.reason})" if shown and decision.reason else ""
    head = f"policy denied this command [policy: {decision.rule}]{reason}"
    if policy.allow is None and not policy.deny:
        return head
    return f"{head}\n{policy.allowed_summary()}"


# ------------------------------------------------------------ the gate


class Gate:
    """A policy bound to one audit `Recorder`; hands out the hooks. A `Bash` keeps one Gate with
    no run's recorder (the embedder's own file calls) and gives each run `gate.bind(recorder)`:
    the recorder is fixed for a Gate's life, so concurrent runs never see each other's events."""

    __slots__ = ("policy", "recorder")

    def __init__(self, policy: Policy, recorder: Recorder | None = None) -> None:
        self.policy = policy
        self.recorder = recorder

    def bind(self, recorder: Recorder | None) -> Gate:
        """The same policy, recording into `recorder` (one run's)."""
        return Gate(self.policy, recorder)

    # -- commands

    def command(self, argv: list[str], kind: str = "", runs: str | None = None) -> str | None:
        """The Runtime's command gate: None to run, else the refusal message. `runs`: what the
        executor resolved argv[0] to (default argv[0]); it is what `decide` and the audit see."""
        if not argv:
            return None
        name = argv[0]
        policy = self.policy
        static = policy.command_decision(name, kind, runs)
        target = command_target(runs or name, kind)
        decision = policy.ask(Action("shell:exec", target, tuple(argv)), static)
        self._record("shell:exec", target, decision, argv=argv)
        return None if decision.allowed else refusal_message(policy, decision)

    def command_name(self, name: str, kind: str = "", runs: str | None = None) -> str | None:
        """The first-word check (static rules only: argv is not expanded yet). Records refusals
        only: the full check that follows records the allowed case."""
        decision = self.policy.command_decision(name, kind, runs)
        if decision.allowed:
            return None
        self._record("shell:exec", command_target(runs or name, kind), decision, argv=[name])
        return refusal_message(self.policy, decision)

    def visible(self, name: str, kind: str = "", runs: str | None = None) -> bool:
        """Whether discovery (`type`, `command -v`, `which`, `hash`, `help`) shows `name`."""
        return self.policy.command_decision(name, kind, runs).allowed

    # -- files

    def fs(self, action: FileOp, path: str) -> None:
        """The Vfs gate: raises FsError(EACCES) to refuse."""
        policy = self.policy
        static = policy.path_decision(action, path)
        kind = _FS_KINDS.get(action) or f"fs:{action}"
        # (`decide` is asked only about what the static rules allow: no Action to build otherwise)
        decision = (
            static if policy.decide is None or not static.allowed else policy.ask(Action(kind, path), static)
        )
        self._record(kind, path, decision)
        if not decision.allowed:
            from .vfs.errors import FsError

            raise FsError(errno.EACCES, path, decision.rule)

    # -- host mode: services and elevation (the commands ask through the context's gate)

    def service(self, unit: str, action: str, argv: Sequence[str]) -> Decision:
        """systemctl ACTION UNIT: the static rule, then `decide` (`service:ACTION`); recorded."""
        decision = self.policy.ask(
            Action(f"service:{action}", unit, tuple(argv)), self.policy.service_decision(unit, action)
        )
        self._record(f"service:{action}", unit, decision, argv=argv)
        return decision

    def spawn(self, argv: Sequence[str], program: str) -> Decision:
        """Box mode: run the host program `program` (resolved path) as argv from its tool table
        (`shell:spawn`): the command lists on its name, then `decide`; recorded."""
        static = self.policy.command_decision(program, "command", program)  # a deny entry may name the path
        decision = self.policy.ask(Action("shell:spawn", program, tuple(argv)), static)
        self._record("shell:spawn", program, decision, argv=argv)
        return decision

    def elevation(self, argv: Sequence[str], cwd: str, env: Mapping[str, str]) -> Decision:
        """sudo ARGV: ARGV[0] must be elevatable and granted, and the embedder runs the words
        outside the interpreter, so the static check of exactly these words must allow them."""
        name = argv[0]
        decision = self.policy.elevation_decision(name)
        if decision.allowed:
            static = self.policy.command_decision(name, "command")
            decision = static if not static.allowed else decision
        if decision.allowed:
            decision = self._elevation_check(argv, cwd, env)
        decision = self.policy.ask(Action("shell:elevate", name, tuple(argv)), decision)
        self._record("shell:elevate", name, decision, argv=argv)
        return decision

    def _elevation_check(self, argv: Sequence[str], cwd: str, env: Mapping[str, str]) -> Decision:
        import shlex

        from .check import ALLOWED, check  # the check sits above the policy: only sudo needs it

        report = check(shlex.join(argv), self.policy, cwd=cwd, env=dict(env), deadline=2.0)
        if report.status == ALLOWED:
            return Decision.allow(RULE_ELEVATE)
        issues = sorted(report.issues, key=lambda i: i.severity != "deny")
        why = issues[0].message if issues else f"the check says {report.status}"
        return Decision.deny(RULE_ELEVATE_CHECK, f"the elevated command is refused: {why}")

    # -- network

    def net(self, action: str, url: str) -> bool:
        """NetworkConfig.gate: action is `http:METHOD` (or `net:connect`)."""
        kind, _, method = action.partition(":")
        if kind == "http":
            act = Action("http:request", url, method=method.upper(), url=url)
        else:
            act = Action(action, url, url=url)
        decision = self.policy.ask(act, Decision.allow(RULE_ALL, "network allow-list applies"))
        self._record(act.kind, url, decision, method=act.method)
        return decision.allowed

    def net_audit(self, event: Mapping[str, object]) -> None:
        """NetworkConfig.audit: the client's request outcome, as a `net` event."""
        if self.recorder is not None:
            self.recorder.emit("net", **{str(k): v for k, v in event.items()})

    def attach_network(self, config: Any, current: Callable[[], Gate | None] | None = None) -> Any:
        """A NetworkConfig whose gate and audit also go through this policy (existing hooks kept).
        `current` gives the Gate of the run using the config at the time of a request (a session's
        runtime keeps one config across runs); without it, or when it gives None, this Gate."""
        import dataclasses

        old_gate = config.gate
        old_audit = config.audit

        def now() -> Gate:
            return (current() if current is not None else None) or self

        def gate(action: str, url: str) -> bool:
            return now().net(action, url) and (old_gate is None or bool(old_gate(action, url)))

        def audit(event: Mapping[str, object]) -> None:
            now().net_audit(event)
            if old_audit is not None:
                old_audit(event)

        return dataclasses.replace(config, gate=gate, audit=audit)

    # -- help

    def listing(self, names: Iterable[str]) -> tuple[list[str], list[str], list[str]]:
        """(available now, needing remediation mode, denied) among `names`."""
        from .check.models import writes_files  # the command models know which commands write

        available: list[str] = []
        remediation: list[str] = []
        denied: list[str] = []
        for n in sorted(set(names)):
            if not self.visible(n):
                denied.append(n)
            elif self.policy.writes_need_remediation() and writes_files(n):
                remediation.append(n)
            else:
                available.append(n)
        return available, remediation, denied

    def help_text(self, names: Iterable[str]) -> str:
        """The listing `help` ends with, over `names`: the command table of the sandbox asking
        (built-ins and its own custom commands), never a process-wide one."""
        available, remediation, denied = self.listing(names)
        lines = ["Commands available: " + (" ".join(available) or "none")]
        if remediation:
            lines.append("Commands needing remediation mode: " + " ".join(remediation))
        if denied:
            lines.append("Commands denied by policy: " + " ".join(denied))
        lines += self.host_help()
        return "\n".join(lines) + "\n"

    def host_help(self) -> list[str]:
        """Host mode (the policy names its elevatable commands, maybe none): the services
        granted and the elevatable commands, or notices that there are none."""
        policy = self.policy
        if policy.elevatable is None and not policy.services:
            return []
        lines = [
            "Services: "
            + (
                " ".join(g.spec for g in policy.services)
                if policy.services
                else "none (systemctl is denied for every unit)"
            )
        ]
        if policy.services and (policy.mode != REMEDIATION or policy.mode_settled):
            lines.append("  (start, stop, restart and reload need remediation mode)")
        usable = sorted(n for n in policy.elevatable or () if self.visible(n))
        lines.append(
            "Elevatable commands: " + (" ".join(usable) if usable else "none (sudo refuses every command)")
        )
        return lines

    # -- audit

    def _record(
        self,
        action: str,
        target: str,
        decision: Decision,
        argv: Sequence[str] | None = None,
        method: str = "",
    ) -> None:
        rec = self.recorder
        if rec is None or not rec.wants_decision(decision.allowed, decision.rule):
            return
        fields: dict[str, Any] = {
            "action": action,
            "target": bounded_text(target),
            "decision": "allow" if decision.allowed else "deny",
            "rule": decision.rule,
            "policy": self.policy.name,
        }
        if decision.reason:
            fields["reason"] = decision.reason
        if argv is not None:
            fields["argv"] = rec.redact(argv)
        if method:
            fields["method"] = method
        rec.emit(DECISION, **fields)
