"""Run limits and the budget that enforces them.

`Limits` names every bound (the BashBox seed's set plus a work budget for
command inner loops). A `Budget` is created per run and charged at named
points: every command, loop iteration, pipe wait and command inner loop calls
`checkpoint()`, which also enforces the wall-clock deadline and cancellation.
Going over a limit raises `LimitExceeded`, which scripts cannot catch; the
API turns it into `ExecutionLimitError`.
"""

from __future__ import annotations

import _thread  # (threading's locks are _thread's: threading.py itself is ~0.8 ms of a start-up)
import time

from .leanclass import Declared, field_names, str_enum

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass
    from enum import StrEnum
else:  # the same classes, built without importing dataclasses (leanclass.py)
    from .leanclass import dataclass

    StrEnum = object  # (str_enum makes the class a StrEnum)


@dataclass(frozen=True, slots=True)
class Limits(metaclass=Declared):
    max_call_depth: int = 100
    # the 30 s deadline bounds loops; these counts only stop runaway ones early
    max_command_count: int = 10_000_000
    max_loop_iterations: int = 10_000_000
    max_glob_operations: int = 100_000
    max_output_size: int = 10 * 1024 * 1024
    max_string_length: int = 10 * 1024 * 1024
    max_substitution_depth: int = 50
    max_brace_expansion_results: int = 100_000
    # a bound on counts; the memory elements take is charged to max_memory (~100 bytes each)
    max_array_elements: int = 1_000_000
    max_file_descriptors: int = 1024
    max_sed_iterations: int = 100_000
    max_input_size: int = 1024 * 1024
    max_tokens: int = 100_000
    max_ast_depth: int = 500
    max_heredoc_size: int = 1024 * 1024
    max_pipeline_depth: int = 100
    # threads running at once (pipeline stages, background jobs, process substitutions)
    max_threads: int = 128
    max_filesystem_bytes: int = 64 * 1024 * 1024
    max_filesystem_files: int = 10_000
    # wall clock for one run, in seconds
    timeout: float = 30.0
    # units of work for command inner loops (awk, sed, jq, sort, diff, find)
    max_work: int = 200_000_000
    # bytes a run holds at once (variables, pipe buffers, captures, command structures);
    # charged before allocating through Budget.charge_memory, released when freed
    max_memory: int = 256 * 1024 * 1024
    # bytes a Session keeps between runs (variables, functions, aliases, hash and completion
    # tables), checked when a run ends, however it ends
    max_session_memory: int = 128 * 1024 * 1024
    # words a program gets and their total length (bash's ARG_MAX: what the shell would exec, a
    # command or script; builtins, functions and for-lists get shell_words(): README, Limits)
    max_arguments: int = 131_072
    max_argument_bytes: int = 10 * 1024 * 1024
    # text all expansions of one run produce together (words, assignments, redirections,
    # here-documents): a bound on work that ends a run before its deadline would. Every expansion
    # counts its whole text, so `s="$s$i,"` in a loop counts the string again each time (10,000
    # steps make 49 KB and count 240 MB; bash takes 0.9 s, 30,000 steps 11 s): 16 GiB lets a loop
    # bash finishes in its deadline finish here, and `while :; do y="$x$x"; done` still ends in
    # seconds (each big expansion reads the clock as well: BIG_EXPANSION)
    max_expansion_bytes: int = 16 * 1024 * 1024 * 1024

    def __post_init__(self) -> None:
        for name in field_names(self):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v or v < 0:
                raise ValueError(f"limit {name} must be a non-negative number, not {v!r}")

    @classmethod
    def profile(cls, name: str) -> Limits:
        kw = _PROFILES.get(name)
        if kw is None:
            raise ValueError(f"unknown limits profile: {name!r} ({', '.join(_PROFILES)})")
        return cls(**kw)  # type: ignore[arg-type]

    def shell_words(self) -> tuple[LimitKind, int, LimitKind, int]:
        """The bounds on the words of one builtin, function call or for-list (kind and count, kind
        and characters), checked as they are expanded. bash's ARG_MAX binds only what it execs
        (Executor.run_external checks max_arguments and max_argument_bytes there), so the shell's
        own words may be as many as an array holds and a program's more (`printf '%s\\n' "${a[@]}"`,
        `f -x "${a[@]}"`) and as long as half the run's memory (the other half: the values they
        were made from); the run's deadline is read as they are made (Budget.charge_expansion)."""
        words, kind = self.max_arguments + self.max_array_elements, LimitKind.MAX_ARRAY_ELEMENTS
        chars, ckind = self.max_argument_bytes, LimitKind.MAX_ARGUMENT_BYTES
        if self.max_memory // 2 > chars:
            chars, ckind = self.max_memory // 2, LimitKind.MAX_MEMORY
        return kind, words, ckind, chars

    def over(self, kind: LimitKind, detail: str = "") -> LimitExceeded:
        """The exception for going over `kind`, with its bound from these limits:
        `raise limits.over(LimitKind.MAX_MEMORY)`."""
        return LimitExceeded(kind, getattr(self, kind.value), detail)

    def with_overrides(self, **kw: float) -> Limits:
        bad = set(kw).difference(field_names(self))
        if bad:
            raise ValueError(f"unknown limit(s): {', '.join(sorted(bad))}")
        return Limits(**{n: kw.get(n, getattr(self, n)) for n in field_names(self)})  # type: ignore[arg-type]


