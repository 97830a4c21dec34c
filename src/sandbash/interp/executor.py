"""The executor: how commands run. Simple-command dispatch (function,
builtin, command, script), temporary assignments, pipelines over bounded pipes
in threads, subshells, command and process substitution, background jobs."""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from ..commands import registry
from ..commands.context import CommandExit, CommandTimeout, Ctx
from ..expand.arith import ArithError
from ..expand.env import ExpansionError
from ..expand.quoting import quote_reusable, single_quote
from ..limits import (
    Cancelled,
    DeadlineExpired,
    JobBudget,
    JobSignal,
    LimitExceeded,
    LimitKind,
    MemoryHold,
    thread_deadline,
)
from ..stdio.pipe import Pipe
from ..stdio.streams import (
    BufferWriter,
    ClosedStream,
    NullStream,
    SigPipe,
    Stream,
    StreamError,
    capture_bound,
)
from ..syntax import ast as A
from ..vfs.errors import FsError
from .bashcmd import run_bash
from .builtin_table import BUILTINS, SPECIAL, Builtin
from .control import AbortCommand, ExitShell, LoopControl
from .jobs import notify_dead_jobs
from .runtime import Job
from .variables import AssignError
from .vars import EXPORT, READONLY, AssignArg, Scope, Var

if TYPE_CHECKING:
    from ..expand.words import Expander
    from .evaluator import Evaluator
    from .redirects import Redirections
    from .shell import Shell
    from .state import ShellState
    from .variables import Variables

# where the built-in commands appear to live (Debian's merged /usr: /bin is /usr/bin)
_SYSTEM_DIRS = frozenset({"/bin", "/usr/bin"})
_SHELLS = frozenset({"bash", "sh"})
DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"  # a lookup while PATH is unset


