"""The static check: would a script stay inside a policy? Nothing is executed.

`check(script, policy)` walks every command site (check_walk.py), applies the same rule functions
the run-time gates use (`Policy.command_decision`, `Policy.path_decision`, `decide` with
`dry_run=True`) to what is known statically, and reports per site `allowed`, `denied` or
`indeterminate` with issues under stable codes:

- `command_not_allowed`: the command name is refused by the policy;
- `unknown_command`: not a builtin, command or function of the script (it might be a script file
  or be defined at run time);
- `path_not_allowed`: a file action on a path no grant allows;
- `write_in_read_only_mode`: a write while the policy is read-only;
- `service_not_allowed` / `remediation_required`: a `systemctl` action on a unit the policy does
  not grant, or a granted mutating action outside remediation mode (host mode);
- `not_elevatable`: `sudo CMD` where CMD is not in the policy's `elevatable_commands`;
- `url_not_allowed`: the `decide` callback refuses a request;
- `requires_execution`: only the run can tell (globs, substitutions, `$var` command names,
  `eval`/`source`, paths after `cd`, texts built at run time, ...);
- `syntax_error`: the script stops parsing there (what comes after never runs);
- `check_timeout`: the check ran past its own deadline (`deadline`, default 5 s); what it had
  found so far is reported and the verdict is at best `indeterminate`. The check is linear in
  the script's size (benchmarks/check_scaling.py).

Denial beats uncertainty: a site with a refusal is `denied` even if other parts are unknown.
A path issue carries the path as a field (`Issue.path`); `CheckReport.warnings` holds the
configuration warnings (a `:rw` grant that cannot write, skipped host grants). Variables whose
value nothing in the script can change (`X=/etc/passwd; cat $X`, the environment's HOME) are
resolved (check/known.py). `check_remote` (check/remote.py) checks against another host's grants.
Assumption: without `fs`, paths are taken as written (no symbolic links other than those the
script itself creates); with `fs` (a Vfs) existing links are followed as the run would.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..commands.registry import BUILTIN_TABLE, CommandTable
from ..host.services import SERVICE_ACTIONS
from ..policy import (
    RULE_READ_ONLY,
    RULE_SERVICE_MODE,
    Action,
    Decision,
    Policy,
    command_target,
    normpath,
    under,
)
from ..vfs.bindir import COMMAND_DIRS
from .models import FOUND, Effect
from .walk import Analysis, Site, analyze
from .wrappers import NOFS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

ALLOWED = "allowed"
DENIED = "denied"
INDETERMINATE = "indeterminate"
EXIT_CODES = {ALLOWED: 0, DENIED: 1, INDETERMINATE: 3}
DEFAULT_DEADLINE = 5.0  # seconds
DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"  # the run's PATH unless env gives one
DENY, UNKNOWN, ALLOW = "deny", "unknown", "allow"

__all__ = ["ALLOWED", "DENIED", "INDETERMINATE", "CheckReport", "Issue", "SiteReport", "analyze", "check"]


@dataclass
class Issue:
    code: str
    message: str
    line: int
    column: int
    severity: str  # "deny" or "unknown"
    path: str | None = None  # the canonical path a path issue is about

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "code": self.code,
            "message": self.message,
            "line": self.line,
            "column": self.column,
            "severity": self.severity,
        }
        if self.path is not None:
            out["path"] = self.path
        return out


@dataclass
class SiteReport:
    name: str | None
    args: list[str | None]
    redirects: list[dict[str, Any]]
    line: int
    column: int
    status: str
    issues: list[Issue] = field(default_factory=list)
    via: str = ""
    kind: str = ""
    parent: int | None = None  # index of the site that runs this one
    runs: str | None = None  # what the name really runs, when the walk knows it differs (hash -p)

    @property
    def target(self) -> str | None:
        """What the run's gate, audit and `decide` name this command: its implementation
        (`grep` for `egrep`, `rm` for a name hashed to /bin/rm), a script's path."""
        if self.name is None:
            return None
        return command_target(self.runs or self.name, self.kind)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "args": self.args,
            "redirects": self.redirects,
            "line": self.line,
            "column": self.column,
            "status": self.status,
            "kind": self.kind,
            "via": self.via,
            "parent": self.parent,
            "target": self.target,
            "issues": [i.to_dict() for i in self.issues],
        }


