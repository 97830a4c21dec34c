"""Audit events: one structured record per run, per command and per policy decision.

Who emits what (DESIGN.md: only the gates, the executor and the top-level exec):
- `Bash.exec` (api.py): `run.start` (script hash, limits), `run.end` (status, duration, bytes out),
  `limit` (a limit that ended the run);
- the executor: `command.start` (argv through the redaction hook, kind) and `command.end`
  (status, duration), through `Recorder.command_start` / `Recorder.command_end`;
- the policy gates (policy.py): `decision` (action, target, allow/deny, rule id, reason).

Sinks receive every event as it happens: a list in memory (`ListSink`), JSON lines on a file-like
object the embedding program opened (`JsonLinesSink`: sandbash itself never opens a host file), a
`logging` logger (`LoggingSink`) or any callable (`CallbackSink`, or a plain function). Each run also
keeps its own events for `ExecResult.events`.
"""

from __future__ import annotations

import _thread  # (threading's locks are _thread's: threading.py itself is ~0.8 ms of a start-up)
import functools
import itertools
import re
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    import logging  # imported when a LoggingSink is made (start-up cost)
    from dataclasses import dataclass, field
    from typing import IO, Any, Protocol
else:  # the same classes, built without importing dataclasses (leanclass.py)
    from .leanclass import dataclass, field

    Protocol = object  # the protocols are the type checker's: a plain base at run time (typing is ~2 ms of a start-up)

# the event kinds, stable names for consumers
RUN_START = "run.start"
RUN_END = "run.end"
COMMAND_START = "command.start"
COMMAND_END = "command.end"
DECISION = "decision"
LIMIT = "limit"
IMPLICIT_RULE = "paths.implicit"  # policy.RULE_IMPLICIT: checks the shell makes on its own (PATH lookups)

Redactor = Callable[[Sequence[str]], list[str]]
_RUN_IDS = itertools.count(1)  # run ids unique within the process

# An argument an event shows is cut past ARG_CHARS characters, and an event's argv past ARGV_CHARS
# in all: a script's words would otherwise be copied into the events a run keeps (and each sink
# gets) without bound: 400 calls of `f "$x$i"` with a 1 MB x held 386 MB past a 64 MB max_memory
ARG_CHARS = 4096
ARGV_CHARS = 65536


def bounded_text(text: str) -> str:
    """A target (path, URL) or argument as an event shows it: cut past ARG_CHARS characters."""
    if len(text) <= ARG_CHARS:
        return text
    return f"{text[:ARG_CHARS]}...[{len(text) - ARG_CHARS} more characters]"


def bounded_argv(argv: list[str]) -> list[str]:
    """`argv` as an event shows it: a long argument cut (`...[N more characters]`), the arguments
    past ARGV_CHARS in all counted (`...[N more arguments]`)."""
    if len(argv) <= ARGV_CHARS // ARG_CHARS and all(len(a) <= ARG_CHARS for a in argv):
        return argv
    out: list[str] = []
    total = 0
    for i, a in enumerate(argv):
        a = bounded_text(a)
        total += len(a)
        if total > ARGV_CHARS:
            out.append(f"...[{len(argv) - i} more arguments]")
            break
        out.append(a)
    return out


@dataclass(frozen=True)
class AuditEvent:
    """One event. `fields` hold the kind-specific data (all JSON-serialisable)."""

    kind: str
    seq: int
    time: float
    run_id: str
    fields: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "seq": self.seq, "time": self.time, "run_id": self.run_id, **self.fields}

    def to_json(self) -> str:
        """One line of JSON that any UTF-8 stream takes and every line reader reads as one line."""
        import json

        text = json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=False, default=str)
        return text if text.isascii() else _line_unsafe().sub(_escape_char, text)


@functools.cache
def _line_unsafe() -> re.Pattern[str]:
    """What json.dumps(ensure_ascii=False) leaves raw that a script can put in a name, argument or
    path and that would cost the log an event or a line: lone surrogates (a byte that is not UTF-8,
    `$'\\xff'`, decoded with surrogateescape) make a strict UTF-8 stream raise, and the sink lost the
    event (a refusal of `cat /etc/$'\\xff'` went unrecorded); U+0085, U+2028 and U+2029 end a line
    for readers that split as str.splitlines does, which then read the event as two broken lines and
    dropped it. Inside a JSON string each is written as its \\u escape, which reads back the same."""
    return re.compile("[\x85\u2028\u2029\ud800-\udfff]")


def _escape_char(m: re.Match[str]) -> str:
    return f"\\u{ord(m.group()):04x}"


class Sink(Protocol):
    def __call__(self, event: AuditEvent) -> None: ...


class ListSink:
    """Keeps every event in memory (`.events`)."""

    def __init__(self) -> None:
        self.events: list[AuditEvent] = []
        self._lock = _thread.allocate_lock()

    def __call__(self, event: AuditEvent) -> None:
        with self._lock:
            self.events.append(event)

    def kinds(self) -> list[str]:
        return [e.kind for e in self.events]


