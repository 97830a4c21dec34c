"""Jobs and signals: kill, wait, jobs, disown, bg/fg.

Background jobs are threads of the run (interp/executor.run_background), each with its own
`JobBudget`. `kill` delivers a signal by setting it on that budget: the job ends with status
128 + signal at its next check (a `sleep` wakes within 50 ms). As in a non-interactive bash,
asynchronous jobs ignore SIGINT and SIGQUIT, and CHLD/URG/WINCH/CONT change nothing. A job
that died of a signal other than INT, PIPE or TERM is reported when it is reaped, as bash does:
`bash: line 1:  4711 Killed                  sleep 100`.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from ..commands.options import CommandSpec, HelpRequested, Opt, UsageError, parse_args
from ..interp.jobs import (
    DONE,
    JOBSPEC,
    PID,
    RUNNING,
    AmbiguousJob,
    cleanup_dead_jobs,
    deliver_signal,
    describe_signal,
    find_job,
    job_for,
    listed_jobs,
    mark_foreign_dead,
    notify,
    notify_dead_jobs,
    own_pid,
    owns_table,
    stage_table,
    take_own_signals,
    take_pending,
    tell,
    told_here,
)
from ..interp.state import ONE_STATUS
from ..interp.variables import AssignError
from ..shvars.vars import READONLY
from . import builtin
from .bopts import parse_builtin, usage, wants_help
from .core import _SIGNALS, signal_list, signal_name, signal_number
from .io import VarRef, assign_ref, var_ref

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..interp.runtime import Job
    from ..interp.shell import Shell

_IGNORED_BY_JOBS = frozenset({0, 2, 3, 17, 18, 19, 20, 21, 22, 23, 28})  # no effect on a background job


# ------------------------------------------------------------ kill


# bash's kill loop, declared: each option is a word of its own, `-s SIG` / `-n NUM` (attached only
# as `-sTERM` and `-n9`: `-s9` is the signal `s9`), and the first other `-WORD` is the signal WORD;
# a later one is an operand (a process group, `kill -9 -1234`). `-l`/`-L` list; `-?` is the usage.
_KILL = CommandSpec(
    name="kill",
    builtin=True,
    bundle="none",
    opts=(
        Opt("l", dest="list"),
        Opt("L", dest="list"),
        Opt(
            "s",
            dest="signal",
            arg="required",
            attached_if=lambda text: text[:1].isascii() and text[:1].isalpha(),
        ),
        Opt("n", dest="signal", arg="required", attached_if=lambda text: text[:1] in "0123456789"),
        Opt("?", dest="usage", stop=True),
    ),
    dash_value="signal",
    dash_value_once=True,
)


@builtin("kill")
def bi_kill(sh: Shell, argv: list[str]) -> int:
    stage_table(sh)
    try:
        parsed, args = parse_args(_KILL, argv[1:])
    except HelpRequested:
        return _help(sh, "kill")
    except UsageError as e:
        sh.builtin_error("kill", e.message)  # `-s: option requires an argument`: status 1, no usage
        return 1
    if "usage" in parsed:
        usage(sh, "kill")
        return 2
    if "list" in parsed:
        return sh.run_unchecked(lambda: _list_signals(sh, args))
    sigspec = parsed.get("signal", "TERM")
    sig = signal_number(sigspec)
    if sig is None:
        sh.builtin_error("kill", f"{sigspec}: invalid signal specification")
        return 1
    if not args:
        usage(sh, "kill")
        return 2
    # bash answers 0 when any target got the signal, 1 only when none did
    status = 0 if sum(_signal_target(sh, target, sig) for target in args) else 1
    if sh.rt.signals:  # one to this shell: its trap runs once kill is done, seeing kill's status
        sh.state.last_status = status
        sh.state.pipestatus = ONE_STATUS[status]  # (and its PIPESTATUS: bash sets both first)
        take_own_signals(sh)
    return status


def _help(sh: Shell, name: str) -> int:
    wants_help(sh, [name, "--help"])
    return 2


def _ambiguous(sh: Shell, name: str, e: AmbiguousJob) -> None:
    sh.builtin_error(name, f"{e.text}: ambiguous job spec")


def _signal_target(sh: Shell, target: str, sig: int) -> bool:
    try:
        kind, job = job_for(sh.rt.jobs, target, signed=True)
    except AmbiguousJob as e:
        _ambiguous(sh, "kill", e)
        return False
    if kind == PID and job is None and int(target) != own_pid(sh):
        # a job of another shell of the run (a subshell's); a job's own $BASHPID is itself
        job = sh.rt.live.get(int(target))
    if kind == JOBSPEC and job is None:
        sh.builtin_error("kill", f"{target}: no such job")
        return False
    if kind == PID and (job is None or job.done.is_set()):
        pid = int(target)
        if job is None and pid in (own_pid(sh), sh.state.pid or sh.rt.identity.pid):
            # this shell (acts as kill returns) or $$ from a job, subshell or substitution (that
            # shell acts at its next command)
            if sig:
                sh.rt.send_signal(pid, _trap_name(sig), sig)
            return True
        sh.builtin_error("kill", f"({target}) - No such process")
        return False
    if job is None:
        if not target:  # (bash's kill_builtin: an empty word is neither a number nor a job)
            sh.builtin_error("kill", "`': not a pid or valid job spec")
            return False
        sh.builtin_error("kill", f"{target}: arguments must be process or job IDs")
        return False
    job.seen = ""  # (bash: its state is to be told again, `jobs -n`)
    if job.done.is_set():
        return True  # (bash skips the processes that are gone: no error)
    if sig and job.budget is not None:
        shell = job.shell
        name = _trap_name(sig)
        if shell is not None and name in shell.state.traps:  # type: ignore[attr-defined]
            # the job traps or ignores it (its own trap of SIGINT too): its shell acts on it at
            # its next command, as bash's runs the trap once the command it waits for ends
            sh.rt.send_signal(job.pid, name, sig)
        elif sig not in _IGNORED_BY_JOBS:
            job.budget.signal = sig
    return True


def _trap_name(sig: int) -> str:
    """The name `trap` files signal `sig` under."""
    return _SIGNALS[sig] if 0 < sig < len(_SIGNALS) else f"SIG{sig}"


def _list_signals(sh: Shell, args: list[str]) -> int:
    if not args:
        sh.out(signal_list())
        return 0
    for a in args:
        if a.strip().isdigit():
            n = int(a)
            name = signal_name(n - 128 if n > 128 else n)  # a status: 128 + the signal
            if name is not None:
                sh.out(name + "\n" if name else "")  # 32 and 33 have no name: nothing at all
                continue
        else:
            num = signal_number(a)
            if num is not None:
                sh.out(f"{num}\n")
                continue
        sh.builtin_error("kill", f"{a}: invalid signal specification")
        return 1
    return 0


# ------------------------------------------------------------ wait


@builtin("wait")
def bi_wait(sh: Shell, argv: list[str]) -> int:
    stage_table(sh)
    status = _wait(sh, argv)
    sh.pr.reap_coproc()  # a coprocess that has ended is reaped: its variables and fds go
    return status


def _wait(sh: Shell, argv: list[str]) -> int:
    opts = parse_builtin(sh, argv, "fnp:")
    if opts is None:
        return 2
    var: VarRef | None = None
    if opts.has("p"):
        var = var_ref(sh, opts.value("p"))
        if var is None:
            sh.builtin_error("wait", f"`{opts.value('p')}': not a valid identifier")
            return 1
        if var[1] is None and not _unset_first(sh, var[0]):
            return 1
    if opts.has("n"):
        return _wait_any(sh, opts.args, var)
    if not opts.args:
        # (the copied jobs of a `$( )` are no children of it: bash's waitpid fails, and it takes
        # them as done, status 0, still listed: wait_for_background_pids' mark_all_jobs_as_dead)
        mark_foreign_dead(sh)
        for job in sorted(sh.rt.jobs.values(), key=lambda j: j.jid):
            if job.foreign:
                continue
            interrupted = _await(sh, job)
            if interrupted:
                return interrupted
            notify(sh, job)
            tell(sh, job)
        cleanup_dead_jobs(sh)
        if owns_table(sh):
            # bash's wait_for_background_pids ends with bgp_clear: `wait PID` of any job gone
            # from the table is no longer known (`pid N is not a child of this shell`)
            sh.rt.reaped.clear()
        return 0
    status = 0
    for spec in opts.args:
        if spec.isdigit() and int(spec) in sh.rt.reaped:  # a job told about: its status
            status = sh.rt.reaped[int(spec)]
            if any(job.pid == int(spec) for job in sh.rt.jobs.values()):
                notify_dead_jobs(sh)  # (still in the table: bash waits for it, and cleans up)
            if var is not None:
                assign_ref(sh, var, spec)
            continue
        found = _resolve(sh, spec)
        if isinstance(found, int):
            status = found
            continue
        job = found
        if job.foreign and not job.done.is_set():
            # a job of the shell this `$( )` was forked from: no child to wait for, so bash's
            # wait_for gives -1 at once; for a job spec, wait_for_job then marks every job dead
            # and this one told about (mark_all_jobs_as_dead, J_NOTIFIED)
            if spec.startswith("%"):
                mark_foreign_dead(sh)
                tell(sh, job)
            if var is not None:
                assign_ref(sh, var, str(job.pid))
            status = -1
            continue
        interrupted = _await(sh, job)
        if interrupted:
            return interrupted
        # bash's wait_for: the jobs killed by a signal are reported and the finished jobs told
        # about deleted (this one too when an earlier wait told of it); then this one is told
        # about, and stays in the table until the next clean-up (`wait %1` again works)
        notify_dead_jobs(sh)
        status = job.status or 0
        tell(sh, job)
        if var is not None:
            assign_ref(sh, var, str(job.pid))
    return status


def _unset_first(sh: Shell, name: str) -> bool:
    """`wait -p NAME` unsets NAME before it waits (bash's builtin_unbind_variable: through a
    reference; a readonly one is reported and ends the builtin, False). An element's reference
    (`-p 'a[1]'`) is left as it is, as bash's unbind_variable finds no variable of that name."""
    found = sh.state.vars.find(name)
    if found is not None and found.attrs & READONLY:
        sh.builtin_error("wait", f"{name}: cannot unset: readonly variable")
        return False
    try:
        sh.va.unset_var(name)
    except AssignError as e:  # (a readonly variable a reference names)
        sh.builtin_error("wait", e.message)
        return False
    return True