@dataclass
class CheckReport:
    status: str
    sites: list[SiteReport]
    policy: dict[str, Any]
    errors: list[Issue] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # configuration warnings (not about the script)

    @property
    def issues(self) -> list[Issue]:
        return [i for s in self.sites for i in s.issues] + self.errors

    @property
    def allowed(self) -> bool:
        return self.status == ALLOWED

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.status]

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "policy": self.policy,
            "sites": [s.to_dict() for s in self.sites],
            "errors": [e.to_dict() for e in self.errors],
            "warnings": list(self.warnings),
        }

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    def to_text(self) -> str:
        """One line per issue (`LINE:COL: severity: code: message`), then the verdict."""
        lines = [f"warning: {w}" for w in self.warnings]
        lines += [f"{i.line}:{i.column}: {i.severity}: {i.code}: {i.message}" for i in self.issues]
        lines.append(f"status: {self.status}")
        return "\n".join(lines) + "\n"


# ------------------------------------------------------------ the check


def check(
    script: str,
    policy: Policy | None = None,
    *,
    fs: Any = None,
    cwd: str | None = "/home/user",
    env: Mapping[str, str] | None = None,
    deadline: float | None = DEFAULT_DEADLINE,
    commands: CommandTable | None = None,
    warnings: list[str] | None = None,
    remote: bool = False,
) -> CheckReport:
    """Check `script` against `policy` without running anything. `fs` (a Vfs) lets the check
    follow existing symbolic links and settle `mode=None`; `cwd` and `env` (HOME) are where the
    run starts. `deadline`: seconds the check may take (None: no limit); past it the report is
    `indeterminate` (or `denied` if a refusal was already found) with a `check_timeout` issue.
    `commands`: the sandbox's command table (`bash.commands`, custom commands included)."""
    policy = (policy or Policy()).effective(fs)
    end = time.monotonic() + deadline if deadline is not None else None
    analysis = analyze(script, cwd=cwd, env=env, deadline=end, commands=commands or BUILTIN_TABLE)
    judge = _Judge(policy, analysis, fs, (env or {}).get("PATH", DEFAULT_PATH), remote)
    sites: list[SiteReport] = []
    timed_out = analysis.timed_out
    for i, s in enumerate(analysis.sites):
        if end is not None and i % 64 == 0 and time.monotonic() > end:
            timed_out = True
            break
        sites.append(judge.site(s))
    errors = [
        Issue("syntax_error", f"syntax error: {msg} (nothing after this runs)", ln, 1, UNKNOWN)
        for ln, msg in analysis.errors
    ]
    if timed_out:
        line = analysis.sites[len(sites) - 1].line if sites else 1
        errors.append(
            Issue(
                "check_timeout",
                f"the check stopped after {deadline:g} s (near line {line}); what follows was not checked",
                line,
                1,
                UNKNOWN,
            )
        )
    statuses = {s.status for s in sites} | ({INDETERMINATE} if errors else set())
    status = DENIED if DENIED in statuses else INDETERMINATE if INDETERMINATE in statuses else ALLOWED
    unparsed = [
        f"line {ln}: a command substitution does not parse ({msg}): it runs nothing and fails (status 2)"
        for ln, msg in analysis.unparsed
    ]
    return CheckReport(
        status, sites, policy.describe(), errors, [*policy.warnings, *(warnings or ()), *unparsed]
    )