class Executor:
    """How commands run: simple-command dispatch (function, builtin, command, script) through
    the run's gates and audit, temporary assignments, pipelines over bounded pipes in threads,
    subshells, command and process substitution, background jobs. Function calls, `set -e`
    and expansion errors go back to the evaluator."""

    __slots__ = ("sh", "state", "expander", "va", "rd", "ev", "procsubs", "next_procsub_fd",
                 "last_cmdsub_status")

    def __init__(self, sh: Shell, state: ShellState, expander: Expander, va: Variables,
                 rd: Redirections) -> None:
        self.sh = sh
        self.state = state
        self.expander = expander
        self.va = va
        self.rd = rd
        self.ev: Evaluator  # wired by the shell: the evaluator is made after this part
        # this shell's process substitutions (fd, its end, the thread writing or reading it)
        self.procsubs: list[tuple[int, Stream, threading.Thread | None]] = []
        self.next_procsub_fd = 63
        self.last_cmdsub_status: int | None = None

    # ------------------------------------------------------------ simple commands

    def exec_simple(self, cmd: A.SimpleCommand) -> int:
        st = self.state
        st.line = cmd.line
        if not st.in_trap:  # a trap's commands leave $BASH_COMMAND alone
            self.sh.current_command = cmd
        self.sh.rt.budget.command()
        self.last_cmdsub_status = None
        words = cmd.words
        if st.traps and not words:
            debug = st.traps.get("DEBUG")
            if debug and st.in_trap != "DEBUG" and _debug_applies(st):
                self.sh.run_trap_text(debug, "DEBUG")
        if not words and not cmd.redirs and len(cmd.assigns) == 1:
            # `name=value`: the commonest command in loops, without the general machinery
            a = cmd.assigns[0]
            if a.value is not None and a.array is None and not st.opts["xtrace"]:
                try:
                    value = self.expander.string(a.value)
                    if a.append or a.sub is not None:
                        self.va.set_var(a.name, value, sub=a.sub, append=a.append, parsed=a.subscript)
                    else:
                        self.va.set_var(a.name, value)
                except ExpansionError as e:
                    return self.ev.expansion_failed(e)
                except ArithError as e:
                    return self.ev.expansion_failed(ExpansionError(e.render(), 1))
                except AssignError as e:
                    self.sh.error(e.message)
                    st.last_status = 1
                    if e.fatal:
                        self.posix_fatal()
                        raise AbortCommand(1)
                    self.ev.errexit_check(1)
                    return 1
                status = self.last_cmdsub_status or 0
                st.last_status = status
                st.pipestatus = [status]
                if status:
                    self.ev.errexit_check(status)
                return status
        try:
            gates = self.sh.rt.gates
            if gates is not None and gates.policy is not None and words:
                # the policy sees the command name before anything else is expanded:
                # a refused command cannot run the $(...) in its arguments
                argv = self.expand_argv(words[:1])
                # (`PATH=... cmd`: the assignment empties the hash table before the lookup)
                if argv and self._first_word_refused(argv[0], any(a.name == "PATH" for a in cmd.assigns)):
                    st.last_status = 126
                    st.pipestatus = [126]
                    self.ev.errexit_check(126)
                    return 126
                argv.extend(self.expand_argv(words[1:]))
            else:
                argv = self.expand_argv(words)
            if self.sh.pending_args is not None and argv:
                # exec(args=...): arguments of the first command that runs, never its name
                argv.extend(self.sh.pending_args)
                self.sh.pending_args = None
            if not argv:
                return self._assignments_only(cmd)
            trace: list[str] | None = [] if st.opts["xtrace"] else None
            temp = self.temp_scope(cmd.assigns, trace, argv[0]) if cmd.assigns else None
        except ExpansionError as e:
            self.finish_procsubs()
            return self.ev.expansion_failed(e)
        except ArithError as e:
            self.finish_procsubs()
            return self.ev.expansion_failed(ExpansionError(e.render(), 1))
        except AssignError as e:
            self.sh.error(e.message)
            st.last_status = 1
            return 1
        held = self.expander.argv_held()
        if held:
            self.sh.rt.budget.charge_memory(held)
        try:
            if trace is not None:
                for piece in trace:
                    self.xtrace_line(piece)
                self.xtrace_line(" ".join(_xquote(a) for a in argv))
            if st.traps:
                debug = st.traps.get("DEBUG")
                if debug and st.in_trap != "DEBUG" and _debug_applies(st):
                    self.sh.run_trap_text(debug, "DEBUG")
            rt = self.sh.rt
            if rt.gates is None:
                # dispatch() without gates to consult: straight to the run
                name = argv[0]
                fdef, builtin = _callable(st, name)
                if temp is not None or cmd.redirs or (builtin is not None and name == "exec"):
                    status = self._dispatch_run(argv, temp, cmd.redirs, fdef, builtin, False)
                elif fdef is not None:
                    # what _dispatch_run does without redirections or temporary assignments
                    try:
                        status = self.ev.call_function(name, fdef, argv, None)
                    except AssignError as e:
                        self.sh.error(e.message)
                        status = 1
                elif builtin is not None:
                    try:
                        status = _run_builtin(self.sh, builtin, name, argv)
                    except AssignError as e:
                        self.sh.error(e.message)
                        status = 1
                else:
                    status = self._dispatch_run(argv, temp, cmd.redirs, fdef, builtin, False)
            else:
                status = self.dispatch(argv, temp, cmd.redirs)
            st.last_arg = argv[-1]
        finally:
            if held:
                self.sh.rt.budget.release_memory(held)
            if self.procsubs:
                self.finish_procsubs()
        st.last_status = status
        st.pipestatus = [status]
        if status:
            self.ev.errexit_check(status)
        return status

    def expand_argv(self, words: tuple[A.Word, ...]) -> list[str]:
        expander = self.expander
        expander.begin_argv()
        out: list[str] = []
        for w in words:
            parts = w.parts
            if len(parts) == 1:
                p = parts[0]
                t = type(p)
                if t is A.Lit:
                    text = p.text  # type: ignore[union-attr]
                    if not ("*" in text or "?" in text or "[" in text or "(" in text):
                        out.append(text)  # a plain word: nothing to expand
                        continue
                elif t is A.AssignWord:
                    out.append(self.expand_assign_arg(p.assign))  # type: ignore[union-attr]
                    continue
            out.extend(expander.word(w))
        if len(out) > self.sh.rt.limits.max_arguments:
            expander.end_argv(out)
        return out

    def expand_assign_arg(self, a: A.Assign) -> AssignArg:
        if a.array is None and a.sub is None and not a.append:
            # `local x=$y`, `declare n=1`: the commonest form
            name = a.name
            value = self.expander.string(a.value) if a.value is not None else ""
            obj = AssignArg(name + "=" + value)
            obj.name = name
            obj.value = value
            return obj
        name, sub, append, value, items = self.expand_assignment(a)
        head = name + (f"[{sub}]" if sub is not None else "") + ("+=" if append else "=")
        if items is not None:
            text = head + "(" + " ".join(v for _, v, _ in items) + ")"
        else:
            text = head + value
        return AssignArg.make(text, name, sub, append, value, items)

    def expand_assignment(
        self, a: A.Assign
    ) -> tuple[str, str | None, bool, str, list[tuple[str | None, str, bool]] | None]:
        """Expand one assignment's value (nothing is assigned yet)."""
        if a.array is not None:
            items: list[tuple[str | None, str, bool]] = []
            assoc = self.sh.is_assoc(a.name)
            for item in a.array:
                if item.key is not None:
                    key = self.expander.string(item.key)
                    items.append((key, self.expander.string(item.value), item.append))
                else:
                    for v in self.expander.words((item.value,)):
                        items.append((None, v, False))
            del assoc
            return a.name, a.sub, a.append, "", items
        value = self.expander.string(a.value) if a.value is not None else ""
        return a.name, a.sub, a.append, value, None

    def _assignments_only(self, cmd: A.SimpleCommand) -> int:
        """`a=1 b=$a`: each assignment is expanded and made in turn."""
        st = self.state
        trace = st.opts["xtrace"]
        try:
            for a in cmd.assigns:
                name, sub, append, value, items = self.expand_assignment(a)
                if trace:
                    self.xtrace_line(_trace_assign(name, sub, append, value, items))
                if items is not None:
                    if sub is not None:
                        raise AssignError(f"{name}[{sub}]: cannot assign list to array member")
                    self.va.set_array(name, items, append=append)
                else:
                    self.va.set_var(name, value, sub=sub, append=append, parsed=a.subscript)
        except AssignError as e:
            self.sh.error(e.message)
            st.last_status = 1
            # assignment errors discard the rest of the command line
            if e.fatal:
                self.posix_fatal()
                raise AbortCommand(1)
            self.ev.errexit_check(1)
            return 1
        except ExpansionError as e:
            return self.ev.expansion_failed(e)
        except ArithError as e:
            return self.ev.expansion_failed(ExpansionError(e.render(), 1))
        status = self.last_cmdsub_status if self.last_cmdsub_status is not None else 0
        if cmd.redirs:
            undo = self.rd.apply_redirects(cmd.redirs)
            if undo is None:
                st.last_status = 1
                self.ev.errexit_check(1)
                return 1
            self.rd.restore_redirects(undo)
        st.last_status = status
        st.pipestatus = [status]
        self.ev.errexit_check(status)
        return status

    # ------------------------------------------------------------ dispatch

    def dispatch(
        self,
        argv: list[str],
        temp: Scope | None,
        redirs: tuple[A.Redir, ...],
        *,
        no_functions: bool = False,
        builtins_only: bool = False,
    ) -> int:
        """Run argv as a function, builtin or command. `temp` holds the command's
        temporary assignments (`x=1 cmd`), already expanded and exported. The
        policy (and the embedder's command gate) decide here; audit events too."""
        st = self.state
        name = argv[0]
        rt = self.sh.rt
        fdef, builtin = _callable(st, name, no_functions)
        if rt.gates is None:
            return self._dispatch_run(argv, temp, redirs, fdef, builtin, builtins_only)
        found: tuple[str, str] | None = None
        if fdef is not None:
            kind, runs = "function", name
        elif builtin is not None:
            kind, runs = "builtin", name
        else:
            # the gate decides on what will run (hash table, PATH), and the run uses that same lookup
            if temp is not None:  # `PATH=/x cmd` looks cmd up in /x
                st.vars.push(temp)
            try:
                found = self.find_command(name)
            finally:
                if temp is not None:
                    st.vars.pop()
            kind, runs = found[0], _runs(name, *found)
        return self.run_gated(argv, kind, runs, lambda: self._dispatch_run(argv, temp, redirs, fdef, builtin,
                                                                      builtins_only, found))

    def run_gated(self, argv: list[str], kind: str, runs: str, run: Callable[[], int]) -> int:
        """Audit and gate one command that runs `runs` (see _runs), then `run()` it unless refused."""
        gates = self.sh.rt.gates
        if gates is None:
            return run()
        return gates.run(argv, kind, runs, run, lambda refusal: self._refused(argv[0], refusal))

    def _refused(self, name: str, refusal: str) -> None:
        self.sh.write_err(f"{self.sh.err_prefix()}{name}: {refusal}\n")

    def resolve_command(self, name: str, unhashed: bool = False) -> tuple[str, str]:
        """(kind, what runs) for `name` as a simple command would run it; `unhashed`: searching PATH
        without the hash table."""
        st = self.state
        if name in st.functions:
            return "function", name
        if name in BUILTINS and name not in st.disabled_builtins:
            return "builtin", name
        path = (self.va.get_str("PATH") or DEFAULT_PATH) if unhashed else None
        kind, where = self.find_command(name, path)
        return kind, _runs(name, kind, where)

    def _first_word_refused(self, name: str, unhashed: bool = False) -> bool:
        gates = self.sh.rt.gates
        assert gates is not None
        kind, runs = self.resolve_command(name, unhashed)
        refusal = gates.name_refusal(name, kind, runs)
        if refusal is None:
            return False
        self._refused(name, refusal)
        return True

    def gate_refuses(self, argv: list[str], kind: str, runs: str | None = None) -> bool:
        """Ask the policy and the embedder's gate about argv, which runs `runs` (resolved here from
        the hash table and PATH when not given); a refusal is reported (`bash: NAME: ...`, status
        126 for the caller)."""
        gates = self.sh.rt.gates
        if gates is None:
            return False
        if runs is None:
            runs = argv[0]
            if kind in ("command", "shell", "script"):
                runs = _runs(argv[0], *self.find_command(argv[0]))
        refusal = gates.refusal(argv, kind, runs)
        if refusal is None:
            return False
        self._refused(argv[0], refusal)
        return True

    def _dispatch_run(
        self,
        argv: list[str],
        temp: Scope | None,
        redirs: tuple[A.Redir, ...],
        fdef: A.FuncDef | None,
        builtin: Builtin | None,
        builtins_only: bool,
        found: tuple[str, str] | None = None,
    ) -> int:
        st = self.state
        name = argv[0]
        if builtin is not None and name == "exec" and all(a == "--" for a in argv[1:]):
            # `exec` without a command: its redirections stay in effect
            return 0 if not redirs or self.rd.apply_redirects(redirs) is not None else 1
        undo = self.rd.apply_redirects(redirs) if redirs else []
        if undo is None:
            return 1
        try:
            if fdef is not None:
                return self.ev.call_function(name, fdef, argv, temp)
            # POSIX: assignments before a special builtin persist (and stay
            # exported) once it returns; whatever it unset stays unset
            persist = builtin is not None and temp is not None and name in SPECIAL and st.opts["posix"]
            if temp is not None:
                st.vars.push(temp)
            try:
                if builtin is not None:
                    return _run_builtin(self.sh, builtin, name, argv)
                if builtins_only:
                    self.sh.builtin_error("builtin", f"{name}: not a shell builtin")
                    return 1
                return self.run_external(argv, self.va.exported_env(), found)
            finally:
                if temp is not None:
                    if st.vars.scopes and st.vars.scopes[-1] is temp:
                        st.vars.pop()
                    elif temp in st.vars.scopes:
                        st.vars.scopes.remove(temp)
                    if persist:
                        self._persist_temp(temp)
        except AssignError as e:
            self.sh.error(e.message)
            return 1
        finally:
            if undo:
                self.rd.restore_redirects(undo)

    def _persist_temp(self, temp: Scope) -> None:
        st = self.state
        for tname, tvar in temp.items():
            if tvar.value is None:
                continue
            target = st.vars.find(tname)
            if target is not None:
                target.value = tvar.value
                target.attrs |= EXPORT
            else:
                st.vars.globals[tname] = tvar

    def posix_fatal(self) -> None:
        """In POSIX mode an assignment error in an assignment statement or before a
        special builtin ends the shell (127 at the top of `bash -c`, as bash does)."""
        st = self.state
        if st.opts["posix"]:
            raise ExitShell(127 if st.mode == "c" and st.subshell == 0 else 1)

    def temp_scope(self, assigns: tuple[A.Assign, ...], trace: list[str] | None,
                   command: str | None = None) -> Scope:
        """Expand `x=1 y=$x cmd` assignments left to right into a temporary scope
        (each sees the previous ones); arrays become their text, readonly names
        are reported and skipped (in POSIX mode they abort the line, or end the
        shell before a special builtin)."""
        st = self.state
        temp = Scope(temp=True)
        st.vars.push(temp)
        try:
            for a in assigns:
                name, sub, append, value, items = self.expand_assignment(a)
                if items is not None:
                    value = "(" + " ".join(v if k is None else f"[{k}]{'+=' if ap else '='}{v}"
                                           for k, v, ap in items) + ")"
                if trace is not None:
                    trace.append(_trace_assign(name, sub, append, value, None))
                var = st.vars.find(name)
                if var is not None and var.attrs & READONLY and name not in temp:
                    self.sh.error(f"{name}: readonly variable")
                    if st.opts["posix"]:
                        if command in SPECIAL:
                            self.posix_fatal()
                        raise AbortCommand(1)
                    continue
                if append and name not in temp and var is not None and isinstance(var.value, str):
                    value = var.value + value
                    append = False
                self.va.set_var(name, value, sub=sub, append=append, scope=temp, parsed=a.subscript)
                tvar = temp.get(name)
                if tvar is not None:
                    tvar.attrs |= EXPORT
        finally:
            st.vars.pop()
        return temp

    def find_command(self, name: str, path: str | None = None) -> tuple[str, str]:
        """('command', path) for a registry command, ('script', path) for an
        executable file, ('shell', path) for bash/sh, or ('', reason). `path`
        searches another PATH than the shell's (and skips the hash table)."""
        st = self.state
        if "/" in name:
            if any(len(part.encode("utf-8", "surrogateescape")) > 255 for part in name.split("/")):
                return "", "File name too long"
            # /bin/NAME and /usr/bin/NAME run the built-in command (the files there only describe it)
            directory, _, base = name.rpartition("/")
            if st.fs.normpath(directory or "/") in _SYSTEM_DIRS and (base in _SHELLS or self._builtin_command(base)):
                return ("shell" if base in _SHELLS else "command", name)
            stat = st.fs.try_stat(name)
            if stat is None:
                return "", "No such file or directory"
            if stat.is_dir:
                return "", "Is a directory"
            return "script", name
        cached = st.hashed.get(name) if path is None else None
        if cached is not None:
            kind, _, where = cached.partition(":")
            if kind != "script" or st.fs.try_stat(where) is not None:
                return kind, where
            del st.hashed[name]  # the hashed file is gone: search again
        if path is None:
            path = self.va.get_str("PATH")
        dirs = (path if path is not None else DEFAULT_PATH).split(":")
        for d in dirs:
            d = d or "."
            candidate = d.rstrip("/") + "/" + name
            if st.fs.normpath(d) in _SYSTEM_DIRS:  # the command directories hold only built-in commands
                if name in _SHELLS:
                    return "shell", candidate
                if self._builtin_command(name):
                    return "command", candidate
                continue
            stat = st.fs.try_stat(candidate)
            if stat is not None and stat.is_file and stat.mode & 0o111:
                return "script", candidate
        return "", ""

    def _builtin_command(self, name: str) -> bool:
        """A command of the table that exists in this sandbox (curl and wget
        only when a network is configured)."""
        if name in registry.NETWORK_COMMANDS and self.sh.rt.network is None:
            return False
        if name in registry.HOST_COMMANDS and self.sh.rt.host is None:
            return False
        return registry.known(name)

    def command_visible(self, name: str) -> bool:
        """Whether `type`, `command -v`, `which`, `hash` and `help` may show `name`."""
        gates = self.sh.rt.gates
        if gates is None or gates.policy is None:
            return True
        kind, runs = self.resolve_command(name)
        return gates.visible(name, kind, runs)

    def _find_program(self, name: str, path: str | None = None) -> str | None:
        # not filtered by the policy: env/xargs/timeout must reach the gate (126, its message)
        kind, where = self.find_command(name, path)
        return where if kind else None

    def run_external(self, argv: list[str], env: dict[str, str], found: tuple[str, str] | None = None) -> int:
        """Run argv as a command or script; `found`: the lookup the gate decided on (find_command)."""
        st = self.state
        name = argv[0]
        cached = st.hashed.get(name)
        if cached is not None and cached.startswith("script:") and not st.shopts.get("checkhash"):
            stale = cached[len("script:"):]
            if st.fs.try_stat(stale) is None:
                # bash runs the remembered path without searching again
                self.sh.error(f"{stale}: No such file or directory")
                return 127
        kind, where = found if found is not None else self.find_command(name)
        if kind == "":
            if "/" in name:
                self.sh.error(f"{name}: {where}")
                return 126 if where in ("Is a directory", "File name too long") else 127
            handler = st.functions.get("command_not_found_handle")
            if handler is not None:
                return self.ev.call_function("command_not_found_handle", handler, ["command_not_found_handle", *argv], None)
            self.sh.error(f"{name}: command not found")
            from ..commands.shellutils.hints import not_found_hint  # the rare path only

            hint = not_found_hint(name, lambda alt: self._builtin_command(alt) and self.command_visible(alt))
            if hint is not None:
                self.sh.write_err(hint + "\n")
            return 127
        if st.opts["hashall"] and "/" not in name:
            st.hashed.setdefault(name, f"{kind}:{where}")
        if kind == "shell":
            return self.run_shell_command(argv, env)
        if kind == "script":
            return self.run_script_file(where, argv, env)
        base = where.rsplit("/", 1)[-1]
        return self.run_registry(base, argv, env)

    def run_registry(self, name: str, argv: list[str], env: Mapping[str, str]) -> int:
        fn = registry.lookup(name, host=self.sh.rt.host is not None)
        if fn is None:
            self.sh.error(f"{argv[0]}: command not found")
            return 127
        io = self.state.fds
        ctx = Ctx(
            argv[0].rsplit("/", 1)[-1] if "/" in argv[0] else argv[0],
            argv[1:],
            io.get(0) or ClosedStream(),
            io.get(1) or ClosedStream(),
            io.get(2) or ClosedStream(),
            self.state.fs,
            env,
            self.sh.rt.budget,
            fds=dict(io),
            runner=self._ctx_runner,
            script_runner=self._ctx_script_runner,
            clock=self.sh.rt.clock,
            rng=self.state.rng,
            extra={"identity": self.sh.rt.identity, "network": self.sh.rt.network, "host": self.sh.rt.host,
                   "gate": self.sh.rt.policy_gate},
            finder=self._find_program,
        )
        try:
            status = fn(ctx)
            if self.sh.rt.jobs and not self.state.subshell:
                notify_dead_jobs(self.sh)  # bash reports jobs killed by a signal when a foreground command ends
            return status
        except CommandExit as e:
            return e.status
        except MemoryError:
            # what slipped past the charged seams is still the memory limit, never an internal error
            raise LimitExceeded(LimitKind.MAX_MEMORY, self.sh.rt.limits.max_memory) from None
        except RecursionError:
            self.sh.builtin_error(name, "internal error (recursion too deep)")
            return 1
        except SigPipe:
            return 141  # the command, a process of its own in bash, dies of SIGPIPE; the shell goes on
        except (LimitExceeded, Cancelled, ExitShell, DeadlineExpired):
            raise
        except FsError as e:
            self.sh.write_err(f"{name}: {e.path}: {e.message}\n")
            return 1
        except StreamError as e:  # stdout closed (`>&-`) or not writable: GNU's write error
            self.sh.write_err(f"{name}: write error: {e.strerror}\n")
            return 1
        except Exception as e:  # a bug in a command must not reach the caller as a traceback
            self.sh.write_err(f"{self.sh.err_prefix(False)}{name}: internal error ({type(e).__name__}: {e})\n")
            return 1

    def _ctx_runner(
        self,
        argv: Sequence[str],
        stdin: Stream,
        stdout: Stream,
        stderr: Stream,
        env: Mapping[str, str] | None,
        cwd: str | None = None,
        timeout: float | None = None,
    ) -> int:
        """Ctx.run: a sub-command from a command (xargs, find -exec, env ...)."""
        child = self.sh.fork()
        child.state.hashed = {}  # a program's own exec searches PATH: the shell's hash table is not its
        if timeout is not None:
            child.rt = self.sh.rt.with_budget(self.sh.rt.budget.child(timeout))
        child.state.fds.update({0: stdin, 1: stdout, 2: stderr})
        if cwd is not None:
            child.state.fs.cwd = child.state.fs.normpath(cwd)
        if env is not None:
            # `env -i`, `env X=1 cmd`: the child sees exactly this environment
            scope = child.state.vars.globals
            for n, v in list(scope.items()):
                if v.attrs & EXPORT and n not in env:
                    v.attrs &= ~EXPORT
            for n, val in env.items():
                scope[n] = Var(val, EXPORT)
        try:
            child.rt.budget.command()
            if timeout is None:
                return child.ex.dispatch(list(argv), None, (), no_functions=True)
            with thread_deadline(child.rt.budget):
                return child.ex.dispatch(list(argv), None, (), no_functions=True)
        except ExitShell as e:
            return e.status
        except DeadlineExpired:
            raise CommandTimeout() from None

    def _ctx_script_runner(
        self,
        script: str,
        args: Sequence[str],
        stdin: Stream,
        stdout: Stream,
        stderr: Stream,
        env: Mapping[str, str] | None,
    ) -> int:
        """Ctx.run_script: `sh -c SCRIPT` semantics (awk system(), sed e)."""
        child = self.spawn_shell(env if env is not None else self.va.exported_env())
        child.state.fds.update({0: stdin, 1: stdout, 2: stderr})
        child.state.arg0 = args[0] if args else "sh"
        child.state.positional = list(args[1:])
        return child.run_toplevel(script, "-c")

    # ------------------------------------------------------------ child shells and scripts

    def spawn_shell(self, env: Mapping[str, str]) -> Shell:
        """A new shell process: fresh state from the environment (bash's
        inheritance rules: exported variables and functions, cwd, umask, fds)."""
        from .state import ShellState

        st = self.state
        state = ShellState(st.fs.copy(), dict(st.fds))
        state.umask = st.umask
        state.mode = "c"
        state.rng.seed(st.rng.random())
        child = self.sh.new_process(state)
        child.call_depth = self.sh.call_depth + 1
        if child.call_depth > self.sh.rt.limits.max_call_depth:
            raise LimitExceeded(LimitKind.MAX_CALL_DEPTH, self.sh.rt.limits.max_call_depth)
        child.init_variables(dict(env))
        for fname, fdef in st.functions.items():
            if f"BASH_FUNC_{fname}%%" in env or fname in self.exported_functions():
                state.functions[fname] = fdef
        level = self.va.get_str("SHLVL")
        try:
            child.set_var("SHLVL", str(int(level or "0") + 1))
        except ValueError:
            child.set_var("SHLVL", "1")
        v = child.state.vars.find("SHLVL")
        if v is not None:
            v.attrs |= EXPORT
        child.state.bashpid = self.sh.rt.new_pid()
        return child

    def exported_functions(self) -> set[str]:
        return self.state.exported_funcs

    def run_shell_command(self, argv: list[str], env: dict[str, str]) -> int:
        return run_bash(self.sh, argv, env)

    def run_script_file(self, path: str, argv: list[str], env: dict[str, str]) -> int:
        st = self.state
        stat = st.fs.try_stat(path)
        if stat is None:
            self.sh.error(f"{argv[0]}: No such file or directory")
            return 127
        if not stat.mode & 0o111:
            self.sh.error(f"{argv[0]}: Permission denied")
            return 126
        try:
            data = st.fs.read_bytes(path)
        except FsError as e:
            self.sh.error(f"{argv[0]}: {e.message}")
            return 126
        text = data.decode("utf-8", "surrogateescape")
        return self._run_interpreted(text, path, argv, env)

    def _run_interpreted(self, text: str, path: str, argv: list[str], env: dict[str, str]) -> int:
        """Run a script file as execve does. Its interpreter is a command of its own, decided by the
        gate like any other (with the kernel's argv: the shebang's path first); `#!/usr/bin/env
        PROG` runs env, which looks PROG up and runs it through the gate in turn. The interpreter's
        path is never searched in PATH (`#!rm` is ./rm), only /bin and /usr/bin hold commands, and
        an interpreter that is a script is followed as the kernel does."""
        first: list[str] = []
        cur_text, cur_path, cur_argv = text, path, argv
        for level in range(MAX_INTERPRETER_SCRIPTS + 1):
            interp = _shebang(cur_text)
            if not interp:  # no interpreter (or one the kernel cannot run): the shell runs the file
                return self._run_file_in_child(text, argv, env)
            first = first or interp
            iargv = [*interp, cur_path, *cur_argv[1:]]
            prog = interp[0].rsplit("/", 1)[-1]
            kind, where = self.find_command(interp[0] if "/" in interp[0] else "./" + interp[0])
            if kind == "shell":
                run = functools.partial(self._run_file_in_child, cur_text, cur_argv, env)
                return self.run_gated(iargv, "shell", prog, run)
            if kind == "command":
                return self.run_gated(iargv, "command", prog, functools.partial(self.run_registry, prog, iargv, env))
            if kind != "script":
                break
            stat = self.state.fs.try_stat(where)
            if stat is None or not stat.mode & 0o111 or level == MAX_INTERPRETER_SCRIPTS:
                why = "Permission denied" if stat is not None and not stat.mode & 0o111 else \
                    "Too many levels of symbolic links"
                self.sh.write_err(f"{self.state.arg0}: {argv[0]}: {first[0]}: bad interpreter: {why}\n")
                return 126
            try:
                cur_text = self.state.fs.read_bytes(where).decode("utf-8", "surrogateescape")
            except FsError as e:
                self.sh.write_err(f"{self.state.arg0}: {argv[0]}: {first[0]}: bad interpreter: {e.message}\n")
                return 126
            cur_path, cur_argv = interp[0], iargv
        # (bash reports a failed execve of an interpreter without the line number, a missing one with it)
        self.sh.error(f"{argv[0]}: cannot execute: required file not found")
        return 127

    def _run_file_in_child(self, text: str, argv: list[str], env: dict[str, str]) -> int:
        child = self.spawn_shell(env)
        child.state.arg0 = argv[0]
        child.state.positional = argv[1:]
        child.state.mode = "file"
        return child.run_toplevel(text, None)

    # ------------------------------------------------------------ subshells and substitutions

    def run_subshell_body(self, body: A.CommandList | A.Command) -> int:
        try:
            if isinstance(body, A.CommandList):
                status = self.ev.run_list(body)
            else:
                status = self.ev.execute(body)
        except (ExitShell, AbortCommand) as e:
            status = e.status
        except LoopControl:
            # a substitution inside a loop sees that loop (bash): `$(break)` ends the substitution
            status = 0
        return self.sh.run_exit_trap(status)

    def run_command_sub(self, body: A.CommandList, text: str) -> str:
        limits = self.sh.rt.limits
        if self.sh.subst_depth + self.sh.eval_depth >= limits.max_substitution_depth:
            raise LimitExceeded(LimitKind.MAX_SUBSTITUTION_DEPTH, limits.max_substitution_depth)
        data = self._cat_file_shortcut(body)
        if data is None:
            child = self.sh.fork()
            child.subst_depth = self.sh.subst_depth + 1
            child.state.loop_depth = self.state.loop_depth  # `$(break)` in a loop: run_subshell_body
            # the capture is held while it grows: bounded by max_string_length and max_output_size,
            # and charged to max_memory
            with MemoryHold(self.sh.rt.budget) as held:
                out = BufferWriter(charge=held.charge, **capture_bound(limits))
                child.state.fds[1] = out
                if not child.state.shopts["inherit_errexit"]:
                    child.state.opts["errexit"] = False
                status = child.ex.run_subshell_body(body)
                self.last_cmdsub_status = status
                self.state.last_status = status
                data = out.getvalue()
        if b"\0" in data:
            self.sh.warn("command substitution: ignored null byte in input")
            data = data.replace(b"\0", b"")
        return data.rstrip(b"\n").decode("utf-8", "surrogateescape")

    def _cat_file_shortcut(self, body: A.CommandList) -> bytes | None:
        """`$(< file)` reads the file without running a command."""
        if len(body.items) != 1 or body.items[0].background:
            return None
        cmd = body.items[0].cmd
        if not (isinstance(cmd, A.SimpleCommand) and not cmd.words and not cmd.assigns and len(cmd.redirs) == 1):
            return None
        redir = cmd.redirs[0]
        if redir.op != "<" or redir.fd not in (None, 0) or not isinstance(redir.target, A.Word):
            return None
        targets = self.expander.words((redir.target,))
        if len(targets) != 1:
            return None
        try:
            data = self.state.fs.read_bytes(targets[0])
        except FsError as e:
            self.sh.error(f"{targets[0]}: {e.message}")
            self.last_cmdsub_status = 1
            self.state.last_status = 1
            return b""
        self.last_cmdsub_status = 0
        self.state.last_status = 0
        return data

    def start_process_sub(self, body: A.CommandList, direction: str) -> str:
        depth_limit = self.sh.rt.limits.max_substitution_depth
        if self.sh.subst_depth + self.sh.eval_depth >= depth_limit:
            raise LimitExceeded(LimitKind.MAX_SUBSTITUTION_DEPTH, depth_limit)
        fd = self.next_procsub_fd
        while fd in self.state.fds:
            fd -= 1
        if fd < 10:
            # 63 down to 10 are taken (10 and below belong to the script): look above 63
            fd = 64
            while fd in self.state.fds:
                fd += 1
            limit = self.sh.rt.limits.max_file_descriptors
            if fd >= limit:
                raise LimitExceeded(LimitKind.MAX_FILE_DESCRIPTORS, limit)
        self.next_procsub_fd = fd - 1
        pipe = Pipe(checkpoint=self.sh.rt.budget.check_time)
        child = self.sh.fork()
        child.subst_depth = self.sh.subst_depth + 1
        child.state.loop_depth = self.state.loop_depth
        mine: Stream
        if direction == "<":
            child.state.fds[1] = pipe.writer
            mine = pipe.reader
            theirs: Stream = pipe.writer
        else:
            child.state.fds[0] = pipe.reader
            mine = pipe.writer
            theirs = pipe.reader
        errors: list[BaseException] = []

        def run() -> None:
            try:
                child.ex.run_subshell_body(body)
            except SigPipe:
                pass
            except BaseException as e:  # re-raised in the parent when it finishes
                errors.append(e)
                if isinstance(e, LimitExceeded):
                    # and the run ends with it even when it is never finished (`done < <(…)` stays
                    # open past the commands that would finish it: its reader just saw end of input)
                    self.sh.rt.budget.fail(e)
            finally:
                theirs.close()

        thread = self.sh.rt.spawn(run)
        if thread is not None:
            thread.procsub_errors = errors  # type: ignore[attr-defined]
        self.state.fds[fd] = mine
        self.procsubs.append((fd, mine, thread))
        return f"/dev/fd/{fd}"

    def finish_procsubs(self) -> None:
        subs = self.procsubs
        self.procsubs = []
        for fd, stream, thread in subs:
            if self.state.fds.get(fd) is stream:
                del self.state.fds[fd]
            if any(s is stream for s in self.state.fds.values()):
                continue  # still open on another fd (`exec 3< <(...)`): keep it
            stream.close()
            if thread is not None:
                while thread.is_alive():
                    thread.join(0.05)
                    self.sh.rt.budget.check_time()
                # a limit inside the substitution ends the run as it would anywhere else
                for e in getattr(thread, "procsub_errors", ()):
                    if isinstance(e, (LimitExceeded, Cancelled)):
                        raise e
        self.next_procsub_fd = 63

    # ------------------------------------------------------------ pipelines

    def exec_pipeline(self, node: A.Pipeline) -> int:
        st = self.state
        st.line = node.line
        cmds = node.cmds
        if node.timed:
            import time as _time

            t0 = _time.monotonic()
        if node.negate:
            st.errexit_ignored += 1
        try:
            if not cmds:
                status = 0
                st.pipestatus = [0]
            elif len(cmds) == 1:
                status = self.ev.execute(cmds[0])
                st.pipestatus = [status]
            else:
                status = self._run_stages(node)
        finally:
            if node.negate:
                st.errexit_ignored -= 1
        if node.timed:
            elapsed = _time.monotonic() - t0
            self._report_time(elapsed, node.time_posix)
        if node.negate:
            status = 0 if status else 1
        st.last_status = status
        if len(cmds) > 1 and not node.negate:
            self.ev.errexit_check(status)
        return status

    def _report_time(self, elapsed: float, posix: bool) -> None:
        fmt = self.va.get_str("TIMEFORMAT")
        if posix:
            text = f"real {elapsed:.2f}\nuser 0.00\nsys 0.00\n"
        elif fmt is not None:
            text = fmt.replace("%R", f"{elapsed:.3f}").replace("%3R", f"{elapsed:.3f}").replace("%U", "0.000").replace(
                "%S", "0.000").replace("%P", "0.00") + "\n"
        else:
            m, s = divmod(elapsed, 60)
            text = f"\nreal\t{int(m)}m{s:.3f}s\nuser\t0m0.000s\nsys\t0m0.000s\n"
        self.sh.write_err(text)

    def _run_stages(self, node: A.Pipeline) -> int:
        st = self.state
        cmds = node.cmds
        n = len(cmds)
        limit = self.sh.rt.limits.max_pipeline_depth
        if n > limit:
            raise LimitExceeded(LimitKind.MAX_PIPELINE_DEPTH, limit)
        statuses = [0] * n
        errors: list[BaseException] = []
        threads: list[threading.Thread] = []
        prev_reader: Stream | None = None
        lastpipe = st.shopts["lastpipe"] and not st.opts["monitor"]
        checkpoint = self.sh.rt.budget.check_time
        last_child: Shell | None = None
        for i, cmd in enumerate(cmds):
            last = i == n - 1
            if last and lastpipe:
                child = self.sh
                saved0 = st.fds.get(0)
            else:
                child = self.sh.fork()
                if i == 0:
                    self.hand_over_args(child)
            if prev_reader is not None:
                child.state.fds[0] = prev_reader
            writer: Stream | None = None
            if not last:
                pipe = Pipe(checkpoint=checkpoint)
                writer = pipe.writer
                child.state.fds[1] = writer
                if node.stderr_links and node.stderr_links[i]:
                    child.state.fds[2] = writer
                next_reader: Stream | None = pipe.reader
            else:
                next_reader = None
            if last:
                last_child = child
                try:
                    if child is self.sh:
                        try:
                            statuses[i] = self.ev.execute(cmd)
                        finally:
                            if saved0 is None:
                                st.fds.pop(0, None)
                            else:
                                st.fds[0] = saved0
                    else:
                        statuses[i] = _stage_status(child, cmd)
                finally:
                    if prev_reader is not None:
                        prev_reader.close()
            else:
                reader_in = prev_reader
                t = self.sh.rt.spawn(functools.partial(_run_stage, child, cmd, writer, reader_in, statuses, i, errors))
                threads.append(t)
            prev_reader = next_reader
        budget = self.sh.rt.budget
        for t in threads:
            while t.is_alive():
                t.join(0.05)
                try:
                    budget.check_time()
                except BaseException:
                    raise
        if errors:
            raise errors[0]
        del last_child
        st.pipestatus = list(statuses)
        if st.opts["pipefail"]:
            for s in reversed(statuses):
                if s != 0:
                    return s
            return 0
        return statuses[-1]

    def hand_over_args(self, child: Shell) -> None:
        """exec(args=...) not yet used: they go to the first command that runs, which is in `child`
        (a subshell, the first pipeline stage, a background job or coprocess)."""
        if self.sh.pending_args is not None:
            child.pending_args, self.sh.pending_args = self.sh.pending_args, None

    # ------------------------------------------------------------ background jobs

    def run_background(self, cmd: A.Command) -> int:
        st = self.state
        rt = self.sh.rt
        child = self.sh.fork()
        self.hand_over_args(child)
        if not st.opts["monitor"]:
            child.state.fds[0] = NullStream()
        pid = rt.new_pid()
        child.state.bashpid = pid
        with rt.lock:
            jid = rt.next_jid
            rt.next_jid += 1
        job_budget = JobBudget(rt.budget)
        job = Job(jid, pid, None, unparse_command(cmd), budget=job_budget)
        child.rt = rt.with_budget(job_budget)

        def run() -> None:
            try:
                job.status = child.ex.run_subshell_body(cmd)
            except SigPipe:
                job.status = 141
            except JobSignal as sig:  # `kill`: the job dies of the signal
                job.signal = sig.signal
                job.status = 128 + sig.signal
            except LimitExceeded as e:  # no one waits for a job: the run ends with its limit
                rt.budget.fail(e)
                job.status = 124
            except Cancelled:
                job.status = 124
            except BaseException:
                job.status = 1
            finally:
                job.done.set()

        job.thread = rt.spawn(run)
        rt.jobs[jid] = job
        st.last_bg = pid
        st.last_status = 0
        return 0

    def start_coproc(self, node: A.Coproc) -> int:
        st = self.state
        to_child = Pipe(checkpoint=self.sh.rt.budget.check_time)
        from_child = Pipe(checkpoint=self.sh.rt.budget.check_time)
        child = self.sh.fork()
        self.hand_over_args(child)
        child.state.fds[0] = to_child.reader
        child.state.fds[1] = from_child.writer
        read_fd = 63
        while read_fd in self.state.fds:
            read_fd -= 1
        write_fd = read_fd - 1
        while write_fd in self.state.fds:
            write_fd -= 1
        self.state.fds[read_fd] = from_child.reader
        self.state.fds[write_fd] = to_child.writer
        rt = self.sh.rt
        pid = rt.new_pid()
        with rt.lock:
            jid = rt.next_jid
            rt.next_jid += 1
        job = Job(jid, pid, None, "coproc " + node.name)

        def run() -> None:
            try:
                job.status = child.ex.run_subshell_body(node.body)
            except SigPipe:
                job.status = 141
            except BaseException:
                job.status = 1
            finally:
                from_child.close_write()
                job.done.set()

        job.thread = rt.spawn(run)
        rt.jobs[jid] = job
        self.va.set_array(node.name, [(None, str(read_fd), False), (None, str(write_fd), False)])
        self.va.set_var(f"{node.name}_PID", str(pid))
        st.last_bg = pid
        st.last_status = 0
        return 0

    def wait_all_jobs(self) -> None:
        """The script is over. `bash -c` exits without waiting for its background jobs: jobs asleep
        are dropped at once (the run's end stops them), jobs still working get a short grace so that
        output they are about to write belongs to the run."""
        budget = self.sh.rt.budget
        budget.script_over = True
        end = time.monotonic() + min(JOB_GRACE, max(budget.remaining(), 0.0))
        while True:
            busy = [j for j in self.sh.rt.jobs.values()
                    if not j.done.is_set() and not (j.budget is not None and j.budget.idle > 0)]
            now = time.monotonic()
            if not busy or now > end:
                return
            # a short wait, then the list again: a job may have gone to sleep meanwhile
            busy[0].wait(budget, 0.01, until=min(end, now + 0.01))

    # ------------------------------------------------------------ tracing

    def xtrace_line(self, text: str) -> None:
        ps4 = self.va.get_str("PS4")
        prefix = "+ " if ps4 is None else self._ps4(ps4)
        level = self.sh.subst_depth + 1
        if prefix:
            prefix = prefix[0] * (level - 1) + prefix
        self.sh.write_err(f"{prefix}{text}\n")

    def _ps4(self, ps4: str) -> str:
        if "$" not in ps4 and "`" not in ps4 and "\\" not in ps4:
            return ps4
        try:
            parser = self.sh.make_parser(ps4)
            from ..syntax.lexer import HEREDOC

            word = A.Word(tuple(parser.read_parts(HEREDOC)), 0, ps4)
            saved = self.state.opts["xtrace"]
            self.state.opts["xtrace"] = False
            try:
                return self.expander.heredoc(word)
            finally:
                self.state.opts["xtrace"] = saved
        except Exception:
            return ps4