class JsonLinesSink:
    """One JSON object per line on a text or binary file-like object opened by the embedding
    program (so the only host file involved is the one it chose)."""

    def __init__(self, stream: IO[str] | IO[bytes], *, flush: bool = True) -> None:
        self.stream: IO[Any] = stream
        self.flush = flush
        self._lock = _thread.allocate_lock()

    def __call__(self, event: AuditEvent) -> None:
        line = event.to_json() + "\n"
        with self._lock:
            try:
                self.stream.write(line)
            except TypeError:  # a binary stream
                self.stream.write(line.encode("utf-8", "surrogateescape"))
            if self.flush:
                self.stream.flush()


class LoggingSink:
    """Each event as one log record: message `sandbash KIND`, the event in `extra["audit"]`
    and as JSON in the message tail, so plain formatters show it too."""

    def __init__(
        self, logger: logging.Logger | str = "sandbash.audit", level: int = 20, deny_level: int = 30
    ) -> None:
        import logging

        # defaults: logging.INFO, and logging.WARNING for refusals
        self.logger = logging.getLogger(logger) if isinstance(logger, str) else logger
        self.level = level
        self.deny_level = deny_level

    def __call__(self, event: AuditEvent) -> None:
        denied = event.kind == DECISION and event.fields.get("decision") == "deny"
        level = self.deny_level if denied else self.level
        if self.logger.isEnabledFor(level):
            self.logger.log(
                level, "sandbash %s %s", event.kind, event.to_json(), extra={"audit": event.to_dict()}
            )


class CallbackSink:
    """Calls `fn(event_dict)`: for hosts that want plain dictionaries."""

    def __init__(self, fn: Callable[[dict[str, Any]], object]) -> None:
        self.fn = fn

    def __call__(self, event: AuditEvent) -> None:
        self.fn(event.to_dict())


# ------------------------------------------------------------ redaction


@functools.cache
def _secret_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(secret key, secret header), compiled on the first command an audit records (compiling
    them at import was ~0.5 ms of every start)."""
    key = re.compile(r"(?i)(pass(word|wd)?|secret|token|api[_-]?key|auth|credential|private[_-]?key)")
    header = re.compile(r"(?i)^\s*(authorization|proxy-authorization|cookie|x-api-key|x-auth-token)\s*:")
    return key, header


_VALUE_OPTIONS = frozenset({"-u", "--user", "--proxy-user", "--oauth2-bearer", "--password", "-p"})
MASK = "***"


def redact_secrets(argv: Sequence[str]) -> list[str]:
    """The default redaction hook: masks values that look like credentials: `KEY=value` and
    `--key=value` where the key names a secret, secret HTTP headers, and the value after
    `-u`/`--user`/`--password`. Anything else is kept, so the log stays useful."""
    out: list[str] = []
    mask_next = False
    secret_key, secret_header = _secret_patterns()
    for i, arg in enumerate(argv):
        if mask_next:
            out.append(MASK)
            mask_next = False
            continue
        if i > 0 and arg in _VALUE_OPTIONS:
            out.append(arg)
            mask_next = True
            continue
        header = secret_header.match(arg)
        if header:
            out.append(arg[: header.end()] + " " + MASK)
            continue
        key, eq, _ = arg.partition("=")
        if eq and secret_key.search(key):
            out.append(key + "=" + MASK)
            continue
        out.append(arg)
    return out


def no_redaction(argv: Sequence[str]) -> list[str]:
    return list(argv)


def script_hash(script: str) -> str:
    # the C module alone: hashlib first loads OpenSSL, ~2.5-3.5 ms of every run's start-up
    try:
        if sys.version_info >= (3, 12):
            from _sha2 import sha256  # type: ignore[import-not-found]
        else:
            from _sha256 import sha256  # type: ignore[import-not-found]
    except ImportError:  # a Python built without its own hash modules
        from hashlib import sha256
    digest: str = sha256(script.encode("utf-8", "surrogateescape")).hexdigest()
    return "sha256:" + digest


# ------------------------------------------------------------ the audit configuration and a run's recorder


class Audit:
    """What the embedding program wants recorded: `Bash(audit=Audit(sinks=[...]))`.

    `decisions="all"` records every policy decision; `"deny"` only refusals (file checks can be
    numerous). `lookups=False` leaves out the allowed checks the shell makes on its own, not the
    script (the `stat` of each PATH directory while looking a command up, devices: rule
    `paths.implicit`). `redact` rewrites argv before it is recorded (default: `redact_secrets`)."""

    def __init__(
        self,
        sinks: Iterable[Sink | Callable[[AuditEvent], object]] = (),
        *,
        redact: Redactor | None = redact_secrets,
        decisions: str = "all",
        lookups: bool = True,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if decisions not in ("all", "deny"):
            raise ValueError("Audit: decisions must be 'all' or 'deny'")
        self.sinks: list[Callable[[AuditEvent], object]] = list(sinks)
        self.redact: Redactor = redact or no_redaction
        self.decisions = decisions
        self.lookups = lookups
        self.clock = clock

    def new_run(self) -> Recorder:
        return Recorder(self)


class Recorder:
    """The events of one run. Thread-safe: pipeline stages emit from their own threads.
    A sink that raises does not stop the run (an audit failure is not a script failure),
    but the exception is kept in `sink_errors` for the embedding program."""

    # events kept for ExecResult.events, and the characters of their argvs (bounded_argv); sinks
    # still see every event past these
    MAX_KEPT = 100_000
    MAX_KEPT_CHARS = 16 << 20

    def __init__(self, audit: Audit | None, run_id: str | None = None) -> None:
        self.audit = audit
        self.run_id = run_id or f"run-{next(_RUN_IDS)}"
        self.started = time.monotonic()
        self.events: list[AuditEvent] = []
        self.dropped = 0
        self.sink_errors: list[BaseException] = []
        self._seq = 0
        self._lock = _thread.RLock()
        self._clock = audit.clock if audit is not None else time.time
        self._open: dict[int, tuple[float, str]] = {}
        self._kept_chars = 0

    def emit(self, kind: str, **fields: Any) -> AuditEvent:
        # one lock around numbering and the sinks: events from concurrent pipeline stages reach
        # every sink in sequence order (a sink may emit again: the lock is reentrant)
        with self._lock:
            self._seq += 1
            event = AuditEvent(kind, self._seq, self._clock(), self.run_id, fields)
            argv = fields.get("argv")
            size = sum(map(len, argv)) if argv else 0
            target = fields.get("target")
            if target.__class__ is str:
                size += len(target)
            if (
                len(self.events) < self.MAX_KEPT and self._kept_chars + size <= self.MAX_KEPT_CHARS
            ) or kind == RUN_END:
                self._kept_chars += size
                self.events.append(event)
            else:
                self.dropped += 1
            if self.audit is not None:
                for sink in self.audit.sinks:
                    try:
                        sink(event)
                    except Exception as e:  # a broken sink must not break the run
                        self.sink_errors.append(e)
        return event

    def wants_decision(self, allowed: bool, rule: str = "") -> bool:
        if not allowed or self.audit is None:
            return True
        if rule == IMPLICIT_RULE and not self.audit.lookups:
            return False
        return self.audit.decisions == "all"

    def redact(self, argv: Sequence[str]) -> list[str]:
        """`argv` as an event shows it: through the audit's redaction, then bounded_argv."""
        return bounded_argv(self.audit.redact(argv) if self.audit is not None else list(argv))

    # -- the executor's interface (see policy.py's wiring notes)

    def command_start(self, argv: Sequence[str], kind: str = "") -> int:
        """Record a command about to run; returns the id to pass to `command_end`."""
        event = self.emit(COMMAND_START, argv=self.redact(argv), command_kind=kind)
        with self._lock:
            self._open[event.seq] = (time.monotonic(), argv[0] if argv else "")
        return event.seq

    def command_end(self, command_id: int, status: int) -> None:
        with self._lock:
            started, name = self._open.pop(command_id, (time.monotonic(), ""))
        self.emit(
            COMMAND_END,
            command_id=command_id,
            name=name,
            status=status,
            duration=round(time.monotonic() - started, 6),
        )

    def limit(self, limit: str, value: object, message: str = "") -> None:
        self.emit(LIMIT, limit=limit, value=value, message=message)

    def dicts(self) -> list[dict[str, Any]]:
        with self._lock:
            return [e.to_dict() for e in self.events]


