"""Background jobs as the shell sees them: which job an argument names (`%2`, `%sleep`, a pid),
bash's report of a job that died of a signal, and signals one shell of a run sends another (a
job's `kill -USR1 $$`, SIGCHLD when a child ends): queued on the Runtime by the target's pid and
acted on at the target's next command. The builtins (`wait`, `kill`, `jobs`,
`disown`) and the executor use these; a job's own waiting is `Job.wait` (interp/runtime.py)."""

from __future__ import annotations

import _thread  # (threading's locks are _thread's: threading.py itself is ~0.8 ms of a start-up)

from ..posix.signals import NAMES
from .control import KilledBySignal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .runtime import Job
    from .shell import Shell

# strsignal() wording, by signal number (what bash prints for a job that died of it)
_DESCRIPTIONS = {
    1: "Hangup",
    2: "Interrupt",
    3: "Quit",
    4: "Illegal instruction",
    5: "Trace/breakpoint trap",
    6: "Aborted",
    7: "Bus error",
    8: "Floating point exception",
    9: "Killed",
    10: "User defined signal 1",
    11: "Segmentation fault",
    12: "User defined signal 2",
    13: "Broken pipe",
    14: "Alarm clock",
    15: "Terminated",
    16: "Stack fault",
    24: "CPU time limit exceeded",
    25: "File size limit exceeded",
    26: "Virtual timer expired",
    27: "Profiling timer expired",
    29: "I/O possible",
    30: "Power failure",
    31: "Bad system call",
}
_QUIET = frozenset({2, 13, 15})  # deaths bash does not report

# what a job argument is (job_for)
JOBSPEC = "jobspec"  # %N, %%, %+, %-, %PREFIX, %?TEXT
PID = "pid"  # a process id
NEITHER = ""


def describe_signal(sig: int) -> str:
    if sig in _DESCRIPTIONS:
        return _DESCRIPTIONS[sig]
    if 34 <= sig <= 64:
        return f"Real-time signal {sig - 34}"
    return f"Unknown signal {sig}"


class AmbiguousJob(Exception):
    """A `%PREFIX` or `%?TEXT` spec that more than one job matches (`text`: what bash names)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


def find_job(jobs: dict[int, Job], spec: str) -> Job | None:
    """The job a `%` spec names: %N, %%, %+, %- , %PREFIX, %?TEXT (None when there is none;
    AmbiguousJob when a prefix or text matches more than one)."""
    ids = sorted(jobs)
    body = spec[1:]
    if body.isdigit():
        return jobs.get(int(body))
    if body in ("", "%", "+"):
        return jobs[ids[-1]] if ids else None
    if body == "-":
        return jobs[ids[-2]] if len(ids) > 1 else (jobs[ids[-1]] if ids else None)
    if body.startswith("?"):
        hits = [jobs[j] for j in ids if body[1:] in jobs[j].command]
    else:
        hits = [jobs[j] for j in ids if jobs[j].command.startswith(body)]
    if len(hits) > 1:
        raise AmbiguousJob(body.removeprefix("?"))
    return hits[0] if hits else None


def job_for(jobs: dict[int, Job], arg: str, signed: bool = False) -> tuple[str, Job | None]:
    """What a job argument names: (JOBSPEC, the job or None) for a `%` spec, (PID, the job with
    that pid or None) for a process id (`signed`: `kill` takes -PID too), (NEITHER, None) for
    anything else. Each builtin words its own error for the None cases."""
    if arg.startswith("%"):
        return JOBSPEC, find_job(jobs, arg)
    digits = arg[1:] if signed and arg.startswith("-") else arg
    if digits.isdigit():
        pid = int(arg)
        return PID, next((j for j in jobs.values() if j.pid == pid), None)
    return NEITHER, None


def notify(sh: Shell, job: Job) -> None:
    """Report a job that died of a signal bash reports, once."""
    if job.signal and job.signal not in _QUIET and not job.reported:
        sh.write_err(f"{sh.err_prefix()}{job.pid:5d} {describe_signal(job.signal):<24}{job.command}\n")
    job.reported = True


def brief_report(sh: Shell, sig: int) -> bool:
    """What report_death and report_pipeline_death share: a death by SIGINT or SIGPIPE is not
    reported, one by SIGTERM or by a signal this shell traps is the bare signal name. True when
    that was all (the caller reports nothing more)."""
    if sig in (2, 13):
        return True
    name = NAMES[sig] if sig < len(NAMES) else ""
    if sig == 15 or (name and name in sh.state.traps):
        sh.write_err(f"{describe_signal(sig)}\n")
        return True
    return False


def report_death(sh: Shell, sig: int, pid: int, command: str) -> None:
    """A foreground child (a subshell) died of signal `sig`: bash names the signal (jobs.c's
    notify_of_job_status, not interactive) as it names a job's, with the pid and the command,
    except SIGINT and SIGPIPE (nothing) and SIGTERM or a signal this shell traps (the bare name)."""
    if not brief_report(sh, sig):
        sh.write_err(f"{sh.err_prefix()}{pid:5d} {describe_signal(sig):<24}{command}\n")


def report_pipeline_death(sh: Shell, stages: list[tuple[int, int, int, str]], decider: int) -> None:
    """A foreground pipeline whose process `decider` (the last, or under pipefail the last that
    failed) died of a signal: as report_death, but bash prints the whole job (print_pipeline): a
    line for each (pid, signal, status, command) of `stages`, its status blank when it is the
    first one's, `| ` before every command but the first."""
    if brief_report(sh, stages[decider][1]):
        return
    posix = sh.state.opts["posix"]

    def shown(sig: int, status: int) -> str:
        if sig:
            return describe_signal(sig)
        if status == 0:
            return "Done"
        return f"Done({status})" if posix else f"Exit {status}"

    first = stages[0][1], stages[0][2]
    lines = []
    for j, (pid, s, status, command) in enumerate(stages):
        text = "" if j and (s, status) == first else shown(s, status)
        pad = " " * (24 - (len(text) or 2))
        lines.append(f"{pid:5d} {text}{pad}{command}" if not j else f"     {pid:5d} {text}{pad}| {command}")
    sh.write_err(sh.err_prefix() + "\n".join(lines) + "\n")


