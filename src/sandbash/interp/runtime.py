"""What all the (sub)shells of one run share: filesystem, budget, clock,
identity, background jobs and the hooks for policy and audit."""

from __future__ import annotations

import _thread  # (threading's locks are _thread's: threading.py itself is ~0.8 ms of a start-up)
import time
from _weakref import ref
from collections.abc import Callable

from ..commands.registry import BUILTIN_TABLE, CommandTable
from ..identity import Identity as Identity  # (re-exported: the API takes one)
from ..limits import Budget, JobBudget, LimitExceeded, LimitKind, Limits
from ..stdio.streams import Stream
from ..vfs.facade import Vfs
from .framestack import with_room
from .gates import CommandGate as CommandGate  # (re-exported: the API takes one)
from .gates import CommandGates

TYPE_CHECKING = False
if TYPE_CHECKING:
    import threading
    from collections.abc import Mapping
    from typing import Protocol

    from ..audit import Recorder
    from ..net.config import NetworkConfig
    from ..policy import Gate
    from .aliasrun import ParseCache
    from .shell import Shell
    from .state import ShellState

    class Spawner(Protocol):
        """Box mode's host programs (sandbash.box.runner.HostPrograms)."""

        def finds(self, name: str) -> bool:
            """Whether `name` is a host program (run() would not answer None)."""

        def run(self, sh: Shell, argv: list[str], env: Mapping[str, str]) -> int | None:
            """Run argv: its status, or None when no host program has that name."""

    from dataclasses import dataclass, field
else:  # the same classes, built without importing dataclasses (leanclass.py)
    from ..leanclass import dataclass, field


def _new_event() -> threading.Event:
    """A job's `done` event (threading is imported by the first job, not by every start-up)."""
    import threading

    return threading.Event()


@dataclass
class Job:
    jid: int
    pid: int
    thread: threading.Thread | None
    command: str
    status: int | None = None
    done: threading.Event = field(default_factory=_new_event)
    reported: bool = False
    # the state (RUNNING or DONE) the shell last told about: `jobs -n` lists a job whose state
    # changed since; a finished job once told about is gone from `jobs` (bash has deleted it)
    seen: str = ""
    # what `kill` acts on (the job's own budget) and the signal that ended the job, if one did
    budget: JobBudget | None = None
    signal: int = 0
    # the shell whose `&` started it: a `$( )` or pipeline stage sharing its parent's table
    # tells of its own jobs, never of its parent's (those are a forked child's copies in bash)
    starter: object = None
    # a copy of another shell's job in a `$( )`'s or simple pipeline stage's own table (bash's
    # forked child): its state is what it was at the fork, it is no child of this shell to wait for
    foreign: bool = False
    # the descriptors of the job's shell (its state's own table, changed in place by redirections):
    # a `$( )` waits for the jobs still holding its capture, as bash reads its pipe until EOF
    fds: dict[int, Stream] | None = None
    # the job's own shell (None for a copy): `kill` reads its traps
    shell: object = None

    def wait(self, budget: Budget, step: float = 0.05, until: float | None = None) -> bool:
        """Block until the job is done (True) or the monotonic time `until` has come (False),
        checking the waiter's `budget` (deadline, cancellation) at least every `step` seconds."""
        done = self.done
        while not done.is_set():
            if until is not None:
                left = until - time.monotonic()
                if left <= 0:
                    return False
                step = min(step, left)
            done.wait(step)
            budget.check_time()
        return True