_PROFILES: dict[str, dict[str, float]] = {
    "default": {},
    "hardened": dict(
        max_call_depth=50,
        max_command_count=2_000,
        max_loop_iterations=2_000,
        max_glob_operations=20_000,
        max_output_size=1024 * 1024,
        max_string_length=1024 * 1024,
        max_substitution_depth=20,
        max_brace_expansion_results=2_000,
        max_array_elements=20_000,
        max_file_descriptors=64,
        max_sed_iterations=20_000,
        max_input_size=256 * 1024,
        max_tokens=20_000,
        max_ast_depth=200,
        max_heredoc_size=256 * 1024,
        max_pipeline_depth=20,
        max_threads=32,
        max_filesystem_bytes=16 * 1024 * 1024,
        max_filesystem_files=2_000,
        timeout=10.0,
        max_work=20_000_000,
        max_memory=64 * 1024 * 1024,
        max_session_memory=32 * 1024 * 1024,
        max_arguments=4_096,
        max_argument_bytes=1024 * 1024,
        max_expansion_bytes=16 * 1024 * 1024,
    ),
    "generous": dict(
        max_call_depth=1_000,
        max_command_count=100_000_000,
        max_loop_iterations=100_000_000,
        max_glob_operations=10_000_000,
        max_output_size=1024 * 1024 * 1024,
        max_string_length=256 * 1024 * 1024,
        max_substitution_depth=200,
        max_brace_expansion_results=10_000_000,
        max_array_elements=100_000_000,
        max_file_descriptors=4096,
        max_sed_iterations=1_000_000_000,
        max_input_size=256 * 1024 * 1024,
        max_tokens=100_000_000,
        max_ast_depth=2_000,
        max_heredoc_size=256 * 1024 * 1024,
        max_pipeline_depth=1_000,
        max_threads=1_024,
        max_filesystem_bytes=8 * 1024 * 1024 * 1024,
        max_filesystem_files=10_000_000,
        timeout=3_600.0,
        max_work=10**13,
        max_memory=2 * 1024 * 1024 * 1024,
        max_session_memory=1024 * 1024 * 1024,
        max_arguments=1_000_000,
        max_argument_bytes=256 * 1024 * 1024,
        max_expansion_bytes=1024 * 1024 * 1024 * 1024,
    ),
    # the command and loop counts of BashBox (the seed's defaults), for scripts written against it
    "bashbox": dict(max_command_count=10_000, max_loop_iterations=10_000),
}