def notify_dead_jobs(sh: Shell) -> None:
    """After a foreground command and as each command of a script is read: bash reports the jobs
    a signal killed meanwhile (counting them as told), then deletes the finished jobs it has told
    about. In a script read from a file or standard input, a job that finished on its own stays
    until `wait` or `jobs` tells of it (jobs.c's notify_of_job_status keeps its status); `bash -c`
    counts every finished job as told, and a `$( )` every one but its last (`$!`)."""
    script = sh.state.mode != "c"
    comsub = sh.subst_depth
    for job in list(sh.rt.jobs.values()):
        if not job.done.is_set() or not told_here(sh, job):
            continue
        if job.signal and not job.reported:
            notify(sh, job)
            tell(sh, job)  # (reported or not: jobs.c marks every job a signal killed notified)
        if comsub:
            if job.pid != sh.state.last_bg:
                tell(sh, job)
        elif not script:
            tell(sh, job)
    cleanup_dead_jobs(sh)


# how many statuses of jobs no longer in the table a shell keeps for `wait PID` (bash: CHILD_MAX),
# and how many finished jobs not yet told about it keeps in its table
_SAVED_STATUSES = 1024


def tell(sh: Shell, job: Job) -> None:
    """`job` was waited for or listed (bash's J_NOTIFIED): once it has finished it is deleted
    from the table at the shell's next clean-up (cleanup_dead_jobs); `wait PID` still gives its
    status after that. `bash -c` deletes it at once (not in a `$( )`). A `$( )` or pipeline
    stage sharing its parent's table tells of the jobs it started only: it leaves its parent's
    as they are (in bash it told a copy of them)."""
    if not told_here(sh, job):
        return
    job.seen = DONE
    if not job.done.is_set():
        return
    rt = sh.rt
    rt.reap = True
    if sh.state.mode == "c" and not sh.subst_depth and rt.jobs.get(job.jid) is job:
        del rt.jobs[job.jid]
    saved = rt.reaped
    saved.pop(job.pid, None)
    if len(saved) >= _SAVED_STATUSES:
        del saved[next(iter(saved))]
    saved[job.pid] = job.status or 0


def cleanup_dead_jobs(sh: Shell) -> None:
    """Delete the finished jobs told about (bash does so as it reads a line, forks, waits for a
    foreground command or lists the jobs): their numbers are free again, `%N` no longer names
    them. Finished jobs not told about past _SAVED_STATUSES are told about, oldest first."""
    rt = sh.rt
    jobs = rt.jobs
    if not jobs:
        return
    if owns_table(sh):
        rt.reap = False
        dead = [job for job in jobs.values() if job.done.is_set()]
    else:  # (a `$( )` or pipeline stage: the jobs it started, not its parent's)
        dead = [job for job in jobs.values() if job.done.is_set() and job.starter is sh]
    for job in dead[: max(0, len(dead) - _SAVED_STATUSES)]:
        tell(sh, job)
    for job in dead:
        if job.seen == DONE and jobs.get(job.jid) is job:
            del jobs[job.jid]


