"""Processes of the shell: child shells and script files, subshells, command and process
substitution, pipelines over bounded pipes in threads, background jobs and coprocesses. A part of
the shell like the executor (which dispatches to it: scripts, `bash`) and the evaluator (which
hands it pipelines, `&` and `coproc`)."""

from __future__ import annotations

import errno
import functools
import time
from collections.abc import Callable, Mapping

from ..limits import Cancelled, JobBudget, JobSignal, LimitExceeded, LimitKind, thread_deadline
from ..shvars.arrays import IndexedArray
from ..shvars.vars import INTEGER, READONLY, Var
from ..stdio.streams import BufferWriter, BytesReader, NullStream, SigPipe, Stream, StreamError, capture_bound
from ..syntax import ast as A
from ..syntax.lexer import is_name
from ..vfs.errors import FsError
from .cmdsub import captured_text, direct_stage, direct_substitution, run_in_place
from .control import (
    AbortCommand,
    ErrexitTriggered,
    ExitShell,
    KilledBySignal,
    LoopControl,
    Replaced,
    ReturnFromFunction,
)
from .executor import unparse_command
from .jobs import (
    HOLDS,
    SUBENV_COMSUB,
    SUBENV_PAREN,
    SUBENV_PIPE,
    SUBENV_PROCSUB,
    child_exited,
    cleanup_dead_jobs,
    copied_table,
    deliver_signal,
    end_of_subshell,
    fresh_table,
    mark_nofork,
    next_job_number,
    one_shot_tail,
    own_pid,
    owns_table,
    release_ended,
    report_pipeline_death,
    sole_command,
    subshell_tail,
    take_signals,
)
from .redirects import lowered_fd_limit
from .runtime import Job
from .state import DEBUG_RAN, DEBUG_SKIPPED
from .variables import AssignError

TYPE_CHECKING = False
if TYPE_CHECKING:
    import threading
    from dataclasses import dataclass

    from ..expand.words import Expander
    from .aliasrun import TextRun
    from .evaluator import Evaluator
    from .executor import Executor
    from .shell import Shell
    from .state import ShellState
    from .variables import Variables
else:  # the same classes, built without importing dataclasses (leanclass.py)
    from ..leanclass import dataclass