@str_enum
class LimitKind(StrEnum):
    """The name of every limit: a `Limits` field, what `LimitExceeded.limit` and
    `ExecutionLimitError.limit` say, the NAME of `--limit NAME=N`. A str enum, so it reads,
    compares and formats as the plain name."""

    TIMEOUT = "timeout"
    MAX_COMMAND_COUNT = "max_command_count"
    MAX_LOOP_ITERATIONS = "max_loop_iterations"
    MAX_CALL_DEPTH = "max_call_depth"
    MAX_SUBSTITUTION_DEPTH = "max_substitution_depth"
    MAX_PIPELINE_DEPTH = "max_pipeline_depth"
    MAX_THREADS = "max_threads"
    MAX_WORK = "max_work"
    MAX_MEMORY = "max_memory"
    MAX_SESSION_MEMORY = "max_session_memory"
    MAX_STRING_LENGTH = "max_string_length"
    MAX_ARRAY_ELEMENTS = "max_array_elements"
    MAX_ARGUMENTS = "max_arguments"
    MAX_ARGUMENT_BYTES = "max_argument_bytes"
    MAX_EXPANSION_BYTES = "max_expansion_bytes"
    MAX_BRACE_EXPANSION_RESULTS = "max_brace_expansion_results"
    MAX_GLOB_OPERATIONS = "max_glob_operations"
    MAX_HEREDOC_SIZE = "max_heredoc_size"
    MAX_FILE_DESCRIPTORS = "max_file_descriptors"
    MAX_OUTPUT_SIZE = "max_output_size"
    MAX_SED_ITERATIONS = "max_sed_iterations"
    MAX_INPUT_SIZE = "max_input_size"
    MAX_TOKENS = "max_tokens"
    MAX_AST_DEPTH = "max_ast_depth"
    MAX_FILESYSTEM_BYTES = "max_filesystem_bytes"
    MAX_FILESYSTEM_FILES = "max_filesystem_files"


class LimitDoc(tuple[LimitKind, str, str]):
    """One limit: its name, what it caps and how going over it is reported. A plain tuple subclass
    (NamedTuple compiled each field's annotation and eval'd a __new__ at import: ~10 M instructions,
    4% of a start-up)."""

    __slots__ = ()

    def __new__(cls, name: LimitKind, caps: str, reported: str) -> LimitDoc:
        return tuple.__new__(cls, (name, caps, reported))

    def __repr__(self) -> str:
        return f"LimitDoc(name={self[0]!r}, caps={self[1]!r}, reported={self[2]!r})"

    @property
    def name(self) -> LimitKind:
        return self[0]

    @property
    def caps(self) -> str:
        return self[1]

    @property
    def reported(self) -> str:
        return self[2]


_STOPS = "ends the run: ExecutionLimitError"

# characters of one expansion past which the clock is read at once (Budget.charge_expansion):
# expanding 64 KiB costs far more than reading the clock
BIG_EXPANSION = 1 << 16

LIMIT_KINDS: tuple[LimitDoc, ...] = (
    LimitDoc(LimitKind.TIMEOUT, "wall-clock seconds of one run (0: none)", _STOPS + ", status 124"),
    LimitDoc(LimitKind.MAX_COMMAND_COUNT, "simple commands one run executes", _STOPS),
    LimitDoc(LimitKind.MAX_LOOP_ITERATIONS, "iterations of one loop", _STOPS),
    LimitDoc(LimitKind.MAX_CALL_DEPTH, "nested function calls", _STOPS),
    LimitDoc(LimitKind.MAX_SUBSTITUTION_DEPTH, "nested `$(…)`, `<(…)`, `eval` and `source`", _STOPS),
    LimitDoc(LimitKind.MAX_PIPELINE_DEPTH, "commands in one pipeline", _STOPS),
    LimitDoc(
        LimitKind.MAX_THREADS, "pipeline stages, background jobs and process substitutions at once", _STOPS
    ),
    LimitDoc(
        LimitKind.MAX_WORK, "units of work in command inner loops (awk, sed, jq, sort, diff, find)", _STOPS
    ),
    LimitDoc(
        LimitKind.MAX_MEMORY,
        "bytes a run holds at once: variables, arrays, saved arguments, pipe "
        "buffers, captures, command structures, decoded data",
        _STOPS,
    ),
    LimitDoc(
        LimitKind.MAX_SESSION_MEMORY,
        "bytes a Session keeps between runs (variables, functions, aliases, hash and completion tables)",
        "checked when a Session run ends (on a limit too): ExecutionLimitError",
    ),
    LimitDoc(LimitKind.MAX_STRING_LENGTH, "length of one value: variable, word, captured output", _STOPS),
    LimitDoc(LimitKind.MAX_ARRAY_ELEMENTS, "elements of one array, words of one expansion", _STOPS),
    LimitDoc(LimitKind.MAX_ARGUMENTS, "words one program (a command or script) gets", _STOPS),
    LimitDoc(LimitKind.MAX_ARGUMENT_BYTES, "total length of the words one program gets", _STOPS),
    LimitDoc(
        LimitKind.MAX_EXPANSION_BYTES,
        "text all expansions of one run produce (words, assignments, redirections, here-documents)",
        _STOPS,
    ),
    LimitDoc(LimitKind.MAX_BRACE_EXPANSION_RESULTS, "words one brace expansion makes", _STOPS),
    LimitDoc(LimitKind.MAX_GLOB_OPERATIONS, "directory entries globbing examines in one run", _STOPS),
    LimitDoc(LimitKind.MAX_HEREDOC_SIZE, "bytes of one here-document", _STOPS),
    LimitDoc(
        LimitKind.MAX_FILE_DESCRIPTORS,
        "highest file descriptor number a script may open (what `ulimit -n` shows)",
        "a redirection to a number past it fails (`N: Bad file descriptor`, status 1); "
        "a `{name}>` allocation past it ends the run: ExecutionLimitError",
    ),
    LimitDoc(LimitKind.MAX_OUTPUT_SIZE, "bytes of stdout plus stderr of one run, and of one capture", _STOPS),
    LimitDoc(LimitKind.MAX_SED_ITERATIONS, "sed's branch loops over one input", _STOPS),
    LimitDoc(LimitKind.MAX_INPUT_SIZE, "bytes of script text", _STOPS + " before anything runs"),
    LimitDoc(LimitKind.MAX_TOKENS, "tokens of script text", _STOPS + " before anything runs"),
    LimitDoc(LimitKind.MAX_AST_DEPTH, "nesting of the parsed script", _STOPS + " before anything runs"),
    LimitDoc(
        LimitKind.MAX_FILESYSTEM_BYTES,
        "bytes stored in the in-memory filesystem",
        "the write fails: `No space left on device`",
    ),
    LimitDoc(
        LimitKind.MAX_FILESYSTEM_FILES,
        "files in the in-memory filesystem",
        "the write fails: `No space left on device`",
    ),
)