def _runs(name: str, kind: str, where: str) -> str:
    """What a name found by find_command really runs: the registry command (or shell) named by
    the base of the path it resolved to (`hash -p /bin/rm cat` makes `cat` run rm), a script's
    path; the name itself when nothing was found."""
    if kind in ("command", "shell"):
        return where.rsplit("/", 1)[-1]
    if kind == "script":
        return where
    return name


def _callable(st: ShellState, name: str, no_functions: bool = False) -> tuple[A.FuncDef | None, Builtin | None]:
    """The function or builtin `name` runs as (neither: a command or script)."""
    fdef = None if no_functions else st.functions.get(name)
    if fdef is not None and st.opts["posix"] and name in SPECIAL:
        fdef = None  # POSIX: special builtins are found before functions
    builtin = None if fdef is not None or name in st.disabled_builtins else BUILTINS.get(name)
    return fdef, builtin


def _run_builtin(self: Shell, builtin: Builtin, name: str, argv: list[str]) -> int:
    try:
        return builtin(self, argv)
    except StreamError as e:  # writing to a closed or read-only fd
        self.builtin_error(name, f"write error: {e.strerror}")
        return 1
    except ExpansionError as e:  # e.g. `read n` into an integer variable
        return self.expansion_failed(e, name)


def _trace_assign(name: str, sub: str | None, append: bool, value: str,
                  items: list[tuple[str | None, str, bool]] | None) -> str:
    head = name + (f"[{sub}]" if sub is not None else "") + ("+=" if append else "=")
    if items is not None:
        return head + "(" + " ".join(_xquote(v) if k is None else f"[{k}]={_xquote(v)}" for k, v, _ in items) + ")"
    return head + _xquote(value)