def _await(sh: Shell, job: Job) -> int:
    """Wait for `job`, acting on the signals sent to this shell meanwhile: 0 once the job is
    done, or 128 + N when a trapped signal N ended the wait first (its trap has run)."""
    budget = sh.rt.budget
    while True:
        done = job.wait(budget, 0.05, until=time.monotonic() + 0.05)
        interrupted = _signals_in_wait(sh)  # (a job queues its SIGCHLD before it is done)
        if interrupted or done:
            return interrupted


def _signals_in_wait(sh: Shell) -> int:
    """Signals that reached this shell while it waits: SIGCHLD's trap runs for each job that
    ends; any other trapped signal ends the wait (bash: status 128 + N, then the trap runs)."""
    if not sh.rt.signals:
        return 0
    status = 0
    for name, number in take_pending(sh):
        trapped = bool(sh.state.traps.get(name))
        deliver_signal(sh, name, number)
        if trapped and name != "CHLD":
            status = 128 + number
    return status


def _resolve(sh: Shell, spec: str, any_of: bool = False) -> Job | int:
    """The job `spec` names, or the status of the error reported for it. `any_of`: for
    `wait -n`, which also says "no such job" after "ambiguous job spec"."""
    try:
        kind, job = job_for(sh.rt.jobs, spec)
    except AmbiguousJob as e:
        _ambiguous(sh, "wait", e)
        if any_of:
            sh.builtin_error("wait", f"{spec}: no such job")
        return 127
    if job is not None:
        return job
    proc = sh.pr.last_procsub
    if kind == PID and proc is not None and int(spec) == proc.pid:
        return proc  # the last process substitution ($!)
    if kind == JOBSPEC:
        sh.builtin_error("wait", f"{spec}: no such job")
        return 127
    if kind == PID:
        sh.builtin_error("wait", f"pid {spec} is not a child of this shell")
        return 127
    sh.builtin_error("wait", f"`{spec}': not a pid or valid job spec")
    return 1