def _show(name: str, value: float) -> str:
    if name == "timeout":
        return f"{value:g} s"
    if (
        isinstance(value, int)
        and value >= 1024
        and (name.endswith(("_size", "_bytes", "_length")) or name.endswith("memory"))
    ):
        for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
            if value % (1 << shift) == 0:
                return f"{value >> shift} {unit}"
    return f"{value:,}"


def limits_table() -> str:
    """The README's table of limits: name, value in each profile, what it caps, how it is reported."""
    names = list(_PROFILES)
    profiles = {n: Limits.profile(n) for n in names}
    rows = ["| limit | " + " | ".join(names) + " | caps | when exceeded |", "|---" * (len(names) + 3) + "|"]
    for kind in LIMIT_KINDS:
        values = " | ".join(_show(kind.name, getattr(profiles[n], kind.name)) for n in names)
        rows.append(f"| `{kind.name}` | {values} | {kind.caps} | {kind.reported} |")
    return "\n".join(rows) + "\n"


class LimitExceeded(BaseException):
    """A limit was hit; `kind` names it (`limit` is the same name as a plain str, for messages and the
    API), `value` is its configured bound. Every limit is raised through here: the kind must be one of
    LimitKind (an unknown name is a ValueError), so a message never names a knob that does not exist.
    `Limits.over(kind)` builds one with the bound read from the run's limits."""

    def __init__(self, limit: LimitKind, value: float, detail: str = "") -> None:
        kind = LimitKind(limit)  # checked at run time too: callers outside mypy pass strings
        super().__init__(kind.value)
        self.kind = kind
        self.limit: str = kind.value
        self.value = value
        self.detail = detail

    def message(self) -> str:
        value = int(self.value) if float(self.value).is_integer() else self.value
        shown = f"{value}s" if self.limit == "timeout" else f"{value}"
        return (
            f"sandbash limit exceeded: {self.limit} ({shown}); raise it with --limit {self.limit}=N "
            f"or Limits({self.limit}=N)"
        )


class Cancelled(BaseException):
    """The run was cancelled by the embedding program."""


class CancelToken:
    """Set from any thread to stop a run at its next checkpoint."""

    def __init__(self) -> None:
        self._cancelled = False  # (a flag read at checkpoints; nothing waits on it)

    def cancel(self) -> None:
        self._cancelled = True

    @property
    def cancelled(self) -> bool:
        return self._cancelled