class _Judge:
    def __init__(
        self, policy: Policy, analysis: Analysis, fs: Any, path: str = DEFAULT_PATH, remote: bool = False
    ) -> None:
        self.policy = policy
        self.remote = remote  # check_remote: a path allowed as written may still lead elsewhere there
        self.analysis = analysis
        self.fs = fs
        self.search_path = path
        self.restricted = policy.restricts_fs()
        self.risky_dests = [
            dest for sources, dest in analysis.copies if any(self.may_hold_link(p) for p in sources)
        ]

    def may_hold_link(self, path: str | None) -> bool:
        """Whether a moved or copied tree may contain a symbolic link."""
        if path is None:
            return True
        for link, _ in self.analysis.symlinks:
            if link is None or under(link, path):
                return True
        if self.fs is None:
            return False
        return _has_symlink(self.fs, path)

    def site(self, s: Site) -> SiteReport:
        issues: list[Issue] = []

        def add(severity: str, code: str, message: str, path: str | None = None) -> None:
            issues.append(Issue(code, message, s.line, s.column, severity, path))

        label = s.name or (s.text or "command")
        if s.kind not in ("none", "keyword"):
            self.command(s, add)
        for why in s.reasons:
            add(UNKNOWN, "requires_execution", why)
        if s.facts is not None:
            for effect in s.facts.effects:
                self.effect(s, label, effect, add)
            for method, url in s.facts.urls:
                self.url(label, method, url, add)
        for d in s.globs:  # the shell lists the directory to expand the pattern
            self.effect(s, "glob", Effect("list", (d,), recursive=True), add)
        for r in s.redirects:
            if r.mode in ("dup", "here"):
                continue
            actions = {
                "read": ("read",),
                "write": ("create",),
                "append": ("create",),
                "readwrite": ("read", "create"),
            }[r.mode]
            for a in actions:
                self.effect(s, label, Effect(a, (r.target,)), add, redirect=True)
        severities = {i.severity for i in issues}
        status = DENIED if DENY in severities else INDETERMINATE if UNKNOWN in severities else ALLOWED
        args = [None if a is not None and "\0" in a else a for a in s.argv]
        redirects = [
            {"op": r.op, "target": r.target, "mode": r.mode}
            for r in s.redirects
            if r.mode not in ("dup", "here")
        ]
        return SiteReport(
            s.name, args, redirects, s.line, s.column, status, issues, s.via, s.kind, s.parent, s.runs
        )

    # -- commands

    def command(self, s: Site, add: Any) -> None:
        name = s.name
        if name is None:
            return  # reported through the walker's reasons
        kind = {
            "function": "function",
            "builtin": "builtin",
            "command": "command",
            "shell": "command",
            "script": "script",
        }.get(s.kind, "")
        decision = self.policy.command_decision(name, kind, s.runs)
        if decision.allowed and self.policy.decide is not None:
            if any(a is None or "\0" in a for a in s.argv):  # DYNAMIC_VALUE, FOUND
                add(
                    UNKNOWN,
                    "requires_execution",
                    f"{name}: the decide callback sees the arguments only at run time",
                )
            else:
                target = command_target(s.runs or name, kind)
                decision = self.policy.ask(
                    Action("shell:exec", target, (name, *[a or "" for a in s.argv]), dry_run=True), decision
                )
        if not decision.allowed:
            add(
                DENY,
                "command_not_allowed",
                f"{name}: policy denied this command {_rule(decision)}",
            )
        elif (
            s.kind in ("command", "shell")
            and s.runs is None
            and "/" not in name
            and (script := self.script_in_path(name)) is not None
        ):
            add(
                UNKNOWN,
                "requires_execution",
                f"{name}: runs the file {script}, whose interpreter and commands only the run knows",
            )
        elif s.kind == "unknown":
            add(UNKNOWN, "unknown_command", f"{name}: not a builtin, command or function of this script")
        host_action = HOST_ACTIONS.get(command_target(s.runs or name, kind)) if s.kind == "command" else None
        if decision.allowed and host_action is not None:
            host_action(self.policy, s, add)
        if s.unmodelled:
            add(
                DENY,
                "no_check_model",
                f"{name}: declares no effects for the static check (a command "
                "needs `effects=` to run under a policy)",
            )

    def script_in_path(self, name: str) -> str | None:
        """A file in the filesystem checked with that PATH lookup finds before the built-in command
        (the run would start that file: its shebang interpreter, its commands)."""
        if self.fs is None:
            return None
        for d in self.search_path.split(":"):
            candidate = (d or ".").rstrip("/") + "/" + name
            if normpath(d or "/") in COMMAND_DIRS:
                return None  # the command directories hold only the built-in commands
            if candidate.startswith("/"):
                try:
                    st = self.fs.tree.lstat(normpath(candidate))
                except Exception:  # missing, or a directory on the way is not one
                    st = None
                if st is not None and (
                    st.mode & 0o170000 == 0o120000 or (st.mode & 0o170000 == 0o100000 and st.mode & 0o111)
                ):
                    return candidate
        return None

    # -- files

    def effect(self, s: Site, label: str, effect: Effect, add: Any, redirect: bool = False) -> None:
        if not self.restricted:
            return
        verdicts: list[tuple[str, str, str, str | None]] = []  # (verdict, code, message, path)
        for raw in effect.paths:
            if raw == NOFS:
                verdicts.append((ALLOW, "", "", None))
                continue
            recursive = effect.recursive
            found = raw is not None and raw.startswith(FOUND)
            if found and raw is not None:
                raw, recursive = raw[len(FOUND) :], True  # somewhere below that directory
            for path in self.paths(raw, s.cwd, effect.follow):
                verdicts.append((*self.path(effect.action, path, recursive, raw, s), path))
                if path is not None and (effect.entries or (found and effect.follow)):
                    # ls stats every entry through its link; a match (glob, find) may be a link
                    verdicts += [
                        (*v, path)
                        for v in self.entry_links(
                            path,
                            recursive,
                            "stat" if effect.entries else effect.action,
                            certain=effect.entries,
                        )
                    ]
        kinds = {v[0] for v in verdicts}
        what = "redirection" if redirect else label
        if kinds == {DENY}:
            _, code, message, where = next(v for v in verdicts if v[0] == DENY)
            add(DENY, code, f"{what}: {message}", where)
        elif DENY in kinds or UNKNOWN in kinds:
            first = next((v for v in verdicts if v[0] == UNKNOWN), None) or next(
                v for v in verdicts if v[0] == DENY
            )
            add(UNKNOWN, "requires_execution", f"{what}: {first[2]}", first[3])
        elif self.remote and (allowed := [v[3] for v in verdicts if v[3] is not None]):
            add(
                UNKNOWN,
                "requires_execution",
                f"{what}: {effect.action} {allowed[0]} is allowed as written; "
                "the remote host's symbolic links are known only there",
                allowed[0],
            )

    def paths(self, raw: str | None, cwd: str | None, follow: bool = True) -> list[str | None]:
        """The canonical paths `raw` may name at run time (None: only the run knows)."""
        if raw is None:
            return [None]
        if raw.startswith("/"):
            base: str | None = normpath(raw)
        elif cwd is None:
            return [None]
        else:
            base = normpath(cwd + "/" + raw)
        out: list[str | None] = [base]
        for link, target in self.analysis.symlinks:
            if link is None or target is None:
                out.append(None)
            elif base is not None and under(base, link) and (follow or base != link):
                out.append(normpath(target + base[len(link) :]))
        for dest in self.risky_dests:
            if dest is None or (base is not None and under(base, dest)):
                out.append(None)
        return [self.follow_fs(p, follow) for p in out]

    def follow_fs(self, path: str | None, follow: bool) -> str | None:
        if path is None or self.fs is None:
            return path
        try:
            return str(self.fs.resolve(path, follow=follow))
        except Exception:  # a missing parent or a loop: the run fails there, not at the gate
            return path

    def path(
        self, action: str, path: str | None, recursive: bool, raw: str | None, s: Site
    ) -> tuple[str, str, str]:
        if path is None:
            why = "a path known only at run time"
            if raw is not None and not raw.startswith("/") and s.cwd is None:
                why = f"'{raw}' is relative to a directory changed by cd"
            elif raw is not None:
                why = f"'{raw}' may go through a symbolic link the script creates or moves"
            elif s.dynamic_words:
                why = f"a path from a {s.dynamic_words[0]} known only at run time"
            return UNKNOWN, "requires_execution", why
        decision = self.decide_path(action, path)
        if not decision.allowed:
            code = "write_in_read_only_mode" if decision.rule == RULE_READ_ONLY else "path_not_allowed"
            return (
                DENY,
                code,
                f"{action} {path}: policy denied {_rule(decision)}",
            )
        if recursive:
            for g in self.policy.grants or ():
                if g.path != path and under(g.path, path):
                    inner = self.decide_path(action, g.path)
                    if not inner.allowed:
                        return (
                            UNKNOWN,
                            "requires_execution",
                            (
                                f"{action} below {path} reaches {g.path}, which the policy refuses "
                                f"[policy: {inner.rule}] if it holds files"
                            ),
                        )
        if self.policy.decide is not None and (
            recursive or action == "rename"
        ):  # (a rename carries its tree)
            return self.decided_below(action, path)
        return ALLOW, "", ""

    def decided_below(self, action: str, path: str) -> tuple[str, str, str]:
        """`decide` is asked about each entry a recursive action reaches (and about each one a
        directory's rename carries): ask it about the entries there now. What the script adds
        before that is not known, nor is a tree past the budget."""
        entries, whole = _entries_below(self.fs, path, True) if self.fs is not None else ([], False)
        for entry, _ in entries:
            inner = self.decide_path(action, entry)
            if not inner.allowed:
                return (
                    UNKNOWN,
                    "requires_execution",
                    f"{action} below {path} reaches {entry}, which the policy refuses {_rule(inner)}",
                )
        if not whole:
            return UNKNOWN, "requires_execution", f"{action} below {path}: `decide` is asked about each entry"
        return ALLOW, "", ""

    def entry_links(
        self, directory: str, recursive: bool, action: str = "stat", certain: bool = True
    ) -> list[tuple[str, str, str]]:
        """The verdicts for links below `directory` that are followed: every entry for `ls DIR`
        (`certain`), or possibly some for a glob's or find's matches. Links the script itself
        creates may or may not be there yet."""
        out: list[tuple[str, str, str]] = []
        for link, target in self.analysis.symlinks:
            if link is None or target is None:
                out.append((UNKNOWN, "requires_execution", f"{directory} may hold a link the script creates"))
            elif under(link, directory) and link != directory and (recursive or _parent(link) == directory):
                d = self.decide_path(action, target)
                if not d.allowed:
                    out.append(
                        (
                            UNKNOWN,
                            "requires_execution",
                            f"{link} (a link the script creates) leads to {target}, which the policy refuses",
                        )
                    )
        for link in _links_below(self.fs, directory, recursive) if self.fs is not None else ():
            target = self.follow_fs(link, True)
            d = self.decide_path(action, target) if target is not None else Decision.allow("")
            if d.allowed:
                continue
            message = f"{action} {target} (through the link {link}): policy denied {_rule(d)}"
            out.append(
                (DENY, "path_not_allowed", message)
                if certain
                else (UNKNOWN, "requires_execution", f"may {message}")
            )
        return out

    def decide_path(self, action: str, path: str) -> Decision:
        static = self.policy.path_decision(action, path)
        if not static.allowed or self.policy.decide is None:
            return static
        # the run also stats and may create or write: ask decide about each
        actions = {action, "stat"} | ({"create", "write"} if action in ("create", "write") else set())
        for a in sorted(actions):
            d = self.policy.ask(Action(f"fs:{a}", path, dry_run=True), self.policy.path_decision(a, path))
            if not d.allowed:
                return d
        return static

    # -- network

    def url(self, label: str, method: str, url: str | None, add: Any) -> None:
        if self.policy.decide is None:
            return
        if url is None:
            add(UNKNOWN, "requires_execution", f"{label}: the URL is known only at run time")
            return
        d = self.policy.ask(
            Action("http:request", url, method=method, url=url, dry_run=True), Decision.allow("commands.all")
        )
        if not d.allowed:
            add(
                DENY,
                "url_not_allowed",
                f"{label}: {method} {url}: policy denied {_rule(d)}",
            )