def _wait_any(sh: Shell, specs: list[str], var: VarRef | None) -> int:
    """`wait -n`: the next of these jobs (or of all) to finish; 127 when there is none."""
    if specs:
        chosen = [j for j in (_resolve(sh, s, any_of=True) for s in specs) if not isinstance(j, int)]
    else:
        chosen = [j for j in sh.rt.jobs.values() if not j.reported]
    if not chosen:
        return 127
    if not any(j.done.is_set() for j in chosen) and not any(
        not j.foreign and not j.done.is_set() for j in sh.rt.jobs.values()
    ):
        # only copied jobs of the parent's running and none of its own: waitpid fails, and bash
        # takes them all as done, status 0 (wait_for_any_job's mark_all_jobs_as_dead)
        mark_foreign_dead(sh)
    budget = sh.rt.budget
    while True:
        finished = [job for job in chosen if job.done.is_set()]
        interrupted = _signals_in_wait(sh)
        if interrupted:
            return interrupted
        for job in finished:
            notify(sh, job)
            tell(sh, job)
            if job.foreign:
                notify_dead_jobs(sh)  # (bash's notify_of_job_status there: a `$( )` tells of all but $!)
            if var is not None:
                assign_ref(sh, var, str(job.pid))
            return job.status or 0
        chosen[0].wait(budget, 0.02, until=time.monotonic() + 0.02)  # then look at them all again