class Processes:
    """Depends on the state, the expander (`$(< file)`), the variables (coproc arrays), the
    evaluator (what a child runs) and the executor (gates and commands for an interpreter line)."""

    __slots__ = (
        "sh",
        "state",
        "expander",
        "va",
        "ex",
        "ev",
        "procsubs",
        "next_procsub_fd",
        "coproc",
        "last_procsub",
        "holds",
        "ended",
    )

    def __init__(self, sh: Shell, state: ShellState, expander: Expander, va: Variables, ex: Executor) -> None:
        self.sh = sh
        self.state = state
        self.expander = expander
        self.va = va
        self.ex = ex
        self.ev: Evaluator  # wired by the shell: the evaluator is made after this part
        # this shell's process substitutions (fd, its end, the thread writing or reading it)
        self.procsubs: list[tuple[int, Stream, threading.Thread | None]] = []
        self.next_procsub_fd = 63
        self.last_procsub: Job | None = None  # the newest process substitution (`wait $!`)
        # the coprocess this shell tracks (bash tracks one: the last started), until it is reaped
        self.coproc: Coproc | None = None
        # the processes (jobs, coprocesses, process substitutions) this shell started that have not
        # ended: their threads refer to it (SIGCHLD), so release_ended leaves it to the last of them
        self.holds = 0
        self.ended = False  # this shell, forked for a pipeline stage or a job, has ended

    # ------------------------------------------------------------ child shells and scripts

    def spawn_shell(self, env: Mapping[str, str], options: bool = True) -> Shell:
        """A new shell process: fresh state from the environment (bash's
        inheritance rules: exported variables and functions, cwd, umask, fds), with the options
        SHELLOPTS and BASHOPTS there list unless `options` is False (`bash`, which takes them
        after those of its command line)."""
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
            # an exported function reaches it through the environment (`env -i bash` has none),
            # and stays exported there
            if f"BASH_FUNC_{fname}%%" in env:
                state.functions[fname] = fdef
                state.exported_funcs.add(fname)
        # (SHLVL: the environment's, one more, init_variables: `env -i bash` is at level 1)
        child.state.bashpid = self.sh.rt.new_pid()
        # a process of its own: its own $$ (a subshell of it keeps it), its parent's as $PPID
        child.state.pid = child.state.bashpid
        child.state.vars.globals["PPID"] = Var(str(own_pid(self.sh)), READONLY | INTEGER)
        # a signal the parent ignores is ignored in the new process from its start, for good
        ignored = frozenset(k for k, v in st.traps.items() if not v and k not in _NOT_SIGNALS)
        child.entry_ignored = ignored
        child.state.traps.update(dict.fromkeys(ignored, ""))
        if options:
            child.va.import_options(env)
        return child

    def exported_functions(self) -> set[str]:
        return self.state.exported_funcs

    def run_shell_command(self, argv: list[str], env: dict[str, str]) -> int:
        from .bashcmd import run_bash  # (bashcmd and timefmt: imported by the scripts that use them)

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
                if not text.startswith("#!") and _binary(text):  # execve's ENOEXEC, then bash's check
                    self.sh.error(f"{argv[0]}: cannot execute binary file: Exec format error")
                    return 126
                return self._run_file_in_child(text, argv, env, reinit=True)
            first = first or interp
            iargv = [*interp, cur_path, *cur_argv[1:]]
            prog = interp[0].rsplit("/", 1)[-1]
            kind, where = self.ex.find_command(interp[0] if "/" in interp[0] else "./" + interp[0])
            if kind == "shell":
                # bash as the kernel starts it: `#!/bin/bash -e` (or -x, -eu, --posix) is an option
                run = functools.partial(self.run_shell_command, iargv, env)
                return self.ex.run_gated(iargv, "shell", prog, run)
            if kind == "command":
                return self.ex.run_gated(
                    iargv, "command", prog, functools.partial(self.ex.run_registry, prog, iargv, env)
                )
            if kind != "script":
                break
            stat = self.state.fs.try_stat(where)
            if stat is None or not stat.mode & 0o111 or level == MAX_INTERPRETER_SCRIPTS:
                why = (
                    "Permission denied"
                    if stat is not None and not stat.mode & 0o111
                    else "Too many levels of symbolic links"
                )
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

    def _run_file_in_child(
        self, text: str, argv: list[str], env: dict[str, str], reinit: bool = False
    ) -> int:
        child = self.spawn_shell(env)
        if reinit:  # bash's shell_reinitialize resets every shopt but this one
            child.state.shopts["globskipdots"] = self.state.shopts["globskipdots"]
        child.state.arg0 = argv[0]
        child.state.positional = argv[1:]
        child.state.mode = "file"
        # (NUL bytes: the shell reading a script skips them)
        return self.child_ran(child, child.run_toplevel(text.replace("\0", ""), None))

    def child_ran(self, child: Shell, status: int) -> int:
        """`child`, a new shell process (`bash -c`, a script), ended with `status`: a death by a
        signal is kept for the report of the command that ran it (Executor.run_argv)."""
        if child.killed_by:
            self.sh.child_death = (child.killed_by, child.state.bashpid)
        return status

    # ------------------------------------------------------------ subshells and substitutions

    def run_subshell_body(self, body: A.CommandList | A.Command | TextRun) -> int:
        self.sh.subshell_body = body
        # `time ( ... )`: bash times the body in the subshell (execute_in_subshell hands the
        # pipeline's CMD_TIME_PIPELINE to it), after its redirections, before its EXIT trap
        timed = self.sh.lone[0] if self.sh.lone is not None else 0
        if timed and _forks_subshell(sole_command(body)):
            # (a `( )` that is the whole body is handed the timing in turn, by bash as here)
            self.sh.pending_lone = (timed, "time -p " if timed == 2 else "time ")
            timed = 0
        t0 = time.monotonic() if timed else 0.0
        try:
            if isinstance(body, A.CommandList):
                status = self.ev.run_list(body)
            elif callable(body):  # (a TextRun: a substitution's text read as it runs, aliasrun.py)
                status = body(self.sh)
            else:
                status = self.ev.execute(body)
            if self.sh.rt.signals:
                end_of_subshell(self.sh, body)
        except KilledBySignal as e:
            self.sh.killed_by = e.signal
            if e.signal != 9 and not e.at_end:
                # bash's termsig_handler runs the EXIT trap, with the $? of then; a KILL is never
                # seen, and a signal a subshell sent itself with its last command ends it as that
                # command ends, without the trap (end_of_subshell)
                self.sh.run_exit_trap(self.state.last_status)
            return e.status
        except (ExitShell, AbortCommand, ReturnFromFunction) as e:
            # (`( return 5 )` in a function ends the subshell, not the function)
            status = e.status
            if type(e) is ErrexitTriggered and _reads_text(body):
                # `eval '(exit 7)' | cat`, `source f &`: bash's forked builtin leaves its
                # parse_and_execute on `set -e` with EXECUTION_FAILURE
                status = 1
            if type(e) is ReturnFromFunction or type(e) is Replaced:
                timed = 0  # (return and exec leave time_command without its report; exit does not)
            if self.sh.rt.signals:  # (`(exec kill -INT $BASHPID)`: what it sent itself ends it)
                try:
                    take_signals(self.sh)
                except KilledBySignal as k:
                    self.sh.killed_by = k.signal
                    return k.status
        except LoopControl as e:
            # a substitution or a forked simple command inside a loop sees that loop (bash):
            # `$(break)` ends the substitution with the builtin's status (`break 0`'s 1)
            status = e.status
        if timed:
            self._report_time(time.monotonic() - t0, timed == 2)
        return self.sh.run_exit_trap(status)

    def run_command_text(self, run: TextRun) -> str:
        """`$( )` of several commands read one at a time as they run (aliasrun.py): in its
        subshell, as run_command_sub runs a body that needs one."""
        sh = self.sh
        limits = sh.rt.limits
        if sh.subst_depth + sh.eval_depth >= limits.max_substitution_depth:
            raise LimitExceeded(LimitKind.MAX_SUBSTITUTION_DEPTH, limits.max_substitution_depth)
        return captured_text(sh, self._capture(lambda out: self._run_captured(run, out)))

    def run_command_sub(self, body: A.CommandList) -> str:
        sh = self.sh
        limits = sh.rt.limits
        if sh.subst_depth + sh.eval_depth >= limits.max_substitution_depth:
            raise LimitExceeded(LimitKind.MAX_SUBSTITUTION_DEPTH, limits.max_substitution_depth)
        if sh.rt.jobs:
            cleanup_dead_jobs(sh)  # (bash forks for it, run in place or not: Shell.fork)
        direct = direct_substitution(sh, body)  # (`$(echo ok)`: no subshell, no capture)
        if direct is not None:
            self.ex.last_cmdsub_status = self.state.last_status = direct[1]
            return direct[0]
        data = self._cat_file_shortcut(body)
        if data is None:

            def run(out: BufferWriter) -> int:
                status = run_in_place(sh, body, out)  # (`$(f)`: no subshell can differ)
                return self._run_captured(body, out) if status is None else status

            data = self._capture(run)
        return captured_text(sh, data)

    def _capture(self, run: Callable[[BufferWriter], int]) -> bytes:
        """What `run` writes on the capture it is given, its status made `$?` (a substitution's
        output). The capture is held while it grows: bounded by max_string_length and
        max_output_size, and charged to max_memory (what it charged is its size:
        BufferWriter.write), released once read."""
        budget = self.sh.rt.budget
        out = BufferWriter(charge=budget.charge_memory, **capture_bound(self.sh.rt.limits))
        try:
            status = run(out)
            self.ex.last_cmdsub_status = status
            self.state.last_status = status
            return out.getvalue()
        finally:
            if out.size:
                budget.release_memory(out.size)

    def _run_captured(self, body: A.CommandList | TextRun, out: Stream) -> int:
        """Run a command substitution's body in its subshell, its standard output on `out`."""
        child = self.sh.fork(lazy=True)  # (this shell waits for it and drops it at the end)
        child.subst_depth = self.sh.subst_depth + 1
        child.subenv |= SUBENV_COMSUB
        if self.sh.rt.jobs:
            copied_table(child)  # (bash forks it: a copy of this shell's jobs, none its children)
        if isinstance(body, A.CommandList):
            mark_nofork(child, one_shot_tail(body), True)
        child.state.loop_depth = self.state.loop_depth  # `$(break)` in a loop: run_subshell_body
        child.state.fds[1] = out
        if not child.state.shopts["inherit_errexit"]:
            child.state.opts["errexit"] = False
        status = child.pr.run_subshell_body(body)
        if status < 0:
            status &= 0xFF  # (`$(wait %1)` of a parent's job: -1, which the subshell's exit makes 255)
        if self.sh.rt.live:
            _await_holders(self.sh, out)
        child_exited(self.sh)
        if child.killed_by == 2:
            # bash's command_substitute: a substitution that died of SIGINT sends it to this shell
            # too: untrapped, it ends this shell before the command runs (`echo "$(...)"` prints
            # nothing); a trap runs at the next command
            if "INT" in self.state.traps:
                self.sh.rt.send_signal(own_pid(self.sh), "INT", 2)
            else:
                deliver_signal(self.sh, "INT", 2)
        release_ended(child)  # (or the last process it started, when that ends)
        return status

    def _lone_input(self, body: A.CommandList) -> str | None:
        """The file of a body that is one `< file` and nothing else (bash's `$(< file)` idiom, in a
        process substitution too: `<(< file)` gives the file), expanded; None for any other body."""
        if len(body.items) != 1 or body.items[0].background:
            return None
        cmd = body.items[0].cmd
        if not (
            isinstance(cmd, A.SimpleCommand) and not cmd.words and not cmd.assigns and len(cmd.redirs) == 1
        ):
            return None
        redir = cmd.redirs[0]
        if redir.op != "<" or redir.fd not in (None, 0) or not isinstance(redir.target, A.Word):
            return None
        targets = self.expander.target_fields(redir.target)
        return targets[0] if len(targets) == 1 else None

    def _open_lone_input(self, path: str) -> Stream | int:
        """The file of `$(< file)` or `<(< file)` opened for reading, or the status its failed open
        gives: 1 with bash's message, 0 for a directory (bash opens it, and its failed read is an
        empty text)."""
        try:
            return self.state.fs.open(path, "r")
        except FsError as e:
            if e.errno == errno.EISDIR:
                return 0
            self.sh.error(f"{path}: {e.message}")
            return 1

    def _cat_file_shortcut(self, body: A.CommandList) -> bytes | None:
        """`$(< file)` reads the file without running a command."""
        path = self._lone_input(body)
        if path is None:
            return None
        src = self._open_lone_input(path)
        data = b""
        if isinstance(src, int):
            status = src
        else:
            status = 0
            try:
                data = src.read()
            except StreamError as e:
                # a device read whole (`x=$(< /dev/zero)`) ends with ENOMEM: the file's error
                self.sh.error(f"{path}: {FsError(e.errno or errno.EIO, path).message}")
                status = 1
            finally:
                src.close()
        self.ex.last_cmdsub_status = self.state.last_status = status
        return data

    def _copy_lone_input(self, path: str) -> int:
        """`<(< file)`: the file copied to this (the substitution's) standard output as it is
        read, its status."""
        src = self._open_lone_input(path)
        if isinstance(src, int):
            return src
        try:
            out = self.state.fds[1]
            for chunk in src.chunks():
                out.write(chunk)
        finally:
            src.close()
        return 0

    def start_process_sub(self, body: A.CommandList | TextRun, direction: str) -> str:
        depth_limit = self.sh.rt.limits.max_substitution_depth
        if self.sh.subst_depth + self.sh.eval_depth >= depth_limit:
            raise LimitExceeded(LimitKind.MAX_SUBSTITUTION_DEPTH, depth_limit)
        fd = self.next_procsub_fd
        while fd in self.state.fds:
            fd -= 1
        low = (
            lowered_fd_limit(self.state, self.sh.rt.limits.max_file_descriptors)
            if self.state.ulimits
            else None
        )
        if low is not None and fd >= low:
            # bash keeps the pipe's own end when its move to 63 or below fails (move_to_high_fd:
            # dup2 past the limit): the lower free descriptor for <( ), the higher for >( )
            if self.sh.pipe_refused("process"):
                return ""
            free = [n for n in range(low) if n not in self.state.fds][:2]
            fd = free[0] if direction == "<" else free[1]
        else:
            if fd < 10:
                # 63 down to 10 are taken (10 and below belong to the script): look above 63
                fd = 64
                while fd in self.state.fds:
                    fd += 1
                limit = self.sh.rt.limits.max_file_descriptors
                if fd >= limit:
                    raise LimitExceeded(LimitKind.MAX_FILE_DESCRIPTORS, limit)
            self.next_procsub_fd = fd - 1
        from ..stdio.pipe import Pipe  # (pipes, with threading: imported by the first one made)

        pipe = Pipe(checkpoint=self.sh.rt.budget.check_time)
        child = self.sh.fork(apart=True)
        child.subst_depth = self.sh.subst_depth + 1
        child.subenv |= SUBENV_PROCSUB
        child.state.loop_depth = self.state.loop_depth
        if isinstance(body, A.CommandList):
            mark_nofork(child, one_shot_tail(body, redirs_ok=True), True)
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
        # its pid is $! and `wait $!` gets its status (not a job: `jobs` does not list it)
        proc = Job(0, self.sh.rt.new_pid(), None, "")
        child.state.bashpid = proc.pid

        def run() -> None:
            try:
                # (expanded in the child, as the command would be: `<(< f$((i++)))` leaves i)
                lone = child.pr._lone_input(body) if isinstance(body, A.CommandList) else None
                if lone is not None:
                    proc.status = child.pr._copy_lone_input(lone)
                else:
                    proc.status = child.pr.run_subshell_body(body)
            except SigPipe:
                proc.status = 141
            except BaseException as e:  # re-raised in the parent when it finishes
                errors.append(e)
                if isinstance(e, LimitExceeded):
                    # and the run ends with it even when it is never finished (`done < <(…)` stays
                    # open past the commands that would finish it: its reader just saw end of input)
                    self.sh.rt.budget.fail(e)
            finally:
                theirs.close()
                child_exited(self.sh)
                proc.done.set()
                release_ended(child)
                self.let_go()

        self.hold()
        try:
            thread = self.sh.rt.spawn(run)
        except BaseException:  # (never started: nothing else holds it)
            self.let_go()
            release_ended(child)
            raise
        if thread is not None:
            thread.procsub_errors = errors  # type: ignore[attr-defined]
        self.last_procsub = proc
        self.state.last_bg = proc.pid
        self.state.fds[fd] = mine
        self.procsubs.append((fd, mine, thread))
        return f"/dev/fd/{fd}"

    def finish_procsubs(self, mark: int = 0) -> None:
        """Close the process substitutions opened since there were `mark` of them (and wait for
        their commands), but those still open on another fd (`exec 3< <(...)`)."""
        subs = self.procsubs[mark:]
        del self.procsubs[mark:]  # (in place: the executor holds the list)
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
        timed = node.timed
        if timed:
            t0 = time.monotonic()
        if (timed or node.negate) and len(cmds) == 1 and _forks_subshell(cmds[0]):
            self.sh.pending_lone = self._lone(node)
            timed = False  # (its subshell times its body: run_subshell_body)
        # bash's `!`: under set -e its command becomes a tested one (CMD_IGNORE_RETURN: no ERR
        # trap, no exit for any command in it); without, only the negated command's own status
        # is spared (a group's, a loop's or a function's commands still run the ERR trap)
        tested = node.negate and st.opts["errexit"]
        own = node.negate and not tested and len(cmds) == 1
        if tested:
            st.errexit_ignored += 1
        elif own:
            sh = self.sh
            inverted, negated = sh.inverted, sh.negated
            sh.negated = cmds[0]  # (a redirection of it that fails: its own status too)
            sh.inverted = (
                (len(st.frames), sh.eval_depth, len(st.sources))
                if type(_unredirected(cmds[0])) in _OWN_STATUS
                else None
            )
        try:
            if not cmds:
                status = 0
                st.pipestatus = [0]
            elif len(cmds) == 1:
                status = self.ev.execute(cmds[0])
                st.pipestatus = [status]
            else:
                status = self._run_stages(node)
        except (ExitShell, AbortCommand) as e:
            # bash's time_command catches the jump to the top level (`time { exit 3; }`) to
            # report first; not a death by a signal nor an exec
            if timed and type(e) is not KilledBySignal and type(e) is not Replaced:
                self._report_time(time.monotonic() - t0, node.time_posix)
            raise
        except LoopControl as e:
            # bash's break and continue only mark the loop to leave: the `!` still inverts the
            # status it passes on (`while ! continue` ends that loop, `! break` in a body makes it 1)
            if node.negate:
                e.status = 0 if e.status else 1
            raise
        finally:
            if tested:
                st.errexit_ignored -= 1
            elif own:
                self.sh.inverted, self.sh.negated = inverted, negated
            self.sh.pending_lone = None
        if timed:
            self._report_time(time.monotonic() - t0, node.time_posix)
        if node.negate:
            status = 0 if status else 1
        st.last_status = status
        if len(cmds) > 1 and not node.negate:
            self.ev.errexit_check(status)
        return status

    def _lone(self, node: A.Pipeline) -> tuple[int, str]:
        """What a `time`d or negated pipeline of one `( )` hands it (Shell.pending_lone): bash
        shows the `!` in the subshell's text unless the pipeline is the whole of this subshell
        (execute_in_subshell takes the inversion off the command it runs)."""
        timed = node.timed + (node.timed and node.time_posix)
        body = self.sh.subshell_body
        whole = (
            self.state.subshell
            and isinstance(body, A.CommandList)
            and len(body.items) == 1
            and body.items[0].cmd is node
        )
        shown = node.negate and not whole
        return timed, ("time -p " if timed == 2 else "time ") * bool(timed) + "! " * shown

    def _last_subshell_failed(self, status: int, negate: bool) -> None:
        """A pipeline's last stage that is a `( )` failed: bash waits for it as for a subshell of
        its own, so the ERR trap runs for it here (before the pipeline's own) and set -e ends the
        shell there; in a tested context (if, ||, &&) neither, under `!` only the trap."""
        st = self.state
        if st.errexit_ignored - (negate and st.opts["errexit"]):  # (not the `!`'s own: see exec_pipeline)
            return
        handler = st.traps.get("ERR")
        if (
            handler
            and "ERR" not in st.traps_running
            and (not st.frames or st.frames[-1] is st.err_trap_frame)
        ):
            st.last_status = status
            self.sh.run_trap_text(handler, "ERR")
            st.last_status = status
        if st.opts["errexit"] and not negate:
            raise ExitShell(status)

    def _report_time(self, elapsed: float, posix: bool) -> None:
        from .timefmt import DEFAULT_FORMAT, POSIX_FORMAT, TimeFormatError, format_times

        fmt = POSIX_FORMAT if posix else self.va.get_str("TIMEFORMAT")
        if fmt is None:
            fmt = DEFAULT_FORMAT
        if not fmt:
            return  # a null TIMEFORMAT shows nothing
        try:
            # (user and system CPU times are not measured per command here: shown as 0)
            text = format_times(fmt, elapsed, 0.0, 0.0)
        except TimeFormatError as e:
            self.sh.error(f"TIMEFORMAT: `{e.char}': invalid format character")
            return
        self.sh.write_err(text + "\n")

    def _run_stages(self, node: A.Pipeline) -> int:
        from ..stdio.pipe import Pipe

        st = self.state
        cmds = node.cmds
        n = len(cmds)
        limit = self.sh.rt.limits.max_pipeline_depth
        if n > limit:
            raise LimitExceeded(LimitKind.MAX_PIPELINE_DEPTH, limit)
        statuses = [0] * n
        deaths = [(0, 0)] * n  # each forked stage's (signal it died of, pid): for bash's report
        errors: list[BaseException] = []
        threads: list[threading.Thread] = []
        prev_reader: Stream | None = None
        lastpipe = st.shopts["lastpipe"] and not st.opts["monitor"]
        checkpoint = self.sh.rt.budget.check_time
        last_child: Shell | None = None
        for i, cmd in enumerate(cmds):
            last = i == n - 1
            if not st.in_trap and (
                type(cmd) is A.SimpleCommand or (type(cmd) is A.Subshell and "ERR" in st.traps)
            ):
                # bash names each simple stage as it starts it ($BASH_COMMAND after the pipeline:
                # the last one), and a `( )` stage too when ERR is trapped
                self.sh.current_command = cmd
            if i == 0 and not last:
                made = direct_stage(self.sh, cmd)  # (`echo "$a" | ...`: no thread, no subshell)
                if made is not None:
                    prev_reader = BytesReader(made)
                    continue
            if last and lastpipe:
                child = self.sh
                saved0 = st.fds.get(0)
            else:
                ran = 0
                if st.traps and type(cmd) is A.SimpleCommand and "DEBUG" in st.traps:
                    # bash runs a simple stage's DEBUG trap in this shell before it forks the
                    # stage (a subshell inherits the trap only under set -T: then a compound
                    # stage runs it for its commands); extdebug may skip the stage's command
                    if cmd.line:
                        st.line = cmd.line  # (the trap sees the stage's own line: `a \<newline> | b`)
                    ran = DEBUG_SKIPPED if self.ex.debug_trap(cmd) else DEBUG_RAN
                child = self.sh.fork(apart=lastpipe)  # (the last stage runs in this shell meanwhile)
                child.subenv = SUBENV_PIPE  # (a `( )` stage's own subshell is SUBENV_PAREN)
                if ran:
                    child.state.debug_ran = ran  # (so the stage's own command runs it no more)
                if not isinstance(cmd, A.SimpleCommand):
                    fresh_table(child)  # (bash runs a compound stage as a subshell of its own)
                else:
                    # a simple one is forked, not made a subshell: it is still in the loop
                    # (`continue | cat`), and `jobs | cat` lists a copy of the table (no other
                    # builtin there sees it: jobs.stage_table)
                    child.state.loop_depth = st.loop_depth
                    if self.sh.rt.jobs:
                        copied_table(child)
                        child.rt.stage_copy = True
                if i == 0:
                    self.hand_over_args(child)
            if prev_reader is not None:
                child.state.fds[0] = prev_reader
                if child is not self.sh:
                    child.state.stdin_redirected += 1  # (a job started in this stage reads the pipe)
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
                        try:
                            statuses[i] = _stage_status(child, cmd)
                            deaths[i] = (child.killed_by, child.state.bashpid)
                        finally:
                            release_ended(child)
                finally:
                    if prev_reader is not None:
                        prev_reader.close()

            else:
                reader_in = prev_reader
                try:
                    t = self.sh.rt.spawn(
                        functools.partial(
                            _run_stage, child, cmd, writer, reader_in, statuses, i, errors, deaths
                        )
                    )
                except BaseException:  # (never started: nothing else holds it; a fork bomb left ~128)
                    release_ended(child)
                    raise
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
        for _ in range(n - 1 if lastpipe else n):  # each stage in a process of its own
            child_exited(self.sh)
        if statuses[-1] and type(cmds[-1]) is A.Subshell:
            self._last_subshell_failed(statuses[-1], node.negate)
        st.pipestatus = list(statuses)
        decider = n - 1  # (whose status is the pipeline's: under pipefail the last that failed)
        if st.opts["pipefail"]:
            decider = next((j for j in range(n - 1, -1, -1) if statuses[j]), n - 1)
        if deaths[decider][0] and not self.sh.subst_depth:  # (a `$( )`'s shell reports none)
            self._report_pipeline(node, statuses, deaths, decider)
        if st.opts["pipefail"]:
            for s in reversed(statuses):
                if s != 0:
                    return s
            return 0
        return statuses[-1]

    def _report_pipeline(
        self, node: A.Pipeline, statuses: list[int], deaths: list[tuple[int, int]], decider: int
    ) -> None:
        """The process deciding a foreground pipeline's status died of a signal: bash reports the
        whole job (jobs.c's print_pipeline), a process a line, at the enclosing context's line."""
        from .executor import unparse_command  # (a death by a signal: rare)

        sh = self.sh
        stages = []
        for j, cmd in enumerate(node.cmds):
            sig, pid = deaths[j]
            stages.append((pid or sh.rt.new_pid(), sig, statuses[j], unparse_command(cmd)))
        st = self.state
        st.line = st.ctx_line or node.line
        report_pipeline_death(sh, stages, decider)

    def hand_over_args(self, child: Shell) -> None:
        """exec(args=...) not yet used: they go to the first command that runs, which is in `child`
        (a subshell, the first pipeline stage, a background job or coprocess)."""
        if self.sh.pending_args is not None:
            child.pending_args, self.sh.pending_args = self.sh.pending_args, None

    def hold(self) -> None:
        """A process this shell starts: its thread refers to the shell until it ends."""
        with HOLDS:
            self.holds += 1

    def let_go(self) -> None:
        """A process this shell started has ended (on its own thread): the last one frees the
        shell when the shell itself has ended (release_ended)."""
        sh = self.sh
        with HOLDS:
            self.holds -= 1
            free = self.ended and not self.holds
        if free:
            sh.release()

    # ------------------------------------------------------------ background jobs

    def run_background(self, cmd: A.Command) -> int:
        st = self.state
        child = self.sh.fork(apart=True)
        child.subenv = 0
        lone = _lone_simple(cmd)
        mark_nofork(child, lone, False)  # (`cmd &`: bash forks, then execs it)
        if lone is not None:  # (forked, not a subshell: `continue &` still sees the loop)
            child.state.loop_depth = st.loop_depth
        self.hand_over_args(child)
        if not st.opts["monitor"] and not st.stdin_redirected:
            child.state.fds[0] = NullStream()
        run: A.Command | A.CommandList = cmd
        if type(cmd) is A.Subshell:
            # `( ... ) &` is one process in bash: the body runs in the job's own shell, whose
            # traps `kill` then reaches (a `( )` stage runs so too: _stage_status)
            child.subenv = SUBENV_PAREN
            mark_nofork(child, *subshell_tail(cmd.body))
            run = cmd.body
        job = self._spawn_job(child, run, unparse_command(cmd))
        st.last_bg = job.pid
        st.last_status = 0
        return 0

    def _spawn_job(
        self, child: Shell, cmd: A.Command | A.CommandList, command: str, on_end: Stream | None = None
    ) -> Job:
        """Run `cmd` in `child` as a job of its own (`&`, `coproc`): a pid, a job number, a budget
        `kill` can stop; `on_end` (the coprocess's output) is closed when it ends."""
        if not owns_table(self.sh):
            # (a `$( )` or simple stage sharing its parent's table: bash's is a copy, which the
            # job goes into, not the parent's: `x=$(sleep 1 &); jobs` lists nothing)
            copied_table(self.sh)
        rt = self.sh.rt
        pid = rt.new_pid()
        child.state.bashpid = pid
        jid = next_job_number(rt.jobs)
        job_budget = JobBudget(rt.budget)
        job = Job(jid, pid, None, command, budget=job_budget, starter=self.sh)
        job.fds = child.state.fds
        job.shell = child
        child.rt = rt.with_budget(job_budget)
        child.job_shell = True
        fresh_table(child)

        def run() -> None:
            try:
                # bound to the thread: a wait on a pipe the job did not make (a coprocess's
                # input) also sees `kill`
                with thread_deadline(job_budget):
                    job.status = child.pr.run_subshell_body(cmd)
                if child.killed_by:  # (`bash -c 'kill -9 $$' &`: the job is that process)
                    job.signal = child.killed_by
            except SigPipe:
                job.status = 141
            except JobSignal as sig:  # `kill`: the job dies of the signal
                job.signal = sig.signal
                job.status = 128 + sig.signal
                _killed_job_exit_trap(child, job_budget, sig.signal)
            except LimitExceeded as e:  # no one waits for a job: the run ends with its limit
                rt.budget.fail(e)
                job.status = 124
            except Cancelled:
                job.status = 124
            except BaseException:
                job.status = 1
            finally:
                if on_end is not None:
                    on_end.close()
                child_exited(self.sh)  # before `done`: a `wait` that sees it done runs the trap
                rt.live.pop(pid, None)
                job.done.set()
                release_ended(child)
                self.let_go()

        rt.live[pid] = job
        self.hold()
        try:
            job.thread = rt.spawn(run)
        except BaseException:  # (never started: nothing else holds it)
            rt.live.pop(pid, None)
            self.let_go()
            release_ended(child)
            raise
        rt.jobs[jid] = job
        return job

    def start_coproc(self, node: A.Coproc) -> int:
        st = self.state
        if node.line:
            st.line = node.line  # what its messages name
        if not is_name(node.name):
            self.sh.error(f"`{node.name}': not a valid identifier")
            st.last_status = 1
            return 1
        self.reap_coproc()
        old = self.coproc
        if old is not None:  # bash tracks only the newest coprocess
            self.sh.warn(f"execute_coproc: coproc [{old.job.pid}:{old.name}] still exists")
        from ..stdio.pipe import Pipe

        to_child = Pipe(checkpoint=self.sh.rt.budget.check_time)
        from_child = Pipe(checkpoint=self.sh.rt.budget.check_time)
        child = self.sh.fork(apart=True)
        child.subenv = 0
        mark_nofork(child, _lone_simple(node.body), False)  # (as `cmd &`)
        self.hand_over_args(child)
        child.state.fds[0] = to_child.reader
        child.state.fds[1] = from_child.writer
        # bash moves all four pipe ends to the highest free descriptors and keeps the first
        # (its read end) and the last (its write end): 63 and 60 for a first coprocess
        free = [fd for fd in range(63, 2, -1) if fd not in st.fds][:4]
        read_fd, write_fd = free[0], free[-1]
        st.fds[read_fd] = from_child.reader
        st.fds[write_fd] = to_child.writer
        text = f"coproc {node.name} {unparse_command(node.body)}"  # (bash's jobs table: name and command)
        job = self._spawn_job(child, node.body, text, on_end=from_child.writer)
        self.coproc = Coproc(node.name, job, ((read_fd, from_child.reader), (write_fd, to_child.writer)))
        try:
            self.va.set_array(node.name, [(None, str(read_fd), False), (None, str(write_fd), False)])
            self.va.set_var(f"{node.name}_PID", str(job.pid))
        except AssignError as e:  # a readonly name: reported, and the coprocess runs all the same
            self.sh.error(e.message)
        st.last_bg = job.pid
        st.last_status = 0
        return 0

    def coproc_fds_changed(self) -> None:
        """After `exec` redirections: a coprocess descriptor closed or moved away reads as -1 in
        NAME (`exec 4<&${COPROC[0]}-`), as bash marks it."""
        cp = self.coproc
        if cp is None:
            return
        var = self.va.lookup(cp.name)
        arr = var.value if var is not None else None
        for i, (fd, stream) in enumerate(cp.fds):
            if (
                self.state.fds.get(fd) is not stream
                and isinstance(arr, IndexedArray)
                and arr.get(i) == str(fd)
            ):
                try:
                    self.va.set_var(cp.name, "-1", sub=str(i))
                except AssignError:
                    pass  # a readonly NAME was never set to the descriptors

    def reap_coproc(self) -> None:
        """The tracked coprocess has ended: as bash does when it reaps it, close its descriptors
        (those still holding its pipes) and unset NAME and NAME_PID."""
        cp = self.coproc
        if cp is None or not cp.job.done.is_set():
            return
        self.coproc = None
        fds = self.state.fds
        for fd, stream in cp.fds:
            if fds.get(fd) is stream:
                del fds[fd]
                stream.close()
        try:
            self.va.unset_var(cp.name)
        except AssignError as e:
            self.sh.error(e.message)
        # NAME_PID goes even when readonly, and a reference itself rather than what it names (bash)
        self.va.unset_var(cp.name + "_PID", nameref=True, force=True)

    def wait_all_jobs(self) -> None:
        """The script is over. `bash -c` exits without waiting for its background jobs: jobs asleep
        are dropped at once (the run's end stops them), jobs still working get a short grace so that
        output they are about to write belongs to the run. The grace starts again whenever a job
        started since is working: jobs that keep starting jobs (a fork bomb) run on until the limit
        they reach, however slow the host, and never end quietly when a grace is over. The first
        grace ends at the run's deadline at the latest; past it, a job started since ends the run
        with `timeout`.

        The grace is counted in steps of this loop (a wait of GRACE_POLL), each worth at most
        GRACE_STEP, not in seconds of wall time: a stall of the whole process (a gen-2 collection, a
        C call holding the GIL, a loaded host not running it) stops the jobs and this loop alike,
        and counts as one step. CPU time would not do: the process's is shared with other runs and
        a job's own is not measurable (its threads come and go); nor would the jobs' charged work,
        whose units differ by command (a `yes` charges per byte)."""
        rt = self.sh.rt
        budget = rt.budget
        budget.script_over = True
        newest = rt.last_pid()  # pids are given out in order: a higher one started since
        left = JOB_GRACE
        first = True  # no job started since the script's end: this grace ends quietly at the deadline
        last = time.monotonic()
        while True:
            busy = [
                j
                for j in list(rt.live.values())  # (a subshell's jobs too)
                if not j.done.is_set() and not (j.budget is not None and j.budget.idle > 0)
            ]
            if not busy:
                return
            now = time.monotonic()
            left -= min(now - last, GRACE_STEP)
            last = now
            latest = max(j.pid for j in busy)
            if latest > newest:
                newest, left, first = latest, JOB_GRACE, False
            elif left <= 0:
                return
            # a short wait, then the list again: a job may have gone to sleep meanwhile
            busy[0].done.wait(GRACE_POLL)
            try:
                budget.check_time()
            except LimitExceeded as e:
                if first and e.kind is LimitKind.TIMEOUT:
                    return
                raise


