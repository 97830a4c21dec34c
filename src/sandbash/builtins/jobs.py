"""Jobs and signals: kill, wait, jobs, disown, bg/fg.

Background jobs are threads of the run (interp/executor.run_background), each with its own
`JobBudget`. `kill` delivers a signal by setting it on that budget: the job ends with status
128 + signal at its next check (a `sleep` wakes within 50 ms). As in a non-interactive bash,
asynchronous jobs ignore SIGINT and SIGQUIT, and CHLD/URG/WINCH/CONT change nothing. A job
that died of a signal other than INT, PIPE or TERM is reported when it is reaped, as bash does:
`bash: line 1:  4711 Killed                  sleep 100`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..interp.control import ExitShell
from . import builtin
from .bopts import parse_builtin, usage
from .core import _SIGNALS, signal_list, signal_number

if TYPE_CHECKING:
    from ..interp.runtime import Job
    from ..interp.shell import Shell

# strsignal() wording, by signal number (what bash prints for a job that died of it)
_DESCRIPTIONS = {
    1: "Hangup", 2: "Interrupt", 3: "Quit", 4: "Illegal instruction", 5: "Trace/breakpoint trap",
    6: "Aborted", 7: "Bus error", 8: "Floating point exception", 9: "Killed", 10: "User defined signal 1",
    11: "Segmentation fault", 12: "User defined signal 2", 13: "Broken pipe", 14: "Alarm clock",
    15: "Terminated", 16: "Stack fault", 24: "CPU time limit exceeded", 25: "File size limit exceeded",
    26: "Virtual timer expired", 27: "Profiling timer expired", 29: "I/O possible", 30: "Power failure",
    31: "Bad system call",
}
_IGNORED_BY_JOBS = frozenset({0, 2, 3, 17, 18, 19, 20, 21, 22, 23, 28})  # no effect on a background job
_QUIET = frozenset({2, 13, 15})  # deaths bash does not report


def describe_signal(sig: int) -> str:
    if sig in _DESCRIPTIONS:
        return _DESCRIPTIONS[sig]
    if 34 <= sig <= 64:
        return f"Real-time signal {sig - 34}"
    return f"Unknown signal {sig}"


def find_job(sh: Shell, spec: str) -> Job | None:
    """The job a `%` spec names: %N, %%, %+, %- , %PREFIX, %?TEXT (None when there is none)."""
    jobs = sh.rt.jobs
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
    return hits[-1] if hits else None


def _job_by_pid(sh: Shell, pid: int) -> Job | None:
    return next((j for j in sh.rt.jobs.values() if j.pid == pid), None)


def notify(sh: Shell, job: Job) -> None:
    """Report a job that died of a signal bash reports, once."""
    if job.signal and job.signal not in _QUIET and not job.reported:
        sh.write_err(f"{sh.err_prefix()}{job.pid:5d} {describe_signal(job.signal):<24}{job.command}\n")
    job.reported = True


def notify_dead_jobs(sh: Shell) -> None:
    for job in list(sh.rt.jobs.values()):
        if job.signal and not job.reported and job.done.is_set():
            notify(sh, job)


# ------------------------------------------------------------ kill


@builtin("kill")
def bi_kill(sh: Shell, argv: list[str]) -> int:
    args = argv[1:]
    if not args:
        usage(sh, "kill")
        return 2
    if args[0] in ("-l", "-L"):
        return _list_signals(sh, args[1:])
    sig = 15
    if args[0] in ("-s", "-n"):
        if len(args) < 2:
            sh.builtin_error("kill", f"{args[0]}: option requires an argument")
            return 1
        num = signal_number(args[1])
        if num is None:
            sh.builtin_error("kill", f"{args[1]}: invalid signal specification")
            return 1
        sig, args = num, args[2:]
    elif args[0].startswith("-") and len(args[0]) > 1 and args[0] != "--":  # -SIGNAME or -NUMBER
        num = signal_number(args[0][1:])
        if num is None:
            sh.builtin_error("kill", f"{args[0][1:]}: invalid signal specification")
            return 1
        sig, args = num, args[1:]
    if args and args[0] == "--":
        args = args[1:]
    if not args:
        usage(sh, "kill")
        return 2
    status = 0
    for target in args:
        if not _signal_target(sh, target, sig):
            status = 1
    return status


def _signal_target(sh: Shell, target: str, sig: int) -> bool:
    if target.startswith("%"):
        job = find_job(sh, target)
        if job is None:
            sh.builtin_error("kill", f"{target}: no such job")
            return False
    elif target.lstrip("-").isdigit():
        pid = int(target)
        job = _job_by_pid(sh, pid)
        if job is None and pid in (sh.rt.identity.pid, sh.state.bashpid):
            _signal_self(sh, sig)
            return True
        if job is None or job.done.is_set():
            sh.builtin_error("kill", f"({target}) - No such process")
            return False
    else:
        sh.builtin_error("kill", f"{target}: arguments must be process or job IDs")
        return False
    if job.done.is_set():
        sh.builtin_error("kill", f"({job.pid}) - No such process")
        return False
    if sig not in _IGNORED_BY_JOBS and job.budget is not None:
        job.budget.signal = sig
    return True


def _signal_self(sh: Shell, sig: int) -> None:
    """A signal to the shell itself: run its trap, ignore it, or die of it."""
    if sig == 0:
        return
    name = _SIGNALS[sig] if 0 < sig < len(_SIGNALS) else ""
    handler = sh.state.traps.get(name)
    if handler is not None:
        if handler:
            sh.run_trap_text(handler, name)
        return
    if name in ("CHLD", "URG", "WINCH", "CONT"):
        return
    raise ExitShell(128 + sig)


def _list_signals(sh: Shell, args: list[str]) -> int:
    if not args:
        sh.out(signal_list())
        return 0
    for a in args:
        if a.isdigit():
            n = int(a)
            n = n - 128 if n > 128 else n
            if 0 < n < len(_SIGNALS):
                sh.out(_SIGNALS[n] + "\n")
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
    opts = parse_builtin(sh, argv, "fnp:")
    if opts is None:
        return 2
    var = opts.value("p")
    if opts.has("n"):
        return _wait_any(sh, opts.args, var)
    if not opts.args:
        for job in sorted(sh.rt.jobs.values(), key=lambda j: j.jid):
            _block(sh, job)
            notify(sh, job)
        sh.rt.jobs.clear()
        return 0
    status = 0
    for spec in opts.args:
        found = _resolve(sh, spec)
        if isinstance(found, int):
            status = found
            continue
        job = found
        _block(sh, job)
        notify(sh, job)
        status = job.status or 0
        sh.rt.jobs.pop(job.jid, None)
        if var is not None:
            sh.set_var(var, str(job.pid))
    return status


def _resolve(sh: Shell, spec: str) -> Job | int:
    """The job `spec` names, or the status of the error reported for it."""
    if spec.startswith("%"):
        job = find_job(sh, spec)
        if job is None:
            sh.builtin_error("wait", f"{spec}: no such job")
            return 127
        return job
    if not spec.isdigit():
        sh.builtin_error("wait", f"`{spec}': not a pid or valid job spec")
        return 1
    job = _job_by_pid(sh, int(spec))
    if job is None:
        sh.builtin_error("wait", f"pid {spec} is not a child of this shell")
        return 127
    return job


def _block(sh: Shell, job: Job) -> None:
    budget = sh.rt.budget
    while not job.done.is_set():
        job.done.wait(0.05)
        budget.check_time()


def _wait_any(sh: Shell, specs: list[str], var: str | None) -> int:
    """`wait -n`: the next of these jobs (or of all) to finish; 127 when there is none."""
    if specs:
        chosen = [j for j in (_resolve(sh, s) for s in specs) if not isinstance(j, int)]
    else:
        chosen = [j for j in sh.rt.jobs.values() if not j.reported]
    if not chosen:
        return 127
    budget = sh.rt.budget
    while True:
        for job in chosen:
            if job.done.is_set():
                notify(sh, job)
                sh.rt.jobs.pop(job.jid, None)
                if var is not None:
                    sh.set_var(var, str(job.pid))
                return job.status or 0
        chosen[0].done.wait(0.02)
        budget.check_time()


# ------------------------------------------------------------ jobs, disown, bg, fg


@builtin("jobs")
def bi_jobs(sh: Shell, argv: list[str]) -> int:
    opts = parse_builtin(sh, argv, "lnprsx")
    if opts is None:
        return 2
    jobs = sh.rt.jobs
    ids = sorted(jobs)
    if opts.args:
        picked = []
        for spec in opts.args:
            job = find_job(sh, spec if spec.startswith("%") else "%" + spec)
            if job is None:
                sh.builtin_error("jobs", f"{spec}: no such job")
                return 1
            picked.append(job.jid)
        ids = picked
    for jid in ids:
        job = jobs[jid]
        done = job.done.is_set()
        if (opts.has("r") and done) or (opts.has("s")):
            continue
        if opts.has("p"):
            sh.out(f"{job.pid}\n")
            continue
        order = sorted(jobs)
        mark = "+" if jid == order[-1] else ("-" if len(order) > 1 and jid == order[-2] else " ")
        if job.signal:
            state = describe_signal(job.signal)
        elif done:
            state = f"Exit {job.status}" if job.status else "Done"
        else:
            state = "Running"
        pid = f"{job.pid} " if opts.has("l") else ""
        sh.out(f"[{jid}]{mark}  {pid}{state:<24}{job.command}{'' if done else ' &'}\n")
        if done:
            job.reported = True
    return 0


@builtin("disown")
def bi_disown(sh: Shell, argv: list[str]) -> int:
    opts = parse_builtin(sh, argv, "ahr")
    if opts is None:
        return 2
    jobs = sh.rt.jobs
    if opts.has("a") or (not opts.args and opts.has("r")):
        for jid in list(jobs):
            if not (opts.has("r") and jobs[jid].done.is_set()):
                jobs.pop(jid)
        return 0
    if not opts.args:
        if not jobs:
            sh.builtin_error("disown", "current: no such job")
            return 1
        jobs.pop(max(jobs))
        return 0
    status = 0
    for spec in opts.args:
        job = find_job(sh, spec) if spec.startswith("%") else (
            _job_by_pid(sh, int(spec)) if spec.isdigit() else None)
        if job is None:
            sh.builtin_error("disown", f"{spec}: no such job")
            status = 1
            continue
        jobs.pop(job.jid, None)
    return status


@builtin("bg", "fg")
def bi_fg(sh: Shell, argv: list[str]) -> int:
    sh.builtin_error(argv[0], "no job control")
    return 1