class Threads:
    """The threads of a run (shared by every copy of its Runtime): a bound on how
    many run at once, and a way to wait for them when the run ends.

    Slots are taken and given back with list.pop/append, atomic under the GIL:
    a lock here convoys badly when a fork bomb has every thread spawning."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.free = list(range(limit))

    @property
    def live(self) -> int:
        return self.limit - len(self.free)

    def spawn(self, target: Callable[[], None]) -> threading.Thread:
        try:
            slot = self.free.pop()
        except IndexError:
            raise LimitExceeded(LimitKind.MAX_THREADS, self.limit) from None

        def run() -> None:
            try:
                with_room(target)  # (a thread's own frame stack: see framestack)
            finally:
                self.free.append(slot)

        import threading  # (imported by the first thread a run starts)

        thread = threading.Thread(target=run, daemon=True)
        try:
            thread.start()
        except RuntimeError:  # the process cannot start more threads
            self.free.append(slot)
            raise LimitExceeded(LimitKind.MAX_THREADS, self.limit) from None
        return thread

    def wait_idle(self, seconds: float) -> bool:
        """Wait until no thread of the run is left (True), at most `seconds`."""
        end = time.monotonic() + seconds
        while len(self.free) < self.limit:
            if time.monotonic() > end:
                return False
            time.sleep(0.005)
        return True


class Runtime:
    def __init__(
        self,
        vfs: Vfs,
        limits: Limits,
        budget: Budget,
        *,
        identity: Identity | None = None,
        clock: Callable[[], float] = time.time,
        command_gate: CommandGate | None = None,
        network: NetworkConfig | None = None,
    ) -> None:
        # this run's binding of the shared filesystem (Vfs.bind): its gate and deadline check are
        # the run's own, set by Bash for each run (T-TEN-1)
        self.vfs = vfs
        self.limits = limits
        self.budget = budget
        self.identity = identity or Identity()
        self.clock = clock
        self.started = clock()
        self.started_mono = time.monotonic()
        self.command_gate = command_gate
        # policy and audit (set per run by Bash): the run's Gate (bound to its recorder) decides
        # every command (executor.dispatch) and every path (through self.vfs.gate); the recorder
        # gets the events. Never a Gate or Recorder another run uses.
        self._policy_gate: Gate | None = None
        self._audit: Recorder | None = None
        self._audit_commands = False  # command start/end events (an Audit or a policy is in use)
        # the three composed, what the executor asks (bind_run); None: nothing to ask
        self.gates = CommandGates.compose(None, command_gate, None)
        # the NetworkConfig (sandbash.net) curl and wget use; None: no network
        self.network = network
        # the HostAccess of a sandbox in host mode (sandbash.host); None: no host commands
        self.host: object | None = None
        # box mode (sandbash.box): runs a name that is no builtin, function or command as a host
        # program from a [tool.<name>] table; None (the default): no host program ever starts
        self.spawner: Spawner | None = None
        # the commands this sandbox runs: the built-ins and its Bash's custom commands
        self.commands: CommandTable = BUILTIN_TABLE
        # substitutions read again with the aliases of when they run (aliasrun.py; made by the first)
        self.alias_parses: ParseCache | None = None
        self.jobs: dict[int, Job] = {}
        # a simple pipeline stage's copy of its parent's table, kept for a `jobs` the stage runs
        # (jobs.stage_table)
        self.stage_copy = False
        self.reaped: dict[int, int] = {}  # pid -> status of jobs gone from the table (`wait PID`)
        # a finished job was told about: bash's loops delete it after their next step (the body
        # of `for` and `select`, the test of `while` and `for ((;;))`: execute_cmd.c's REAP), so
        # the loops call jobs.cleanup_dead_jobs while this is set
        self.reap = False
        # every job of the run still running, by pid, whichever shell's table it is in (shared
        # by a subshell's copy): what `kill PID` reaches and the run's end waits for
        self.live: dict[int, Job] = {}
        self.table_owner: object = None  # the subshell whose own table `jobs` is (None: the top shell's)
        self.threads = Threads(limits.max_threads)
        # the last pid given out, in a list shared by every copy (with_budget, a subshell's own
        # job table): pids stay unique across the run
        self._pid = [self.identity.pid + 100]
        self.lock = _thread.allocate_lock()
        # signals a shell of the run sent another (a job's `kill -USR1 $$`, SIGCHLD), by the
        # target's pid as (trap name, number): the target acts on them at its next command
        self.signals: dict[int, list[tuple[str, int]]] = {}
        # the states of the run's shells (weakly: an ended shell's goes), shared by every copy: the
        # target of a signal is found among them by its pid, to mark its RunMode (send_signal)
        self.states: list[ref[ShellState]] = []
        self._states_cap = [256]  # (shared too) past it, watch drops the ended shells' entries
        self.top_stdout: Stream | None = None
        self.top_stderr: Stream | None = None

    def bind_run(self, policy_gate: Gate | None, audit: Recorder | None, audit_commands: bool) -> None:
        """This run's policy gate and audit recorder (`audit_commands`: command start/end events
        go to it), composed once with the embedder's command gate into `gates`."""
        self._policy_gate = policy_gate
        self._audit = audit
        self._audit_commands = audit_commands
        self.gates = gates = CommandGates.compose(
            policy_gate, self.command_gate, audit if audit_commands else None
        )
        # every shell of the run is told (RunMode.gates). Bash binds a run's hooks before it starts:
        # the shells left then are the top one and jobs of earlier runs (their runtime's copy holds
        # the gates of the same Bash, present or not as these are)
        with self.lock:
            for state_ref in self.states:
                st = state_ref()
                if st is not None:
                    st.run_mode.set_gates(gates is not None)

    # each of the three set alone (as Bash does per run) composes the gates again
    @property
    def policy_gate(self) -> Gate | None:
        return self._policy_gate

    @policy_gate.setter
    def policy_gate(self, gate: Gate | None) -> None:
        self.bind_run(gate, self._audit, self._audit_commands)

    @property
    def audit(self) -> Recorder | None:
        return self._audit

    @audit.setter
    def audit(self, recorder: Recorder | None) -> None:
        self.bind_run(self._policy_gate, recorder, self._audit_commands)

    @property
    def audit_commands(self) -> bool:
        return self._audit_commands

    @audit_commands.setter
    def audit_commands(self, on: bool) -> None:
        self.bind_run(self._policy_gate, self._audit, on)

    def with_budget(self, budget: Budget) -> Runtime:
        """The same runtime with another budget (a sub-command's own deadline)."""
        import copy

        new = copy.copy(self)
        new.budget = budget
        return new

    def spawn(self, target: Callable[[], None]) -> threading.Thread:
        """Start a thread of this run (LimitExceeded past max_threads; Cancelled once the run is over)."""
        # check_time, not `stopped`: a job's or a sub-command's budget is stopped through its parent
        self.budget.check_time()
        try:
            return self.threads.spawn(target)
        except LimitExceeded as e:
            # the run ends with it at every thread's next check: the thread here may be a pipeline
            # stage, whose error reaches the main thread only through joins on stages still busy
            # starting more (`f(){ f | f; }; f` ran on until the deadline under load)
            self.budget.fail(e)
            raise

    def end_run(self, grace: float = 2.0) -> None:
        """The run is over: whatever it left running stops at its next check."""
        self.budget.stop()
        self.threads.wait_idle(grace)

    def send_signal(self, pid: int, name: str, number: int) -> None:
        """Queue signal `number` (trap name `name`) for the shell whose pid is `pid`, and mark its
        RunMode: its next command runs the general way, which acts on it (jobs.take_signals)."""
        top = self.identity.pid
        with self.lock:
            self.signals.setdefault(pid, []).append((name, number))
            for state_ref in self.states:
                st = state_ref()
                if st is not None and (st.bashpid or top) == pid:
                    st.run_mode.mark()

    def watch(self, st: ShellState) -> None:
        """A shell of this run runs over `st` (Shell._setup): a signal queued for its pid from now
        on marks its RunMode (send_signal); one queued already does now. The entries of ended
        shells go: the last ones at once (a loop of `$( )` forks one state per step, each ended
        before the next), the others when their number reaches twice what was left last time."""
        states = self.states
        with self.lock:
            while states and states[-1]() is None:
                states.pop()
            cap = self._states_cap
            if len(states) >= cap[0]:
                states[:] = [r for r in states if r() is not None]
                cap[0] = max(256, 2 * len(states))
            states.append(ref(st))
            if self.signals.get(st.bashpid or self.identity.pid):
                st.run_mode.mark()

    def new_pid(self) -> int:
        with self.lock:
            self._pid[0] += 1
            return self._pid[0]

    def last_pid(self) -> int:
        """The pid new_pid gave last (in any shell of the run)."""
        return self._pid[0]