class OutsideRunRecorder(Recorder):
    """The decisions made outside any run (the embedder's own file calls through the policy:
    `bash.fs`, `write_file`, a tool's file input): sent to the audit's sinks under the run id
    `outside-run`, kept nowhere, so no run's `ExecResult.events` holds them."""

    MAX_KEPT = 0

    def __init__(self, audit: Audit | None) -> None:
        super().__init__(audit, "outside-run")


# ------------------------------------------------------------ the top-level run's events (api.py)


def begin_run(
    audit: Audit | None, script: str, limits: object, policy: Mapping[str, Any] | None, cwd: str
) -> Recorder:
    rec = audit.new_run() if audit is not None else Recorder(None)
    names = () if isinstance(limits, type) else getattr(limits, "__lean_fields__", ())
    limit_fields = {n: getattr(limits, n) for n in names}  # Limits' fields are numbers: no deep copy
    rec.emit(
        RUN_START,
        script_hash=script_hash(script),
        script_bytes=len(script.encode("utf-8", "surrogateescape")),
        cwd=cwd,
        limits=limit_fields,
        policy=policy,
    )
    return rec


def end_run(
    rec: Recorder,
    status: int,
    stdout_bytes: int,
    stderr_bytes: int,
    *,
    limit: str | None = None,
    limit_value: object = None,
    message: str = "",
    cancelled: bool = False,
) -> list[dict[str, Any]]:
    """Record the end (and the limit that ended the run, if any); returns the run's events."""
    if limit is not None:
        rec.limit(limit, limit_value, message)
    rec.emit(
        RUN_END,
        status=status,
        duration=round(time.monotonic() - rec.started, 6),
        stdout_bytes=stdout_bytes,
        stderr_bytes=stderr_bytes,
        cancelled=cancelled,
        events_dropped=rec.dropped,
    )
    return rec.dicts()