@dataclass
class Coproc:
    """A coprocess the shell tracks: its name, its job, and the (fd, stream) pairs of its pipes."""

    name: str
    job: Job
    fds: tuple[tuple[int, Stream], ...]


_NOT_SIGNALS = frozenset({"EXIT", "ERR", "DEBUG", "RETURN"})  # trap names that are no signal

# the kernel follows at most this many interpreters that are scripts themselves (then ELOOP)
MAX_INTERPRETER_SCRIPTS = 4


def _await_holders(sh: Shell, out: Stream) -> None:
    """A `$( )`'s body is over: bash reads its pipe until every process holding it has closed it,
    so the output of a job started in it (`$(cmd &)`, `$({ sleep 1; echo late; } & echo early)`)
    is part of the value. Wait for the run's jobs whose descriptors still hold the capture (one
    sent elsewhere, `$(sleep 9 >/dev/null &)`, is not waited for), within the run's deadline."""
    budget = sh.rt.budget
    while True:
        holders = [
            job
            for job in list(sh.rt.live.values())
            if job.fds is not None and not job.done.is_set() and any(s is out for s in list(job.fds.values()))
        ]
        if not holders:
            return
        holders[0].wait(budget)


def _lone_simple(cmd: object) -> object:
    """`cmd` when it is one simple command (maybe a pipeline of it alone, not negated or timed)."""
    if type(cmd) is A.Pipeline and len(cmd.cmds) == 1 and not cmd.negate and not cmd.timed:
        cmd = cmd.cmds[0]
    return cmd if type(cmd) is A.SimpleCommand else None