def next_job_number(jobs: dict[int, Job]) -> int:
    """bash numbers a new job one past the highest in the table: 1 again once it is empty."""
    return max(jobs, default=0) + 1


def fresh_table(sh: Shell) -> None:
    """A subshell that is a process of its own (`( )`, `&`) starts with no jobs of its parent's."""
    # (a shallow copy, as copy.copy makes of a plain class: the copy module is ~1 ms of a first `( )`)
    rt = object.__new__(type(sh.rt))
    rt.__dict__.update(sh.rt.__dict__)
    rt.jobs = {}
    rt.reaped = {}
    rt.reap = False
    rt.table_owner = sh
    rt.stage_copy = False
    sh.rt = rt


def stage_table(sh: Shell, jobs_builtin: bool = False) -> None:
    """A simple pipeline stage keeps its parent's table for the `jobs` it runs itself (bash's
    execute_subshell_builtin_or_function: without_job_control, but for jobs_builtin): any other
    builtin there (`kill %1 | cat`, `compgen -j | cat`), or one in a function it calls, sees
    none. Called by the builtins that read the table."""
    if sh.rt.stage_copy:
        st = sh.state
        if not (jobs_builtin and (len(st.frames), sh.eval_depth, len(st.sources)) == sh.pipe_stage):
            fresh_table(sh)


def copied_table(sh: Shell) -> None:
    """A `$( )` or a simple pipeline stage, forked by bash, starts with a copy of its parent's job
    table: `jobs` lists the parent's jobs as they were, a finished one told about in the copy
    only; they are no children of this shell (Job.foreign): `wait` cannot wait for them. `kill`
    still reaches the process."""
    from .runtime import Job  # (the module is loaded: the parent made these jobs)

    parent = sh.rt
    fresh_table(sh)
    rt = sh.rt
    rt.reaped = dict(parent.reaped)
    jobs = rt.jobs
    for jid, job in parent.jobs.items():
        done = job.done.is_set()
        copy = Job(jid, job.pid, None, job.command, job.status if done else None)
        if done:
            copy.done.set()
        copy.reported, copy.seen, copy.budget, copy.signal = job.reported, job.seen, job.budget, job.signal
        copy.foreign = True
        jobs[jid] = copy


def mark_foreign_dead(sh: Shell) -> None:
    """bash's mark_all_jobs_as_dead, when waitpid answers that this shell has no such child: the
    copied jobs still running are taken as done, status 0 (what bash can tell of them)."""
    for job in sh.rt.jobs.values():
        if job.foreign and not job.done.is_set():
            job.status = 0
            job.done.set()


def told_here(sh: Shell, job: Job) -> bool:
    """Whether telling `sh` of `job` marks the job: not when `sh` is a `$( )` or pipeline stage
    sharing its parent's table and `job` is its parent's (in bash it told a copy of it)."""
    return job.starter is sh or owns_table(sh)


def owns_table(sh: Shell) -> bool:
    """Whether `sh` keeps its job table (deletes the jobs it told about): the top shell and a
    subshell with a table of its own, not a `$( )` or pipeline stage sharing its parent's."""
    return not sh.state.subshell or sh.rt.table_owner is sh


# Job.seen: the state of a job the shell last told about
RUNNING = "running"
DONE = "done"


def listed_jobs(sh: Shell) -> dict[int, Job]:
    """The jobs `jobs`, `disown` and `compgen -j` see: not those finished and already told about."""
    return {jid: j for jid, j in sh.rt.jobs.items() if not (j.seen == DONE and j.done.is_set())}


# ------------------------------------------------------------ signals between the shells of a run

SIGCHLD = 17
# what a signal nobody traps does to a shell: these change nothing, any other ends it
_HARMLESS = frozenset({"CHLD", "URG", "WINCH", "CONT"})


def own_pid(sh: Shell) -> int:
    """The process id of `sh` itself ($BASHPID): what another shell's `kill` names it by."""
    return sh.state.bashpid or sh.rt.identity.pid


