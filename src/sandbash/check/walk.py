"""The static walk behind `analyze` and `check`: every command site of a script, nothing executed.

Each simple command (in every branch, loop bodies once, function bodies, `$(...)`, process
substitutions, and the text given to `eval`, `bash -c`, `trap`, awk `system()`, ...) becomes a
`Site`: its name and arguments as far as they are static (`None` where only the run knows),
redirections, the directory it runs in when known, and the facts of its command model. After a
`cd` (or anything that may run one) relative paths are no longer known.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field

from ..builtins import BUILTINS
from ..commands.registry import BUILTIN_TABLE, CommandTable
from ..policy import normpath
from ..syntax import ast as A
from ..syntax.errors import ParseError
from ..syntax.parser import Parser
from ..vfs.bindir import COMMAND_DIRS, SHELL_NAMES
from . import hidden as H
from .known import NOTHING, plan
from .models import FOUND, Arg, Effect, Facts
from .words import Words, assign_bodies, has_indirection, word_bodies
from .wrappers import BUILTIN_MODELS, PLAIN_BUILTINS, model

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

CWD_CHANGERS = frozenset({"cd", "pushd", "popd", "source", ".", "eval"})
# variables whose value changes how later commands are found or started
SENSITIVE_VARS = frozenset(
    {"PATH", "BASH_ENV", "ENV", "PS4", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "CDPATH", "GLOBIGNORE"}
    # the hash table and the aliases as arrays: an entry makes a name run another program
    | {"BASH_CMDS", "BASH_ALIASES"}
)
# texts run by the current shell (their `cd` stays in effect); trap/alias/callback texts run later
CURRENT_SHELL_TEXT = frozenset({"eval", "trap", "alias", "mapfile", "readarray"})
LATER_TEXT = frozenset({"trap", "alias", "mapfile", "readarray", "compgen"})
MAX_NESTING = 8  # eval "eval '...'" ...: deeper texts are judged at run time
DYNAMIC_VALUE = "\0"  # an assignment argument whose value only the run knows (never a real byte)


def _std_path(via: str, args: list[Arg]) -> bool:
    """`command -p NAME`: NAME is searched for on the standard path, not in the hash table."""
    if via != "command":
        return False
    for a in args:
        if not isinstance(a, str) or not a.startswith("-") or a in ("-", "--"):
            return False
        if "p" in a:
            return True
    return False


@dataclass
class Redirect:
    op: str
    fd: int | None
    target: Arg  # the file (None: known only at run time; "" for here-docs and fd duplication)
    text: str
    mode: str  # read | write | append | readwrite | dup | here


@dataclass
class Site:
    line: int
    column: int
    text: str
    name: Arg
    argv: list[Arg]
    redirects: list[Redirect] = field(default_factory=list)
    kind: str = ""  # function | builtin | command | shell | script | unknown | "" (dynamic) | none
    via: str = ""  # how it is reached: "", "$(...)", "eval", "bash -c", "xargs", ...
    cwd: str | None = None
    reasons: list[str] = field(default_factory=list)  # why parts are known only at run time
    facts: Facts | None = None
    unmodelled: bool = False  # a command whose record declares no effects: refused by the check
    dynamic_words: list[str] = field(default_factory=list)  # "glob", "variable", "substitution"
    globs: list[str] = field(default_factory=list)  # directories the shell lists to expand globs
    parent: int | None = None  # the site that runs this one (a wrapper, or the command whose words hold it)
    assigns: list[str] = field(default_factory=list)
    index: int = -1  # its place in Analysis.sites
    runs: str | None = None  # what the name really runs when that differs (a hashed name: its program)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "argv": [None if a is not None and "\0" in a else a for a in self.argv],
            "line": self.line,
            "column": self.column,
            "text": self.text,
            "kind": self.kind,
            "via": self.via,
            "parent": self.parent,
            "redirects": [
                {"op": r.op, "target": r.target, "mode": r.mode}
                for r in self.redirects
                if r.mode not in ("dup", "here")
            ],
        }


@dataclass
class Analysis:
    sites: list[Site] = field(default_factory=list)
    functions: list[str] = field(default_factory=list)
    errors: list[tuple[int, str]] = field(default_factory=list)  # syntax errors (line, message)
    # substitutions bash parses only as they run (`...`, a `$((` that is no arithmetic) whose
    # text does not parse: (line, message); they run nothing, and the script goes on
    unparsed: list[tuple[int, str]] = field(default_factory=list)
    timed_out: bool = False  # the walk stopped at its deadline (sites after that point are missing)
    symlinks: list[tuple[str | None, str | None]] = field(default_factory=list)  # absolute (link, target)
    # moves and link-preserving copies: (absolute sources, absolute destination)
    copies: list[tuple[list[str | None], str | None]] = field(default_factory=list)

    @property
    def opaque(self) -> bool:
        """Whether some command name or code text is built at run time."""
        return any(s.kind == "" or s.reasons for s in self.sites)

    @property
    def commands(self) -> list[str]:
        return sorted({s.name for s in self.sites if s.name})

    @property
    def redirects(self) -> list[Redirect]:
        return [r for s in self.sites for r in s.redirects if r.mode not in ("dup", "here")]

    def to_dict(self) -> dict[str, Any]:
        return {
            "commands": self.commands,
            "functions": self.functions,
            "redirects": [{"op": r.op, "target": r.target, "mode": r.mode} for r in self.redirects],
            "opaque": self.opaque,
            "sites": [s.to_dict() for s in self.sites],
            "errors": [{"line": ln, "message": m} for ln, m in self.errors],
        }


# ------------------------------------------------------------ the walker


class CheckTimeout(Exception):
    """The walk ran past its deadline."""


class Walker:
    def __init__(
        self,
        script: str,
        cwd: str | None,
        env: Mapping[str, str],
        deadline: float | None = None,
        commands: CommandTable = BUILTIN_TABLE,
    ) -> None:
        self.deadline = deadline  # time.monotonic() value
        self.commands = commands  # the sandbox's commands (built-in and custom)
        self.any_cd = False  # some site walked so far changes the directory
        self.hidden = H.HiddenUses()  # code hidden in variable contents (check_hidden.py)
        self.hashed: dict[str, str] = {}  # `hash -p PATH NAME` seen so far: NAME -> PATH
        self.hash_names: set[str] = set()  # every name the script hashes somewhere (order unknown)
        self.hash_dynamic = False  # a `hash` whose words only the run knows
        self.lastpipe = False  # `shopt -s lastpipe` may be on: a pipeline's last stage runs in this shell
        self.lines = script.splitlines()
        self.cursor: dict[int, int] = {}
        self.words = Words(env.get("HOME"))
        self.known = NOTHING  # values the check may use (check/known.py), planned when the script parses
        self.env = env
        self.out = Analysis()
        self.functions: dict[str, A.Command] = {}
        self.cd_functions: set[str] = set()
        self.cwd = cwd
        self.start_cwd = cwd
        self.parent: int | None = None

    # -- entry

    def run(self, script: str) -> Analysis:
        try:
            body = self.parse(script, 1)
            if body is not None:
                self.known = plan(body, script, self.env)
                self.words.known.update(self.known.env)
                self.words.unquoted = self.known.unquoted
                self.collect_functions(body)
                self.walk_list(body, "", 0)
        except CheckTimeout:
            self.out.timed_out = True
        for index, why in self.hidden.judge(self.env).items():
            self.out.sites[index].reasons.append(why)
        return self.out

    def check_time(self) -> None:
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise CheckTimeout()

    def parse(self, text: str, line: int, record: bool = True) -> A.CommandList | None:
        parser = Parser(text, line_base=line)
        items: list[A.ListItem] = []
        try:
            while True:
                chunk = parser.parse_next()
                if chunk is None:
                    break
                items.extend(chunk.items)
                self.check_time()
        except ParseError as e:
            if record:
                self.out.errors.append((e.line, e.message or "syntax error in conditional expression"))
            if not items:
                return None
        except RecursionError:
            if record:
                self.out.errors.append((line, "nested too deeply"))
            return None
        return A.CommandList(tuple(items), line)

    def collect_functions(self, body: A.Command) -> None:
        for node in _walk_nodes(body):
            if isinstance(node, A.FuncDef):
                self.functions[node.name] = node.body
                if node.name not in self.out.functions:
                    self.out.functions.append(node.name)
        self.hash_prepass(body)
        # a function changes the directory if its body does, or a function it calls does: found
        # backwards from the functions that do it themselves (each body walked once)
        callers: dict[str, list[str]] = {}
        pending: list[str] = []
        for name, fbody in self.functions.items():
            direct, calls = self.cd_facts(fbody)
            if direct:
                pending.append(name)
            for callee in calls:
                callers.setdefault(callee, []).append(name)
            self.check_time()
        while pending:
            name = pending.pop()
            if name not in self.cd_functions:
                self.cd_functions.add(name)
                pending += callers.get(name, ())

    def cd_facts(self, node: A.Command) -> tuple[bool, set[str]]:
        """(whether running `node` may change the shell's directory by itself, the functions it
        calls); subshells do not count."""
        calls: set[str] = set()
        for cmd in _walk_nodes(node, into_subshells=False, lastpipe=self.lastpipe):
            if isinstance(cmd, A.SimpleCommand) and cmd.words:
                v = self.words.value(cmd.words[0]).fields
                if (
                    not v
                    or v[0] in CWD_CHANGERS
                    or (v[0] in ("command", "builtin", "exec") and len(cmd.words) > 1)
                ):
                    return True, calls
                if v[0] in self.functions:
                    calls.add(v[0])
        return False, calls

    def may_cd(self, node: A.Command) -> bool:
        """Whether running `node` may change the shell's directory (subshells do not count)."""
        direct, calls = self.cd_facts(node)
        return direct or not calls.isdisjoint(self.cd_functions)

    # -- compound commands

    def walk_list(self, body: A.CommandList, via: str, depth: int) -> None:
        for item in body.items:
            if item.background:
                with self.child():
                    self.walk(item.cmd, via, depth)
            else:
                self.walk(item.cmd, via, depth)

    def walk(self, node: A.Command, via: str, depth: int) -> None:
        if isinstance(node, A.SimpleCommand):
            self.simple(node, via, depth)
        elif isinstance(node, A.CommandList):
            self.walk_list(node, via, depth)
        elif isinstance(node, A.Pipeline):
            if len(node.cmds) == 1:
                self.walk(node.cmds[0], via, depth)
            else:
                for c in node.cmds[:-1]:  # each stage is a subshell
                    with self.child():
                        self.walk(c, via, depth)
                if self.lastpipe:
                    self.walk(node.cmds[-1], via, depth)
                else:
                    with self.child():
                        self.walk(node.cmds[-1], via, depth)
        elif isinstance(node, A.AndOr):
            self.walk(node.first, via, depth)
            for _, c in node.rest:
                self.walk(c, via, depth)
        elif isinstance(node, A.Subshell):
            with self.child():
                self.walk_list(node.body, via, depth)
        elif isinstance(node, A.Group):
            self.walk_list(node.body, via, depth)
        elif isinstance(node, A.If):
            self.branches(
                node,
                [c.cond for c in node.clauses]
                + [c.body for c in node.clauses]
                + ([node.else_body] if node.else_body else []),
                via,
                depth,
            )
        elif isinstance(node, A.While | A.For | A.Select | A.ArithFor):
            self.loop(node, via, depth)
        elif isinstance(node, A.Case):
            self.arith_site(node.line, "case", H.word_refs(node.word), via)
            self.nested_words(node.word, node.line, via, depth)
            for item in node.items:
                for pat in item.patterns:
                    self.arith_site(node.line, "case", H.word_refs(pat), via)  # `$((v))` as a pattern
                    self.nested_words(pat, node.line, via, depth)
            self.branches(node, [i.body for i in node.items if i.body is not None], via, depth)
        elif isinstance(node, A.ArithCmd):
            self.arith_site(node.line, "((", H.text_refs(node.word.text), via)
            self.nested_words(node.word, node.line, via, depth)
        elif isinstance(node, A.CondCmd):
            self.cond(node, via, depth)
        elif isinstance(node, A.FuncDef):
            saved = self.cwd
            if self.may_cd_anywhere():
                self.cwd = None
            self.walk(node.body, via or "function " + node.name, depth)
            self.cwd = saved
        elif isinstance(node, A.Coproc):
            with self.child():
                self.walk(node.body, via, depth)
        elif isinstance(node, A.Redirected):
            site = self.new_site(node.line, "", None, [], via)
            site.kind = "none"
            self.redirects(site, node.redirs, depth)
            self.walk(node.body, via, depth)

    @contextmanager
    def child(self) -> Iterator[None]:
        """A subshell (pipeline stage, `( )`, `&`, `$( )`): what it changes (directory, hash
        table) stays in it."""
        saved = self.cwd, dict(self.hashed)
        try:
            yield
        finally:
            self.cwd, self.hashed = saved

    def may_cd_anywhere(self) -> bool:
        return self.start_cwd is None or self.cwd is None or bool(self.cd_functions) or self.any_cd

    def branches(self, node: A.Command, bodies: list[A.CommandList], via: str, depth: int) -> None:
        entry = self.cwd
        for b in bodies:
            self.cwd = entry
            self.walk_list(b, via, depth)
        self.cwd = None if self.may_cd(node) else entry

    def loop(self, node: A.While | A.For | A.Select | A.ArithFor, via: str, depth: int) -> None:
        if self.may_cd(node):
            self.cwd = None  # the second iteration starts wherever the first one went
        bound: str | None = None
        if isinstance(node, A.While):
            self.walk_list(node.cond, via, depth)
        elif isinstance(node, A.For | A.Select):
            dirs: set[str] = set()
            plain = isinstance(node, A.For) and node.words is not None
            for w in node.words or ():
                self.arith_site(node.line, w.text, H.word_refs(w), via)
                plain = plain and H.plain_word(w)
                self.nested_words(w, node.line, via, depth)
                v = self.words.value(w)
                if v.glob_dir is not None:
                    dirs.add(v.glob_dir)
                    site = self.new_site(node.line, w.text, None, [], via)
                    site.kind = "none"
                    site.globs.append(v.glob_dir)
                else:
                    dirs.add("")
            # `for f in /data/*; do cat "$f"`: $f is a path below /data (unless the body sets f)
            if len(dirs) == 1 and "" not in dirs and node.words and not _assigns(node.body, node.var):
                bound = node.var
                self.words.bound[bound] = FOUND + dirs.pop()
            self.hidden.assign(node.var, plain)
            values = set().union(*(H.text_refs(w.text) for w in node.words or ()))
            if values or node.words is None:  # `declare -i i; for i in x`: each word is evaluated
                site = self.new_site(node.line, node.var, None, [], via)
                site.kind = "keyword"
                self.hidden.int_values.append((site.index, node.var, values or {H.UNKNOWN_TEXT}))
        else:
            for aw in (node.init, node.cond, node.step):
                self.arith_site(node.line, "((", H.text_refs(aw.text) if aw is not None else set(), via)
                self.nested_words(aw, node.line, via, depth)
        self.walk_list(node.body, via, depth)
        if bound is not None:
            del self.words.bound[bound]

    def cond(self, node: A.CondCmd, via: str, depth: int) -> None:
        """`[[ ... ]]`: file tests stat their operand; words may hold substitutions."""
        tests: list[Arg] = []
        names_dynamic = False
        refs: set[str] = set()
        stack: list[Any] = [node.expr]
        words: list[A.Word] = []
        while stack:
            e = stack.pop()
            if isinstance(e, A.CondWord):
                words.append(e.word)
            elif isinstance(e, A.CondUnary):
                words.append(e.operand)
                v = self.one(e.operand)
                tests += [e.op, v]
                names_dynamic = names_dynamic or (e.op == "-v" and (v is None or H.subscript_code(v)))
                if e.op == "-v" and v is not None and "[" in v:
                    refs |= H.text_refs(v.partition("[")[2])
            elif isinstance(e, A.CondBinary):
                words += [e.left, e.right]
                refs |= H.cond_refs(e)
                if e.op in ("-nt", "-ot", "-ef"):
                    tests += [self.one(e.left), e.op, self.one(e.right)]
            elif isinstance(e, A.CondNot):
                stack.append(e.operand)
            elif isinstance(e, A.CondAnd | A.CondOr):
                stack += [e.right, e.left]
        site = self.new_site(node.line, "[[", "[[", tests, via)
        site.kind = "keyword"  # part of the language: never refused by name
        site.facts = model("[", tests) or Facts()
        site.facts.dynamic_names = names_dynamic
        for w in words:
            refs |= H.word_refs(w)
            self.nested_words(w, node.line, via, depth)
        self.hidden.use(site.index, refs)
        if site.facts.dynamic_names:
            site.reasons.append("a variable name built at run time can run commands (subscripts)")

    def one(self, w: A.Word) -> Arg:
        v = self.words.value(w).fields
        return v[0] if v is not None and len(v) == 1 else None

    # -- simple commands

    def nested_words(self, w: A.Word | None, line: int, via: str, depth: int) -> None:
        for body, how in word_bodies(w):
            with self.child():
                self.walk_list(body, how, depth)

    def simple(self, cmd: A.SimpleCommand, via: str, depth: int) -> None:
        if (error := _unparsed(cmd)) is not None:
            self.out.unparsed.append(error)  # (no command runs: its child fails with status 2)
            return
        argv: list[Arg] = []
        dynamic: list[str] = []
        reasons: list[str] = []
        globs: list[str] = []
        for w in cmd.words:
            if len(w.parts) == 1 and isinstance(w.parts[0], A.AssignWord):
                a = w.parts[0].assign
                value = self.words.value(a.value).fields if a.value is not None else [""]
                # the name is what matters to declaration builtins: keep it static
                argv.append(
                    f"{a.name}=" + (value[0] if value is not None and len(value) == 1 else DYNAMIC_VALUE)
                )
                continue
            v = self.words.value(w)
            if v.glob_dir is not None:
                globs.append(v.glob_dir)
            if v.fields is None:
                argv.append(None)
                dynamic.append(v.kind)
            else:
                argv.extend(v.fields)
                if v.kind:
                    dynamic.append(v.kind)
            if has_indirection(w):
                reasons.append("${!name} uses a variable name built at run time")
        name = argv[0] if argv and (argv[0] is None or "\0" not in argv[0]) else None
        site = self.new_site(cmd.line, _first_text(cmd), name, argv[1:], via)
        site.dynamic_words = dynamic
        site.globs = globs
        site.reasons += reasons
        refs: set[str] = set()
        for a in cmd.assigns:
            site.assigns.append(a.name)
            if a.name in SENSITIVE_VARS:
                site.reasons.append(f"assigning {a.name} changes how later commands run")
            if a.name == "PATH":
                self.hashed.clear()  # bash empties its hash table (temporary assignments too)
            self.assigned(site, a.name, H.plain_assign(a), H.value_refs(a))
            refs |= H.assign_refs(a)
        for w in cmd.words:
            refs |= H.word_refs(w)
            if name in H.DECLARE:
                self.declared(site, w)
        for r in cmd.redirs:
            refs |= H.word_refs(r.target.body) if isinstance(r.target, A.HereDoc) else H.word_refs(r.target)
        self.hidden.use(site.index, refs)
        if not cmd.words:
            site.kind = "none"
        # substitutions run before the command (and only if its name is allowed, once the
        # executor checks the name first)
        outer = self.under_site(site)
        self.redirects(site, cmd.redirs, depth)
        for a in cmd.assigns:
            for body, how in assign_bodies(a):
                with self.child():
                    self.walk_list(body, how, depth)
        for w in cmd.words:
            self.nested_words(w, cmd.line, via, depth)
        self.parent = outer
        if cmd.words:
            self.resolve(site, depth, no_functions=False)
        self.learn(cmd)

    def learn(self, cmd: A.SimpleCommand) -> None:
        """A top-level `NAME=word` nothing else writes: later uses of $NAME are known (known.py)."""
        name = self.known.pending.get(id(cmd))
        value = cmd.assigns[0].value if name is not None else None
        if name is not None and value is not None:
            v = self.words.value(value)
            if v.fields is not None and len(v.fields) == 1 and not v.kind and "\0" not in v.fields[0]:
                self.words.known[name] = v.fields[0]

    def redirects(self, site: Site, redirs: tuple[A.Redir, ...], depth: int) -> None:
        for r in redirs:
            if isinstance(r.target, A.HereDoc):
                site.redirects.append(Redirect(r.op, r.fd, "", "<<" + r.target.delim, "here"))
                if r.target.body is not None and not r.target.quoted:
                    self.nested_words(r.target.body, site.line, site.via, depth)
                continue
            self.nested_words(r.target, site.line, site.via, depth)
            mode = _redirect_mode(r.op, r.target)
            target: Arg = ""
            if mode not in ("here", "dup"):
                target = self.one(r.target)
                if target is not None and "\0" in target:
                    target = None  # a glob: bash takes its single match
            site.redirects.append(Redirect(r.op, r.fd, target, r.target.text, mode))

    def resolve(self, site: Site, depth: int, no_functions: bool, shell_lookup: bool = True) -> None:
        """Decide what the name runs, and follow what that runs in turn. `shell_lookup`: the shell
        looks the name up (its hash table counts); else a program does (env, xargs, find -exec,
        timeout, ...: they search PATH)."""
        hashed = self.hashed if shell_lookup else {}
        name = site.name
        if name is None:
            site.kind = ""
            site.reasons.append("the command name is known only at run time")
            return
        if not no_functions and name in self.functions:
            site.kind = "function"
            if name in self.cd_functions:
                self.cwd = None
        elif name in BUILTINS:
            site.kind = "builtin"
            if name in H.NAME_BUILTINS:
                self.builtin_names(site, name)
            elif name == "hash":
                self.hash_site(site)
            fn = BUILTIN_MODELS.get(name)
            if fn is not None:
                from .models import Call

                call = Call(name, site.argv)
                fn(call)
                site.facts = call.facts
            elif name in PLAIN_BUILTINS:
                site.facts = Facts()
        elif name in hashed:  # `hash -p PATH NAME`: NAME runs PATH's program
            path = hashed[name]
            base = path.rsplit("/", 1)[-1]
            if path.startswith(("/bin/", "/usr/bin/")) and (
                _known(self.commands, base) or base in SHELL_NAMES
            ):
                site.kind, site.runs = ("shell" if base in SHELL_NAMES else "command"), base
                site.facts = model(base, site.argv, self.commands)
            else:
                site.kind, site.runs = "script", path
                site.facts = Facts()
                site.facts.effects.append(_exec_effect(path))
                site.reasons.append(
                    f"{name}: runs {path} (hash -p), a script whose commands only the run knows"
                )
        elif "/" in name:
            base = name.rsplit("/", 1)[-1]
            directory = normpath(name.rsplit("/", 1)[0] or "/") if name.startswith("/") else ""
            if directory in COMMAND_DIRS and (_known(self.commands, base) or base in SHELL_NAMES):
                site.kind = "shell" if base in SHELL_NAMES else "command"
                site.facts = model(base, site.argv, self.commands)
            else:
                site.kind = "script"
                site.facts = Facts()
                site.facts.effects.append(_exec_effect(name))
                site.reasons.append(f"{name}: the commands of a script file are known only at run time")
        elif name in SHELL_NAMES or _known(self.commands, name):
            site.kind = "shell" if name in SHELL_NAMES else "command"
            site.facts = model(name, site.argv, self.commands)
            if site.facts is None:  # a custom command that declares no effects: the check refuses it
                site.unmodelled = True
        else:
            site.kind = "unknown"
        if (
            shell_lookup
            and site.kind in ("command", "shell", "unknown")
            and "/" not in name
            and (name not in hashed)
            and (self.hash_dynamic or name in self.hash_names)
        ):
            site.reasons.append(f"{name}: `hash -p` may make this name run another program at run time")
        if site.facts is not None:
            self.follow(site, site.facts, depth)

    def follow(self, site: Site, facts: Facts, depth: int) -> None:
        self.any_cd = self.any_cd or facts.cwd_change
        for link, target in facts.symlinks:
            self.out.symlinks.append((self.abspath(link, site.cwd), _link_target(link, target, site.cwd)))
        for sources, dest in facts.copies:
            self.out.copies.append(
                ([self.abspath(p, site.cwd) for p in sources], self.abspath(dest, site.cwd))
            )
        site.reasons += facts.opaque
        if facts.dynamic_names:
            site.reasons.append("a variable name built at run time can run commands (subscripts)")
        if depth >= MAX_NESTING and (facts.commands or facts.scripts):
            site.reasons.append("nested too deeply to follow statically")
            return
        saved = self.cwd
        outer = self.under_site(site)
        if facts.sub_cwd_unknown:
            self.cwd = None
        for argv in facts.commands:
            sub = self.new_site(
                site.line, site.text, argv[0] if argv else None, list(argv[1:]), site.name or ""
            )
            sub.column = site.column
            via_name = site.name or ""
            self.resolve(
                sub,
                depth + 1,
                no_functions=via_name not in ("exec", "eval"),
                shell_lookup=(via_name in BUILTINS or via_name == "time")
                and not _std_path(via_name, site.argv),
            )
            if _std_path(via_name, site.argv) and isinstance(sub.name, str):
                self.hashed.pop(sub.name, None)  # bash hashes what `command -p` found
            if sub.kind == "function" and via_name == "builtin":
                sub.kind = "unknown"
        self.cwd = saved
        for text in facts.scripts:
            if text is None:
                site.reasons.append(f"{site.name}: runs shell text known only at run time")
                continue
            body = self.parse(text, site.line, record=False)
            if body is None:
                continue  # a syntax error: the text runs nothing
            self.script(site, body, depth)
        self.parent = outer
        if facts.cwd_change:
            self.cwd = None

    def script(self, site: Site, body: A.CommandList, depth: int) -> None:
        """Shell text a command runs: `eval` in this shell; `trap`/`alias`/`mapfile -C` in this
        shell at a time only the run knows; everything else in a child shell."""
        name = site.name or ""
        saved = self.cwd
        saved_hash = self.hashed, self.hash_names, self.hash_dynamic
        if name not in CURRENT_SHELL_TEXT:  # a child shell starts with an empty hash table
            self.hashed, self.hash_names, self.hash_dynamic = {}, set(), False
        self.hash_prepass(body)
        later = name in LATER_TEXT
        if later and self.may_cd_anywhere():
            self.cwd = None
        self.walk_list(body, f"{name} text", depth + 1)
        if name not in CURRENT_SHELL_TEXT:
            self.cwd = saved
            self.hashed, self.hash_names, self.hash_dynamic = saved_hash
        elif later and self.may_cd(body):
            self.cwd = None

    # -- hidden evaluation and retargeting

    def assigned(self, site: Site, name: str, plain: bool, refs: set[str]) -> None:
        """`name` gets a value (`plain` or not) whose text reads `refs` if `name` is an integer."""
        self.hidden.assign(name, plain)
        if refs:
            self.hidden.int_values.append((site.index, name, refs))

    def declared(self, site: Site, w: A.Word) -> None:
        """An operand of declare/local/export/...: `name=value` (an assignment word, or quoted)."""
        if len(w.parts) == 1 and isinstance(w.parts[0], A.AssignWord):
            a = w.parts[0].assign
            self.assigned(site, a.name, H.plain_assign(a), H.value_refs(a))
            return
        for f in self.words.value(w).fields or ():
            var, eq, value = f.partition("=")
            if eq and not var.startswith(("-", "+")):
                self.assigned(
                    site,
                    var.partition("[")[0],
                    "[" not in value and DYNAMIC_VALUE not in value,
                    H.text_refs(value),
                )

    def arith_site(self, line: int, text: str, refs: set[str], via: str) -> None:
        """Arithmetic outside a simple command (`(( ))`, `for ((;;))`, case and for words)."""
        if refs:
            site = self.new_site(line, text, None, [], via)
            site.kind = "keyword"
            self.hidden.use(site.index, refs)

    def builtin_names(self, site: Site, name: str) -> None:
        """Names given to read, printf -v, declare, unset, let, ...: a subscript is evaluated (and
        may run commands); PATH, PS4 and the like change how later commands run."""
        if name == "let":
            self.hidden.use(
                site.index,
                set().union(*(H.text_refs(a) if a is not None else {H.UNKNOWN_TEXT} for a in site.argv)),
            )
            return
        names, integer, nameref = H.builtin_names(name, site.argv)
        for n in names:
            var, _, value = n.partition("=")
            head, bracket, sub = var.partition("[")
            if H.subscript_code(var):
                site.reasons.append(
                    f"{name}: the subscript of '{var}' is expanded at run time and can run commands"
                )
            elif bracket:
                self.hidden.use(site.index, H.text_refs(sub))
            if head in SENSITIVE_VARS and (name not in ("unset", "let") or head == "PATH"):
                site.reasons.append(f"{name}: setting {head} changes how later commands run")
            if head == "PATH" and name != "export":
                self.hashed.clear()  # bash empties its hash table when PATH is set or unset
            if integer:
                self.hidden.integers.add(head)
            if nameref and ("[" in value or DYNAMIC_VALUE in value):
                site.reasons.append(f"{name}: the nameref '{var}' names a subscript evaluated at run time")
            elif nameref and name != "unset":
                if H.IDENT.fullmatch(value):
                    self.hidden.namerefs.append((head, value))
                    if value in SENSITIVE_VARS:  # `declare -n r=PATH; r=/x` or `unset r` sets it unseen
                        site.reasons.append(
                            f"{name}: the nameref '{head}' names {value}: setting it through "
                            "the nameref changes how later commands run"
                        )
                else:  # `declare -n r` gets its target from the first assignment (or a for loop)
                    site.reasons.append(f"{name}: the nameref '{var}' names a variable only the run knows")
            if name in H.RUNTIME_ASSIGN:
                self.assigned(site, head, False, {H.UNKNOWN_TEXT})

    def hash_prepass(self, body: A.Command) -> None:
        """Every name `body` hashes anywhere: where the walk cannot tell the order, it may run
        another program."""
        for node in _walk_nodes(body):
            if not (isinstance(node, A.SimpleCommand) and node.words):
                continue
            first = self.words.value(node.words[0]).fields
            if not self.lastpipe:  # `shopt -s lastpipe`, `bash -O lastpipe`, or words only the run knows
                args = [self.one(w) for w in node.words[1:]]
                self.lastpipe = (
                    first is None
                    or any(a is not None and "lastpipe" in a for a in args)
                    or (None in args and bool(first) and (first[0] == "shopt" or first[0] in SHELL_NAMES))
                )
            if first == ["hash"]:
                args = [self.one(w) for w in node.words[1:]]
                if None in args:
                    self.hash_dynamic = True
                elif args[:1] == ["-p"]:
                    self.hash_names.update(a for a in args[2:] if a is not None)

    def hash_site(self, site: Site) -> None:
        args = site.argv
        if None in args:
            site.reasons.append("hash: which program a name runs is known only at run time")
        elif args[:1] == ["-r"]:
            self.hashed.clear()
        elif args[:1] == ["-d"]:
            for a in args[1:]:
                self.hashed.pop(str(a), None)
        elif args[:1] == ["-p"] and len(args) >= 3:
            for a in args[2:]:
                self.hashed[str(a)] = str(args[1])

    # -- helpers

    def new_site(self, line: int, text: str, name: Arg, args: list[Arg], via: str) -> Site:
        site = Site(
            line, self.column(line, text), text, name, args, via=via, cwd=self.cwd, parent=self.parent
        )
        site.index = len(self.out.sites)
        self.out.sites.append(site)
        if site.index % 64 == 0:
            self.check_time()
        return site

    def under_site(self, site: Site) -> int | None:
        """Make `site` the parent of the sites walked next; returns the previous parent."""
        saved = self.parent
        self.parent = site.index if site.index >= 0 else saved
        return saved

    def column(self, line: int, text: str) -> int:
        if not text or not 0 < line <= len(self.lines):
            return 1
        src = self.lines[line - 1]
        at = src.find(text, self.cursor.get(line, 0))
        if at < 0:
            at = src.find(text)
        if at < 0:
            return 1
        self.cursor[line] = at + len(text)
        return at + 1

    def abspath(self, path: Arg, cwd: str | None) -> str | None:
        if path is None:
            return None
        if path.startswith("/"):
            return normpath(path)
        return normpath(cwd + "/" + path) if cwd is not None else None