def _reads_text(body: object) -> bool:
    """`body` is one simple command running eval, source or `.` (after builtin or command)."""
    if type(body) is not A.SimpleCommand:
        return False
    for word in body.words:
        if word.text not in ("builtin", "command"):
            return word.text in ("eval", "source", ".")
    return False


# commands whose own status bash tests after them (a simple command, `[[ ]]`, `(( ))`, `( )`);
# a group's, a loop's or an `if`'s is its last command's, tested there
_OWN_STATUS = (A.SimpleCommand, A.CondCmd, A.ArithCmd, A.Subshell)


def _unredirected(cmd: A.Command) -> A.Command:
    return cmd.body if type(cmd) is A.Redirected else cmd


def _stage_status(child: Shell, cmd: A.Command) -> int:
    if type(cmd) is A.SimpleCommand:  # (a lastpipe stage runs in the shell: bash tests it there)
        child.pipe_stage = (len(child.state.frames), child.eval_depth, len(child.state.sources))
    elif type(cmd) is A.Subshell:
        # a `( )` stage runs in the stage's own process, not in a subshell of it (bash forks once)
        child.subenv = SUBENV_PAREN
        mark_nofork(child, *subshell_tail(cmd.body))
    try:
        return child.pr.run_subshell_body(cmd.body if type(cmd) is A.Subshell else cmd)
    except SigPipe:
        return 141