class DeadlineExpired(BaseException):
    """A sub-command's own deadline (`timeout 5 cmd`) passed; the run goes on."""


class Budget:
    """Counters for one run. Cheap to charge; thread-safe enough (pipeline
    stages share it; a lost increment under a race is harmless).

    The inline contract: a path run once a line or once a command may save the call of
    checkpoint() or command() by writing out their fast half, always as this one idiom and
    nothing else (tests/unit/test_lint_rules.py, rule 3, holds every module outside this one to
    it): `b.work += 1` then at once `if b.work >= b.work_stop: b.work_slow()`, and `b.commands
    += 1` then `if b.commands >= b.command_stop: b.command_slow()`. The stops are the counts at
    which the slow halves must run (the next read of the clock, or the first unit past the
    limit), so the idiom keeps checkpoint()'s and command()'s guarantees at one compare a unit."""

    __slots__ = (
        "limits",
        "deadline",
        "cancel",
        "commands",
        "work",
        "output",
        "ticks",
        "started",
        "stopped",
        "memory",
        "memory_peak",
        "expanded",
        "expanded_read",
        "_mem_lock",
        "_released",
        "idle",
        "failure",
        "script_over",
        "command_stop",
        "work_stop",
    )

    def __init__(self, limits: Limits, cancel: CancelToken | None = None, clock: float | None = None) -> None:
        self.limits = limits
        now = time.monotonic() if clock is None else clock
        self.started = now
        self.deadline = now + limits.timeout if limits.timeout > 0 else float("inf")
        self.cancel = cancel
        self.commands = 0
        # the count of commands at which command_slow runs: the next read of the clock (every
        # 64 commands) or the first command past max_command_count, whichever comes first
        self.command_stop = min(64, limits.max_command_count + 1)
        self.work = 0
        # the `work` at which work_slow runs, for a unit charged inline (`work += 1`): 64 units
        # after the clock was last read for them or the first past max_work, whichever comes first
        self.work_stop = min(64, limits.max_work + 1)
        self.output = 0
        self.ticks = 0  # charges since the clock was last read (LoopFrame.check adds a loop's steps here too)
        self.stopped = False
        self.memory = 0
        self.memory_peak = 0
        self.expanded = 0
        self.expanded_read = 0  # `expanded` when the clock was last read for it
        # pipeline stages charge from their own threads; charges come in grains, so a lock is cheap
        self._mem_lock = _thread.allocate_lock()
        # releases that could not take the lock (see release_memory), applied by the next holder
        self._released: list[int] = []
        self.idle = 0  # threads of this budget blocked in sleep()
        self.failure: LimitExceeded | None = None
        self.script_over = False  # the main script has ended: only background jobs are left

    def stop(self) -> None:
        """The run is over: threads it left (background jobs) end at their next check."""
        self.stopped = True

    def fail(self, error: LimitExceeded) -> None:
        """A thread of the run that no one waits for (a background job) hit a limit, or any thread
        hit `max_threads`: the whole run ends with it at every thread's next check (a fork bomb
        must not end quietly). Once the script is over, a job left working is dropped whatever it
        hits, except runaway job creation (`max_threads`)."""
        if self.script_over and error.kind is not LimitKind.MAX_THREADS:
            return
        if self.failure is None:
            # a copy: the error itself gathers the frames it passes through (and the shells they
            # hold), which the run's budget would keep alive in a cycle until a full collection
            self.failure = LimitExceeded(error.kind, error.value, error.detail)

    def check_time(self) -> None:
        # a limit another thread already hit comes first: the run ended with it, however late
        # this thread gets to look (a thread starved of the GIL by a fork bomb, or stopped by a
        # collection, saw the deadline pass first and reported `timeout`)
        if self.failure is not None:
            raise LimitExceeded(self.failure.kind, self.failure.value, self.failure.detail)
        if time.monotonic() > self.deadline:
            raise self.limits.over(LimitKind.TIMEOUT)
        cancel = self.cancel
        if (cancel is not None and cancel.cancelled) or self.stopped:
            raise Cancelled()

    def sleep(self, seconds: float) -> None:
        """Block for `seconds` of real time in short slices, so the deadline, cancellation and
        signals stop it promptly. Counted as idle: the end of a run does not wait for sleepers."""
        end = time.monotonic() + seconds
        self._idle(1)
        try:
            while True:
                self.check_time()
                left = end - time.monotonic()
                if left <= 0:
                    return
                time.sleep(min(left, 0.05))
        finally:
            self._idle(-1)

    def _idle(self, delta: int) -> None:
        self.idle += delta

    def checkpoint(self, work: int = 1) -> None:
        """Charge `work` units; check the clock every so often."""
        self.work += work
        if self.work > self.limits.max_work:
            raise self.limits.over(LimitKind.MAX_WORK)
        self.ticks += 1
        if self.ticks >= 64 or work > 1000:
            self.ticks = 0
            self.check_time()

    def work_slow(self) -> None:
        """`work_stop` reached by a unit charged inline (a line read: `budget.work += 1`, then
        work_slow() once `work_stop` is reached, checkpoint()'s guarantees at a compare a line):
        past max_work the run ends; else read the clock."""
        work = self.work
        cap = self.limits.max_work
        if work > cap:
            raise self.limits.over(LimitKind.MAX_WORK)
        self.work_stop = min(work + 64, cap + 1)
        self.check_time()

    def command(self) -> None:
        """One more command. The compiled closures do this inline (`commands += 1`, then
        command_slow() once `command_stop` is reached): keep the two the same."""
        self.commands += 1
        if self.commands >= self.command_stop:
            self.command_slow()

    def command_slow(self) -> None:
        """`command_stop` reached: past max_command_count the run ends (at every command from then on);
        else 64 commands have run since the clock was last read for them: read it."""
        n = self.commands
        cap = self.limits.max_command_count
        if n > cap:
            raise self.limits.over(LimitKind.MAX_COMMAND_COUNT)
        self.command_stop = min(n + 64, cap + 1)
        self.check_time()

    def charge_output(self, n: int) -> None:
        self.output += n
        if self.output > self.limits.max_output_size:
            raise self.limits.over(LimitKind.MAX_OUTPUT_SIZE)

    def charge_memory(self, n: int) -> None:
        """Charge `n` bytes the run is about to hold; raises LimitExceeded("max_memory") when
        the run would hold more than `max_memory` (nothing stays charged then)."""
        with self._mem_lock:
            held = self.memory - self._take_released() + n
            if held > self.limits.max_memory:
                self.memory = max(0, held - n)
                raise self.limits.over(LimitKind.MAX_MEMORY)
            self.memory = held
            if held > self.memory_peak:
                self.memory_peak = held

    def release_memory(self, n: int) -> None:
        """Give back `n` bytes charged earlier. Finalizers call this (a dropped scope or stream
        gives its bytes back), and the collector can run one on a thread that holds the lock inside
        charge_memory: waiting there would deadlock that thread, so a release that cannot take the
        lock at once is queued for the next holder."""
        if not self._mem_lock.acquire(blocking=False):
            self._released.append(n)
            return
        try:
            self.memory = max(0, self.memory - n - self._take_released())
        finally:
            self._mem_lock.release()

    def _take_released(self) -> int:
        """The queued releases (under the lock; pop is atomic, so one queued meanwhile waits)."""
        queued = self._released
        total = 0
        while queued:
            total += queued.pop()
        return total

    def charge_expansion(self, n: int) -> None:
        """`n` characters of expanded text (words, assignments, redirections, here-documents)."""
        self.expanded += n
        if self.expanded > self.limits.max_expansion_bytes:
            raise self.limits.over(LimitKind.MAX_EXPANSION_BYTES)
        self._expansion_clock()

    def _expansion_clock(self) -> None:
        """Read the clock once BIG_EXPANSION more characters were expanded since it was last read
        for them (one big charge or many small ones): it is otherwise read every 64 commands or
        charges, and one step that expands a million-element array takes seconds
        (`while :; do b=("${a[@]}"); done` ran 30 s past a 12 s deadline)."""
        if self.expanded - self.expanded_read > BIG_EXPANSION:
            self.expanded_read = self.expanded
            self.check_time()

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def child(self, seconds: float) -> Budget:
        """A budget for one sub-command with its own, earlier deadline."""
        return SubBudget(self, seconds)