def _known(commands: CommandTable, name: str) -> bool:
    return commands.known(name)


def _exec_effect(path: str) -> Effect:
    return Effect("exec", (path,))


def _assigns(body: A.Command, name: str) -> bool:
    """Whether `name` may be set inside `body` (assignment, or a word naming it: read, declare...)."""
    for node in _walk_nodes(body):
        if isinstance(node, A.SimpleCommand):
            if any(a.name == name for a in node.assigns):
                return True
            for w in node.words:
                if w.text == name or w.text.startswith(name + "=") or w.text.endswith(" " + name):
                    return True
        elif isinstance(node, A.For | A.Select) and node.var == name:
            return True
    return False


def _link_target(link: Arg, target: Arg, cwd: str | None) -> str | None:
    if target is None or link is None:
        return None
    if target.startswith("/"):
        return normpath(target)
    base = link.rsplit("/", 1)[0] if "/" in link else "."
    full = base if base.startswith("/") else (cwd + "/" + base if cwd is not None else None)
    return normpath(full + "/" + target) if full is not None else None


def _redirect_mode(op: str, target: A.Word) -> str:
    if op in ("<<<",):
        return "here"
    if op in ("<&", ">&"):
        text = target.text
        if text.isdigit() or text == "-" or (text.endswith("-") and text[:-1].isdigit()) or not text:
            return "dup"
        if op == "<&":
            return "dup"
        return "write"  # `>& file` is `&> file`
    return {
        "<": "read",
        ">": "write",
        ">|": "write",
        ">>": "append",
        "&>": "write",
        "&>>": "append",
        "<>": "readwrite",
    }.get(op, "write")