def _shebang(text: str) -> list[str]:
    """The interpreter line as the kernel reads it: the interpreter's path, then at most one
    argument (the rest of the line, inner blanks kept: `#!/usr/bin/env -S rm -f` gives env
    "-S rm -f")."""
    if not text.startswith("#!"):
        return []
    # (only spaces and tabs separate: `#!/bin/bash\r` of a CRLF file names "/bin/bash\r")
    line = text.split("\n", 1)[0][2:].strip(" \t")
    cut = min((i for i in (line.find(" "), line.find("\t")) if i >= 0), default=len(line))
    return [part for part in (line[:cut], line[cut:].strip(" \t")) if part]


# how long the end of a run waits for background jobs that are still working (wait_all_jobs): steps of
# GRACE_POLL, each counted as its wall time up to GRACE_STEP (a waiter that wakes needs up to the GIL's
# switch interval, 5 ms, to run again beside a busy job)
JOB_GRACE = 1.0
GRACE_POLL = 0.01
GRACE_STEP = 0.025


def _run_stage(
    child: Shell,
    cmd: A.Command,
    writer: Stream | None,
    reader: Stream | None,
    statuses: list[int],
    index: int,
    errors: list[BaseException],
    deaths: list[tuple[int, int]],
) -> None:
    budget = child.rt.budget
    try:
        statuses[index] = _stage_status(child, cmd)
        deaths[index] = (child.killed_by, child.state.bashpid)
    except BaseException as e:  # limits, cancellation: re-raised by the parent
        statuses[index] = 1
        # a limit or cancellation without its frames: `errors` is a local of this frame, which the
        # traceback holds, a cycle that kept the stage's shell for a gen-2 collection
        errors.append(e.with_traceback(None) if isinstance(e, (LimitExceeded, Cancelled)) else e)
        if isinstance(e, LimitExceeded):
            # the run ends with it at every thread's next check: the parent re-raises it only once
            # its own last stage is over (`(while :; do :; done) | sleep 60` slept the 60 s)
            budget.fail(e)
    finally:
        if writer is not None:
            writer.close()
        if reader is not None:
            reader.close()
        release_ended(child)


def _binary(text: str) -> bool:
    """A script file's text (decoded with surrogateescape) is a binary file to bash."""
    from .bashcmd import binary_sample

    return binary_sample(text[:80].encode("utf-8", "surrogateescape"))


def _forks_subshell(cmd: object) -> bool:
    """Whether `cmd` is a `( )`, redirected or not: `time` hands its timing to it."""
    return type(cmd) is A.Subshell or (isinstance(cmd, A.Redirected) and type(cmd.body) is A.Subshell)


def _killed_job_exit_trap(child: Shell, budget: JobBudget, signal: int) -> None:
    """A job a signal ended runs its EXIT trap first (bash's termsig_handler; never for a KILL),
    bounded as the job was: a second `kill` (budget.signal again) or the run's deadline ends it."""
    if signal == 9 or "EXIT" not in child.state.traps:
        return
    budget.signal = 0  # (the trap's own commands must not end at their first check)
    try:
        with thread_deadline(budget):
            child.run_exit_trap(child.state.last_status)
    except LimitExceeded as e:
        child.rt.budget.fail(e)
    except (JobSignal, Cancelled, SigPipe):
        pass