class SubBudget(Budget):
    """Charges go to the parent; passing this deadline raises DeadlineExpired
    (the parent's deadline still raises LimitExceeded)."""

    __slots__ = ("parent", "own_deadline")

    def __init__(self, parent: Budget, seconds: float) -> None:
        super().__init__(parent.limits, parent.cancel)
        self.parent = parent
        self.own_deadline = time.monotonic() + max(seconds, 0.0)
        self.deadline = min(parent.deadline, self.own_deadline)
        self.command_stop = 0  # (every command goes to command_slow: counted in the parent)
        self.work_stop = 0  # (every unit charged inline goes to work_slow: charged to the parent)

    def check_time(self) -> None:
        self.parent.check_time()
        if time.monotonic() > self.own_deadline:
            raise DeadlineExpired()

    def checkpoint(self, work: int = 1) -> None:
        self.parent.checkpoint(work)
        self.ticks += 1
        if self.ticks >= 64 or work > 1000:
            self.ticks = 0
            self.check_time()

    def work_slow(self) -> None:
        self.work -= 1  # (the unit charged inline belongs to the parent, with this deadline's check)
        self.checkpoint()

    def command(self) -> None:
        self.command_slow()

    def command_slow(self) -> None:
        self.parent.command()
        self.ticks += 1
        if self.ticks >= 64:
            self.ticks = 0
            self.check_time()

    def charge_output(self, n: int) -> None:
        self.parent.charge_output(n)

    def fail(self, error: LimitExceeded) -> None:
        self.parent.fail(error)

    def _idle(self, delta: int) -> None:
        self.idle += delta
        self.parent._idle(delta)

    def charge_memory(self, n: int) -> None:
        self.parent.charge_memory(n)

    def release_memory(self, n: int) -> None:
        self.parent.release_memory(n)

    def charge_expansion(self, n: int) -> None:
        self.parent.charge_expansion(n)
        # this budget's own deadline, by the same rule (the counter here serves only that: the
        # parent's is the run's)
        self.expanded += n
        self._expansion_clock()