def _unparsed(cmd: A.SimpleCommand) -> tuple[int, str] | None:
    """The (line, message) of the command the parser puts in a substitution whose text does not
    parse (syntax/lexer.py's _unparsed_comsub: a word of one Param of prefix "unparsed"), else None."""
    if len(cmd.words) != 1 or cmd.assigns or cmd.redirs:
        return None
    parts = cmd.words[0].parts
    if len(parts) != 1 or type(p := parts[0]) is not A.Param or p.prefix != "unparsed" or p.op is None:
        return None
    return (p.op.arg.line if p.op.arg is not None else cmd.line), p.op.text


def _first_text(cmd: A.SimpleCommand) -> str:
    if cmd.assigns:
        return cmd.assigns[0].text or cmd.assigns[0].name
    if cmd.words:
        return cmd.words[0].text
    if cmd.redirs:
        t = cmd.redirs[0].target
        return t.text if isinstance(t, A.Word) else ""
    return ""


def _walk_nodes(node: Any, into_subshells: bool = True, lastpipe: bool = False) -> Iterator[Any]:
    """Every command node below `node` (not into words' substitutions); `lastpipe`: a pipeline's
    last stage runs in the current shell."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, A.SimpleCommand):
            continue
        if isinstance(n, A.CommandList):
            stack += [i.cmd for i in n.items if into_subshells or not i.background]
        elif isinstance(n, A.Pipeline):
            if into_subshells or len(n.cmds) == 1:
                stack += list(n.cmds)
            elif lastpipe:
                stack.append(n.cmds[-1])
        elif isinstance(n, A.AndOr):
            stack += [n.first] + [c for _, c in n.rest]
        elif isinstance(n, A.Subshell):
            if into_subshells:
                stack.append(n.body)
        elif isinstance(n, A.Group):
            stack.append(n.body)
        elif isinstance(n, A.If):
            stack += [c.cond for c in n.clauses] + [c.body for c in n.clauses]
            if n.else_body is not None:
                stack.append(n.else_body)
        elif isinstance(n, A.While):
            stack += [n.cond, n.body]
        elif isinstance(n, A.For | A.Select | A.ArithFor):
            stack.append(n.body)
        elif isinstance(n, A.Case):
            stack += [i.body for i in n.items if i.body is not None]
        elif isinstance(n, A.FuncDef):
            if into_subshells:
                stack.append(n.body)
        elif isinstance(n, A.Coproc):
            if into_subshells:
                stack.append(n.body)
        elif isinstance(n, A.Redirected):
            stack.append(n.body)


def analyze(
    script: str,
    *,
    cwd: str | None = "/home/user",
    env: Mapping[str, str] | None = None,
    deadline: float | None = None,
    commands: CommandTable = BUILTIN_TABLE,
) -> Analysis:
    """The commands, redirections and functions `script` refers to, without running it.
    `deadline` (time.monotonic()): the walk stops there and marks the analysis `timed_out`."""
    env = dict(env or {"HOME": "/home/user"})
    return Walker(script, cwd, env, deadline, commands).run(script)