# ------------------------------------------------------------ host mode: services and elevation

CTL_OPTIONS = frozenset({"--no-pager", "--quiet", "-q", "--no-legend"})


def _systemctl(policy: Policy, s: Site, add: Any) -> None:
    """`systemctl ACTION UNIT...`: each pair decided as the run decides it."""
    words = [a for a in s.argv if a not in CTL_OPTIONS]
    if any(a is None or "\0" in a for a in words):
        add(UNKNOWN, "requires_execution", "systemctl: the action or unit is known only at run time")
        return
    if len(words) < 2 or words[0] not in SERVICE_ACTIONS or any(str(a).startswith("-") for a in words):
        return  # a usage error at run time: nothing happens
    action = str(words[0])
    for name in words[1:]:
        unit = str(name) if "." in str(name) else f"{name}.service"
        d = policy.service_decision(unit, action)
        if not d.allowed:
            code = "remediation_required" if d.rule == RULE_SERVICE_MODE else "service_not_allowed"
            add(DENY, code, f"systemctl: {action} {unit}: policy denied [policy: {d.rule}] ({d.reason})")


def _sudo(policy: Policy, s: Site, add: Any) -> None:
    """`sudo CMD ...`: CMD must be elevatable (its own grant is decided at its own site)."""
    args = [a for a in s.argv if a != "--"][:1]
    if not args or (args[0] is not None and args[0].startswith("-")):
        return  # a usage error at run time: nothing runs
    if args[0] is None or "\0" in args[0]:
        add(UNKNOWN, "requires_execution", "sudo: the command is known only at run time")
        return
    d = policy.elevation_decision(args[0])
    if not d.allowed:
        add(DENY, "not_elevatable", f"sudo: {args[0]}: policy denied [policy: {d.rule}] ({d.reason})")