# the kernel follows at most this many interpreters that are scripts themselves (then ELOOP)
MAX_INTERPRETER_SCRIPTS = 4


def _shebang(text: str) -> list[str]:
    """The interpreter line as the kernel reads it: the interpreter's path, then at most one
    argument (the rest of the line, inner blanks kept: `#!/usr/bin/env -S rm -f` gives env
    "-S rm -f")."""
    if not text.startswith("#!"):
        return []
    return [part.strip(" \t") for part in text.split("\n", 1)[0][2:].strip(" \t").split(None, 1)]


# how long the end of a run waits for background jobs that are still working
JOB_GRACE = 1.0


def _xquote(word: str) -> str:
    """How `set -x` shows a word: single quotes (tabs and newlines included),
    $'...' only for other control characters."""
    if word == "":
        return "''"
    if all(c.isalnum() or c in "_-./=:,+@%^" for c in word):
        return word
    if any((ord(c) < 32 and c not in "\t\n") or ord(c) == 127 for c in word):
        return quote_reusable(word)
    return single_quote(word)


xquote = _xquote


def _stage_status(child: Shell, cmd: A.Command) -> int:
    try:
        return child.ex.run_subshell_body(cmd)
    except SigPipe:
        return 141


def _run_stage(
    child: Shell,
    cmd: A.Command,
    writer: Stream | None,
    reader: Stream | None,
    statuses: list[int],
    index: int,
    errors: list[BaseException],
) -> None:
    try:
        statuses[index] = _stage_status(child, cmd)
    except BaseException as e:  # limits, cancellation: re-raised by the parent
        statuses[index] = 1
        errors.append(e)
    finally:
        if writer is not None:
            writer.close()
        if reader is not None:
            reader.close()


def _debug_applies(st: ShellState) -> bool:
    """A DEBUG trap is not inherited by functions (unless functrace), except the one it was set in."""
    depth = len(st.frames)
    return depth == 0 or depth == st.debug_trap_depth or bool(st.opts["functrace"])


def unparse_command(cmd: A.Command) -> str:
    from ..syntax.unparse import unparse

    try:
        return unparse(cmd)
    except Exception:
        return ""