# ------------------------------------------------------------ jobs, disown, bg, fg


@builtin("jobs")
def bi_jobs(sh: Shell, argv: list[str]) -> int:
    stage_table(sh, True)
    opts = parse_builtin(sh, argv, "lnprsx")
    if opts is None:
        return 2
    if opts.has("x"):
        return _jobs_execute(sh, opts.letters(), opts.args)
    if not opts.args:
        cleanup_dead_jobs(sh)  # (bash's list_all_jobs: before it lists; a finished job it lists
        # stays until the next clean-up, list_one_job's goes at once)
    jobs = listed_jobs(sh)
    ids = sorted(jobs)
    status = 0
    if opts.args:
        ids = []
        for spec in opts.args:  # (bash lists the jobs it finds, then answers 1 for the others)
            job = _named(sh, "jobs", jobs, spec if spec.startswith("%") else "%" + spec, spec)
            if job is None:
                status = 1
            else:
                ids.append(job.jid)
    # (bash's list_one_job prints without checking the write: `jobs >&-` answers 0)
    sh.run_unchecked(lambda: _listed(sh, opts.has, jobs, ids))
    if opts.args:
        cleanup_dead_jobs(sh)
    return status


def _named(sh: Shell, name: str, jobs: dict[int, Job], spec: str, shown: str) -> Job | None:
    """The job `spec` names for `jobs` and `disown`, reporting a spec that names none as bash
    does (an ambiguous one twice: "ambiguous job spec", then "no such job")."""
    try:
        job = job_for(jobs, spec)[1]
    except AmbiguousJob as e:
        _ambiguous(sh, name, e)
        job = None
    if job is None:
        sh.builtin_error(name, f"{shown}: no such job")
    return job