class JobSignal(BaseException):
    """A background job was sent `signal` by `kill`: it ends with status 128 + signal."""

    def __init__(self, signal: int) -> None:
        super().__init__(signal)
        self.signal = signal


class JobBudget(SubBudget):
    """A background job's budget: charges and deadline are the run's; `kill` sets `signal`, which
    ends the job at its next check (a sleep wakes within 50 ms)."""

    __slots__ = ("signal",)

    def __init__(self, parent: Budget) -> None:
        super().__init__(parent, float("inf"))
        self.signal = 0

    def check_time(self) -> None:
        self.parent.check_time()
        if self.signal:
            raise JobSignal(self.signal)


class MemoryHold:
    """Bytes held by one structure (a command's table, a decoder's buffer): `charge(n)` before
    allocating, `release(n)` when freed, and everything still held is given back on `close()`
    (or when the `with` block ends, whatever way it ends)."""

    __slots__ = ("budget", "held")

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.held = 0

    def charge(self, n: int) -> None:
        self.budget.charge_memory(n)
        self.held += n

    def release(self, n: int) -> None:
        n = min(n, self.held)
        self.held -= n
        self.budget.release_memory(n)

    def set(self, n: int) -> None:
        """Hold exactly `n` bytes (charging or releasing the difference)."""
        if n > self.held:
            self.charge(n - self.held)
        elif n < self.held:
            self.release(self.held - n)

    def close(self) -> None:
        self.release(self.held)

    def __enter__(self) -> MemoryHold:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# Sub-command deadlines in force on each thread: waits that are not charged to the
# sub-command's own budget (a pipe made by the enclosing pipeline) still see them.
_THREAD = _thread._local()  # (threading.local itself)


def check_thread_deadline() -> None:
    """Raise DeadlineExpired if the innermost sub-command deadline of this thread passed."""
    subs: list[Budget] | None = getattr(_THREAD, "subs", None)
    if subs:
        subs[-1].check_time()


class thread_deadline:
    """Bind a sub-command's budget to the current thread while it runs."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget

    def __enter__(self) -> None:
        subs = getattr(_THREAD, "subs", None)
        if subs is None:
            subs = _THREAD.subs = []
        subs.append(self.budget)

    def __exit__(self, *exc: object) -> None:
        _THREAD.subs.pop()