HOST_ACTIONS: dict[str, Any] = {"systemctl": _systemctl, "sudo": _sudo}


def _has_symlink(fs: Any, path: str, budget: int = 10_000) -> bool:
    """Walk the Vfs tree (no gate: resolution and lstat only) below `path`; True when a link is
    found or the tree is too big to tell."""
    stack = [path]
    seen = 0
    tree = fs.tree
    while stack:
        p = stack.pop()
        seen += 1
        if seen > budget:
            return True
        try:
            st = tree.lstat(p)
        except Exception:
            continue
        kind = st.mode & 0o170000
        if kind == 0o120000:
            return True
        if kind == 0o040000:
            try:
                names = tree.listdir(p)
            except Exception:
                continue
            stack += [p.rstrip("/") + "/" + n for n in names]
    return False


def _rule(decision: Decision) -> str:
    """`[policy: RULE]` and the reason, as refusals show them."""
    return f"[policy: {decision.rule}]" + (f" ({decision.reason})" if decision.reason else "")


def _parent(path: str) -> str:
    return path.rsplit("/", 1)[0] or "/"


def _links_below(fs: Any, directory: str, recursive: bool, budget: int = 10_000) -> list[str]:
    """Symbolic links among the entries of `directory` (all levels when recursive)."""
    return [p for p, kind in _entries_below(fs, directory, recursive, budget)[0] if kind == 0o120000]


def _entries_below(
    fs: Any, directory: str, recursive: bool, budget: int = 10_000
) -> tuple[list[tuple[str, int]], bool]:
    """The entries of `directory` (all levels when recursive; links not followed) with their file
    types, and whether that is all of them (False past `budget` entries)."""
    out: list[tuple[str, int]] = []
    tree = fs.tree
    stack = [directory]
    while stack and len(out) < budget:
        d = stack.pop()
        try:
            names = tree.listdir(d)
        except Exception:
            continue
        for n in names:
            p = d.rstrip("/") + "/" + n
            try:
                kind = tree.lstat(p).mode & 0o170000
            except Exception:
                continue
            out.append((p, kind))
            if kind == 0o040000 and recursive:
                stack.append(p)
    return out, not stack