def _listed(sh: Shell, has: Callable[[str], bool], jobs: dict[int, Job], ids: list[int]) -> int:
    _list_jobs(sh, has, jobs, ids)
    return 0


def _list_jobs(sh: Shell, has: Callable[[str], bool], jobs: dict[int, Job], ids: list[int]) -> None:
    """`jobs`' lines for the jobs `ids`; a finished job, once listed, is deleted (as bash does)."""
    order = sorted(jobs)
    for jid in ids:
        job = jobs[jid]
        done = job.done.is_set()
        if (has("r") and done) or has("s"):
            continue  # -s: no job is ever stopped (there is no job control)
        if has("n") and job.seen == (DONE if done else RUNNING):
            continue  # -n: only the jobs whose state changed since the shell last told
        if has("p"):
            sh.out(f"{job.pid}\n")
            continue
        mark = "+" if jid == order[-1] else ("-" if len(order) > 1 and jid == order[-2] else " ")
        if job.signal:
            state = describe_signal(job.signal)
        elif done:
            state = f"Exit {job.status}" if job.status else "Done"
        else:
            state = "Running"
        # bash: "[%d]%c " then, with -l, the pid as "%5d " (else one more space)
        pid = f"{job.pid:>5} " if has("l") else " "
        sh.out(f"[{jid}]{mark} {pid}{state:<24}{job.command}{'' if done else ' &'}\n")
        if not told_here(sh, job):
            continue  # (a `$( )`'s or pipeline stage's listing leaves its parent's jobs as they were)
        job.seen = DONE if done else RUNNING
        if done:
            job.reported = True
            tell(sh, job)


def _jobs_execute(sh: Shell, letters: str, args: list[str]) -> int:
    """`jobs -x COMMAND ARGS`: each word naming a job becomes its process group, then it runs.
    Without job control every job is in the shell's own group: bash puts its pgid, here $$."""
    if any(c in "lnp" for c in letters[: letters.index("x")]):
        sh.builtin_error("jobs", "no other options allowed with `-x'")
        return 1
    if not args:
        return 0
    jobs = listed_jobs(sh)
    words = []
    for word in args:
        try:
            job = find_job(jobs, word) if word.startswith("%") else None
        except AmbiguousJob as e:
            _ambiguous(sh, "jobs", e)  # (and leaves the word as it is)
            job = None
        words.append(word if job is None else str(sh.rt.identity.pid))
    return sh.ex.dispatch(words, None, ())


@builtin("disown")
def bi_disown(sh: Shell, argv: list[str]) -> int:
    stage_table(sh)
    opts = parse_builtin(sh, argv, "ahr")
    if opts is None:
        return 2
    jobs = listed_jobs(sh)
    nohup = opts.has("h")  # only marks the job not to get SIGHUP: no SIGHUP ever comes
    if not opts.args and (opts.has("a") or opts.has("r")):  # with operands, -a and -r are ignored
        for jid, job in jobs.items():
            if not nohup and not (opts.has("r") and job.done.is_set()):
                sh.rt.jobs.pop(jid)
        return 0
    status = 0
    for spec in opts.args or ["%+"]:
        found = _named(sh, "disown", jobs, spec, spec if opts.args else "current")
        if found is None:
            status = 1
        elif not nohup:
            sh.rt.jobs.pop(found.jid, None)
    return status


@builtin("bg", "fg")
def bi_fg(sh: Shell, argv: list[str]) -> int:
    stage_table(sh)
    if wants_help(sh, argv):  # bash's CHECK_HELPOPT comes before the job-control check
        return 2
    sh.builtin_error(argv[0], "no job control")
    return 1