def take_pending(sh: Shell) -> list[tuple[str, int]]:
    """The signals other shells of the run sent to `sh` since it last looked (oldest first); its
    RunMode is no longer marked (under the lock a sender marks it with: Runtime.send_signal)."""
    rt = sh.rt
    with rt.lock:
        taken = rt.signals.pop(own_pid(sh), None) or []
        mode = sh.state.run_mode
        if mode.signal:
            mode.signal = False
            mode.settle()
        return taken


def take_signals(sh: Shell) -> None:
    """Act on the signals sent to `sh` meanwhile, as bash runs pending traps between commands."""
    for name, number in _once_each(take_pending(sh)):
        deliver_signal(sh, name, number)


def _once_each(taken: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Signals that arrived before the shell looked run their trap once each (bash's
    run_pending_traps clears a signal's pending count: `kill -USR1 $$ $$` runs it once); a
    SIGCHLD's trap runs for each child."""
    if len(taken) < 2:
        return taken
    seen: set[str] = set()
    out = []
    for item in taken:
        if item[0] == "CHLD" or item[0] not in seen:
            seen.add(item[0])
            out.append(item)
    return out


def take_own_signals(sh: Shell) -> None:
    """Act on the signals `sh` sent itself (`kill -INT $BASHPID`) as kill returns. A SIGINT that
    no trap takes only marks a `( )` subshell or a pipeline stage interrupted (bash's
    sigint_sighandler): it dies of it at its next command, or as it ends unless that command
    was its last (end_of_subshell); the shell itself and a `$( )` die at once."""
    st = sh.state
    # (a `( )` inside a `$( )` is a subshell like any other: only the substitution's own
    # process dies at once)
    keep = st.subshell and not sh.subenv & (SUBENV_COMSUB | SUBENV_PROCSUB) and "INT" not in st.traps
    # with an EXIT trap, another fatal signal waits for the next command too: bash's handler runs
    # the trap as that command starts (`(trap T EXIT; kill $BASHPID; :)`), not when the subshell
    # ends with the kill (`(trap T EXIT; kill $BASHPID)` dies without it)
    held = st.subshell and not sh.subenv & (SUBENV_COMSUB | SUBENV_PROCSUB) and "EXIT" in st.traps
    for name, number in _once_each(take_pending(sh)):
        if (keep and name == "INT") or (held and name != "KILL" and _fatal(sh, name)):
            sh.rt.send_signal(own_pid(sh), name, number)  # (for the next command's prologue)
        else:
            deliver_signal(sh, name, number)


def _fatal(sh: Shell, name: str) -> bool:
    """Whether signal `name` would end `sh` (deliver_signal's death), with no trap of its own."""
    if name in sh.state.traps or name in _HARMLESS or name == "QUIT":
        return False
    return not (sh.job_shell and name == "INT")


def end_of_subshell(sh: Shell, body: object) -> None:
    """A subshell's body ran to its end. A SIGINT it sent itself that no command acted on yet
    (take_own_signals) ends it now, unless its last command was one bash runs without looking
    at it again: a simple command last in its list, in braces or negated (not after `&&`/`||`,
    not eval/exec/source, not with an EXIT trap); then it exits with that command's status."""
    if own_pid(sh) not in sh.rt.signals:
        return
    if "EXIT" not in sh.state.traps and _ends_in_simple(body):
        for name, number in _once_each(take_pending(sh)):
            if sh.state.traps.get(name):  # (a trapped one still runs its trap as the subshell ends)
                deliver_signal(sh, name, number)
        return
    try:
        take_signals(sh)
    except KilledBySignal as e:
        e.at_end = True  # (it dies as its last command ends: no EXIT trap)
        raise


def exec_tail(body: object) -> object:
    """The simple command bash runs as a subshell's own process (execve without a fork): the
    last of its list, or the whole of a pipeline stage; None when there is none."""
    from ..syntax import ast as A  # (a shell process that died of a signal: rare)

    node = body
    if isinstance(node, A.CommandList):
        if not node.items or node.items[-1].background:
            return None
        node = node.items[-1].cmd
    if isinstance(node, A.Pipeline) and len(node.cmds) == 1 and not node.negate and not node.timed:
        node = node.cmds[0]
    return node if isinstance(node, A.SimpleCommand) else None


def one_shot_tail(node: object, redirs_ok: bool = False) -> object:
    """The simple command a `bash -c` string (or a `$( )`'s, a `<( )`'s) ends with that bash runs
    as the shell's own process (execve without a fork: evalstring.c's should_suppress_fork, and
    for `a; b`, `a && b`, `a || b` the second, can_optimize_connection): the last command of the
    string, not negated, timed, redirected (`redirs_ok`: a process substitution's may be) or after
    `&`, nor the end of an and-or list after `;` (`a; b || c`: the second is no simple command);
    None when there is none. Whether traps keep it from that is decided as it runs
    (Executor._child_died, Executor.run_argv)."""
    from ..syntax import ast as A  # (once per `bash -c` string, at its last command)

    if isinstance(node, A.CommandList):
        items = node.items
        if not items or items[-1].background or (len(items) > 1 and items[-2].background):
            return None
        node = items[-1].cmd
        if len(items) > 1 and isinstance(node, A.AndOr) and node.rest:
            return None
    if isinstance(node, A.AndOr):
        node = node.rest[-1][1] if node.rest else node.first
    if isinstance(node, A.Pipeline):
        if len(node.cmds) != 1 or node.negate or node.timed:
            return None
        node = node.cmds[0]
    if isinstance(node, A.SimpleCommand) and (redirs_ok or not node.redirs):
        return node
    return None


def subshell_tail(body: object) -> tuple[object, bool]:
    """The simple command a `( )` runs as its own process, and whether traps set by then may keep
    it from that: the whole of the body (redirected or not: execute_in_subshell's CMD_NO_FORK,
    never kept from it), else the second of a last `;`, `&&` or `||` (optimize_subshell_command:
    as a `bash -c` string's, decided as it runs)."""
    node = sole_command(body)
    from ..syntax import ast as A  # (a `( )`: its module is loaded by then)

    if isinstance(node, A.SimpleCommand):
        return node, False
    return one_shot_tail(body), True


# Shell.subenv: what bash's subshell_environment tells of a shell
SUBENV_PAREN = 1  # a `( )` (its `$( )` too)
SUBENV_PIPE = 2  # a pipeline stage that is no `( )`
SUBENV_COMSUB = 4  # a `$( )`
SUBENV_PROCSUB = 8  # a `<( )` or `>( )`


def mark_nofork(child: Shell, node: object, checked: bool) -> None:
    """`node` is the simple command bash would run as `child`'s own process (Shell.nofork)."""
    child.nofork = node
    child.nofork_checked = checked
    child.nofork_at = (len(child.state.frames), child.eval_depth, len(child.state.sources))
    child.kept_exit = child.state.traps.get("EXIT") == ""


def execs_now(sh: Shell, cmd: object) -> bool:
    """Whether `cmd`, about to run in `sh`, is what bash runs as the shell's own process: its
    `nofork` (the traps allowing, when that is checked) or a `bash -c` string's last command."""
    if cmd is sh.nofork:
        st = sh.state
        if (len(st.frames), sh.eval_depth, len(st.sources)) != sh.nofork_at:
            return False
        return not sh.nofork_checked or runs_as_process(sh)
    return cmd is sh.one_shot and one_shot_now(sh)


def shell_level(text: str | None) -> int:
    """SHLVL's value as bash reads it (legal_number: a decimal number, blanks around it), else 0."""
    text = (text or "").strip(" \t\n\v\f\r")
    digits = text[1:] if text[:1] in "+-" else text
    return int(text) if digits.isdigit() and digits.isascii() else 0


def shell_level_down(sh: Shell, env: dict[str, str], own: bool = False) -> None:
    """bash's adjust_shell_level(-1) before it execs a program in place of a shell (a subshell's
    last command, `exec`): SHLVL, as a number (else 0), one less, never below 0, and exported.
    `own`: the shell's own SHLVL, not a temporary one of the command (`bash -c 'SHLVL=9 prog'`:
    bash's one-shot exec shows the level below the shell's, where `( )`, `$( )`, `&` and `exec`
    lower the command's)."""
    if own:
        var = sh.state.vars.globals.get("SHLVL")
        text: str | None = var.value if var is not None and isinstance(var.value, str) else ""
    else:
        text = sh.va.get_str("SHLVL")
    level = shell_level(text) - 1
    if level < 0:
        level = 0
    elif level >= 1000:
        sh.warn(f"shell level ({level}) too high, resetting to 1")
        level = 1
    env["SHLVL"] = str(level)


def runs_as_process(sh: Shell) -> bool:
    """Whether bash would still exec the command `sh.nofork` names now, the traps allowing
    (should_optimize_fork): not from a trap, with no EXIT or ERR trap nor a signal's handler in
    force (an ignored signal, DEBUG and RETURN do not count)."""
    st = sh.state
    if st.in_trap:
        return False
    kept = sh.kept_exit  # (an ignored EXIT trap a subshell inherits does not count: reset_signal_handlers)
    return not any(
        (name == "EXIT" and not (kept and h == ""))
        or name == "ERR"
        or (h and name not in ("DEBUG", "RETURN"))
        for name, h in st.traps.items()
    )


def one_shot_now(sh: Shell) -> bool:
    """Whether bash would still run a `bash -c` string's last command as its own process now: not
    from eval, source or a trap, and with no EXIT or ERR trap nor a signal's handler (an ignored
    signal, DEBUG and RETURN traps do not count: should_suppress_fork)."""
    st = sh.state
    if sh.eval_depth or st.sources or st.in_trap or st.subshell or st.frames:
        return False
    return not any(
        name in ("EXIT", "ERR") or (h and name not in ("DEBUG", "RETURN")) for name, h in st.traps.items()
    )


def sole_command(body: object) -> object:
    """The command that is the whole of a subshell's `body` (not negated, not timed), or None: a
    `( )` there, redirected or not, bash runs in the subshell's own process (execute_in_subshell
    sets CMD_NO_FORK on it), so a signal that kills it kills the subshell: `( ( kill -9 $BASHPID ) )`
    is reported with the outer text."""
    from ..syntax import ast as A  # (a subshell that died of a signal: rare)

    node = body
    if isinstance(node, A.CommandList):
        if len(node.items) != 1 or node.items[0].background:
            return None
        node = node.items[0].cmd
    if isinstance(node, A.Pipeline):
        if len(node.cmds) != 1 or node.negate or node.timed:
            return None
        node = node.cmds[0]
    return node


# what bash reads and runs anew: not run as the subshell's own process
_REREAD = frozenset({"eval", "exec", "source", "."})


def _ends_in_simple(node: object) -> bool:
    from ..syntax import ast as A  # (a subshell that signalled itself: rare)

    while True:
        if isinstance(node, A.CommandList):
            if not node.items or node.items[-1].background:
                return False
            node = node.items[-1].cmd
        elif isinstance(node, A.Group):
            node = node.body
        elif isinstance(node, A.Pipeline) and len(node.cmds) == 1 and not node.timed:
            node = node.cmds[0]
        else:
            return isinstance(node, A.SimpleCommand) and not (node.words and node.words[0].text in _REREAD)


def deliver_signal(sh: Shell, name: str, number: int) -> None:
    """Signal `number` (trap name `name`) reaches `sh`: run its trap, ignore it, or die of it."""
    if number == 0:
        return
    handler = sh.state.traps.get(name)
    if handler is not None:
        if handler:
            sh.run_trap_text(handler, name)
        return
    if name in _HARMLESS:
        return
    if name == "QUIT" and not sh.state.subshell:
        # bash ignores SIGQUIT in the shell itself (`kill -QUIT $$` goes on, `trap - QUIT` too);
        # its subshells (`( )`, pipeline stages, `$( )`) take it again and die of it
        return
    if sh.job_shell and name in ("INT", "QUIT"):
        return  # an asynchronous command's own shell ignores both (not a subshell it starts)
    raise KilledBySignal(number)


def child_exited(sh: Shell) -> None:
    """A child process of `sh` ended (a subshell, a substitution, a pipeline stage, a program, a
    job): when `sh` traps SIGCHLD, the trap runs once for it at `sh`'s next command."""
    if "CHLD" in sh.state.traps:
        sh.rt.send_signal(own_pid(sh), "CHLD", SIGCHLD)


# ------------------------------------------------------------ freeing a child shell that ended

# guards Processes.holds and .ended: a shell's end and its processes' ends come on different threads
HOLDS = _thread.allocate_lock()


def release_ended(child: Shell) -> None:
    """`child`, a shell forked for a subshell, a pipeline stage, a job or a substitution, has ended:
    break its reference cycles (Shell.release) so that reference counting frees it at once, not a
    gen-2 collection (which stalled loaded hosts 1.2-3.3 s). Nothing else refers to it but the
    threads of processes it started: then the last of them to end does it (Processes.let_go)."""
    # what its last expansion charged (Expander.hold_fields): no next command of its own gives it back
    child.expander.give_back_fields()
    pr = child.pr
    with HOLDS:
        pr.ended = True
        free = not pr.holds
    if free:
        child.release()
