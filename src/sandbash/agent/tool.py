"""The agent tool: one JSON contract that every adapter (Anthropic, OpenAI,
LangChain, pydantic-ai, MCP, `sandbash --json`) maps onto.

Input (`INPUT_SCHEMA`): `command` plus optional `timeout_ms`, `env`, `files`,
`max_output_kb`, `max_file_kb`, `allow_network`, `session_id`, `restart`; anything else is
refused with a one-line `ToolInputError` (every adapter and the MCP server
report that same line).
Output (`ToolOutput.to_dict()`): `{stdout, stderr, exit_code, result_json,
stdout_truncated, stderr_truncated, limit}` (and `result_json_error` when a
`__RESULT__:` line held invalid JSON); `is_error` (a non-zero exit or a limit)
is what every adapter marks as an error result. Per-call settings can only
tighten what the operator configured (a call never gets more output or network
than the tool was built with), except `timeout_ms`, which may go up to the
operator's `max_timeout` ceiling when one is set.

Sessions are kept per *scope* (`run(..., scope=...)`): the same `session_id` in
two scopes names two different shells. A server with several clients passes
each client's identity as the scope (the MCP server does); the number of
sessions and their idle lifetime are bounded.
"""

from __future__ import annotations

import copy
import json
import posixpath
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from ..aio import run_cancellable
from ..api import Bash, ExecResult, Session, clean_text
from ..audit import Audit, Recorder
from ..commands.runtimes import runtime_notes, unavailable_programs
from ..errors import ExecutionCancelled, ExecutionLimitError
from ..limits import CancelToken, Limits
from ..net import NetworkConfig
from ..policy import Policy
from ..vfs.errors import FsError, strerror
from ..vfs.memory import FileContent
from .sandbox import new_bash

if TYPE_CHECKING:
    from ..sessions.stores import SessionStore

DEFAULT_MAX_OUTPUT_CHARS = 30_000
DEFAULT_MAX_SESSIONS = 64
# what the kept shells may hold together (variables, arrays, functions, tables: each at most its
# max_session_memory): without it 64 shells of 128 MiB were 8 GiB of one server
DEFAULT_MAX_SESSIONS_MEMORY = 1 << 30
# calls run at once (each bounded by max_memory: 8 x 256 MiB); more wait for a turn
DEFAULT_MAX_CONCURRENT_CALLS = 8
DEFAULT_SESSION_IDLE_TIMEOUT = 3600.0  # seconds a shell may sit unused before it is forgotten
STORE_RETRIES = 20  # store mode: times a call runs again after losing a compare-and-swap race
TOOL_CALL = "tool.call"  # the audit event of one tool call
RESULT_PREFIX = "__RESULT__:"
# the most JSON values a result line may hold (~6 MB once decoded)
MAX_RESULT_VALUES = 100_000

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "description": "The bash script to run (several lines allowed)."},
        "timeout_ms": {
            "type": "integer",
            "minimum": 1,
            "description": "Wall-clock limit for this call, in milliseconds (capped by the operator's ceiling).",
        },
        "env": {
            "type": "object",
            "additionalProperties": {"type": "string"},
            "description": "Environment variables for this call.",
        },
        "files": {
            "type": "array",
            "description": "Files to write before the command runs (parent directories are created).",
            "items": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"],
                "additionalProperties": False,
            },
        },
        "max_output_kb": {
            "type": "integer",
            "minimum": 1,
            "description": "Cap on each of stdout and stderr returned, in KiB (characters).",
        },
        "max_file_kb": {
            "type": "integer",
            "minimum": 1,
            "description": "Largest file accepted in `files`, in KiB.",
        },
        "allow_network": {
            "type": "boolean",
            "description": "false: curl and wget are refused for this call; true: network within "
            "the sandbox's allow-list, if it has one.",
        },
        "session_id": {
            "type": "string",
            "maxLength": 200,
            "description": "Continue a shell session (cwd, variables, functions persist); "
            "a new id starts a new session. Sessions are private to the client; "
            "files are shared by every session.",
        },
        "restart": {
            "type": "boolean",
            "description": "Start the session `session_id` afresh before running.",
        },
    },
    "required": ["command"],
    "additionalProperties": False,
}

OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "stdout": {"type": "string"},
        "stderr": {"type": "string"},
        "exit_code": {"type": "integer"},
        "result_json": {"description": "Parsed from the last `__RESULT__:{...}` line of stdout, or null."},
        "stdout_truncated": {"type": "boolean"},
        "stderr_truncated": {"type": "boolean"},
        "limit": {"type": ["string", "null"], "description": "The sandbox limit the run hit, if any."},
        "result_json_error": {"type": ["string", "null"]},
    },
    "required": [
        "stdout",
        "stderr",
        "exit_code",
        "result_json",
        "stdout_truncated",
        "stderr_truncated",
        "limit",
    ],
}


class ToolInputError(ValueError):
    """The tool input does not match `INPUT_SCHEMA` (or a file cannot be written)."""


# ------------------------------------------------------------------ input

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "boolean": (bool,),
}


def validate(value: object, schema: Mapping[str, Any], where: str = "input") -> None:
    """The subset of JSON Schema that `INPUT_SCHEMA` uses; raises ToolInputError."""
    kind = schema.get("type")
    if isinstance(kind, str):
        ok = isinstance(value, _JSON_TYPES[kind]) and not (kind == "integer" and isinstance(value, bool))
        if not ok:
            raise ToolInputError(f"{where}: expected {kind}, got {type(value).__name__}")
    if "minimum" in schema and isinstance(value, int) and value < schema["minimum"]:
        raise ToolInputError(f"{where}: must be at least {schema['minimum']}")
    if "maxLength" in schema and isinstance(value, str) and len(value) > schema["maxLength"]:
        raise ToolInputError(f"{where}: longer than {schema['maxLength']} characters")
    if isinstance(value, dict):
        props: Mapping[str, Any] = schema.get("properties", {})
        for key in schema.get("required", ()):
            if key not in value:
                raise ToolInputError(f"{where}: missing required property '{key}'")
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in props:
                validate(item, props[key], f"{where}.{key}")
            elif extra is False:
                raise ToolInputError(f"{where}: unknown property '{key}'")
            elif isinstance(extra, Mapping):
                validate(item, extra, f"{where}.{key}")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            validate(item, schema["items"], f"{where}[{i}]")


def clean_input(value: Any) -> Any:
    """Tool input as the sandbox holds text: every string of it (keys too) through `clean_text`.
    JSON may carry a lone surrogate (`"\\ud800"`), which no UTF-8 encode takes: a file's path or
    content holding one made the write raise UnicodeEncodeError out of the tool."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean_input(k): clean_input(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clean_input(v) for v in value]
    return value


@dataclass
class ToolRequest:
    command: str
    timeout_ms: int | None = None
    env: dict[str, str] | None = None
    files: list[tuple[str, str]] = field(default_factory=list)
    max_output_kb: int | None = None
    max_file_kb: int | None = None
    allow_network: bool | None = None
    session_id: str | None = None
    restart: bool = False

    @classmethod
    def parse(cls, data: Mapping[str, Any]) -> ToolRequest:
        plain = dict(data)
        # models often send null for an optional argument they mean to leave out
        plain = {k: v for k, v in plain.items() if v is not None}
        validate(plain, INPUT_SCHEMA)
        plain = clean_input(plain)
        files = [(f["path"], f["content"]) for f in plain.pop("files", [])]
        return cls(files=files, **plain)


# ------------------------------------------------------------------ output


def truncate_middle(text: str, cap: int, skipped: int = 0) -> tuple[str, bool]:
    """Keep the head and tail of `text` within `cap` characters, with an
    explicit marker for what was cut; cuts at line ends when one is near.
    `skipped`: characters already left out of the middle of `text` (a file read at its ends)."""
    if len(text) <= cap and not skipped:
        return text, False
    head_end = cap // 2
    tail_start = len(text) - (cap - head_end)
    nl = text.rfind("\n", head_end * 3 // 4, head_end)
    if nl != -1:
        head_end = nl + 1
    nl = text.find("\n", tail_start, tail_start + (cap - cap // 2) // 4)
    if nl != -1:
        tail_start = nl + 1
    head = text[:head_end]
    sep = "" if head.endswith("\n") or not head else "\n"
    marker = f"{sep}[… {tail_start - head_end + skipped:,} characters omitted …]\n"
    return head + marker + text[tail_start:], True


def is_binary(data: bytes) -> bool:
    """NUL bytes, or more than a few bytes that are not UTF-8."""
    sample = data[:8192]
    if b"\0" in sample:
        return True
    bad = sample.decode("utf-8", "replace").count("\ufffd")
    return bad > max(8, len(sample) // 20)


def binary_notice(n: int) -> str:
    return (
        f"[binary output: {n:,} bytes, not shown; write it to a file and inspect it with "
        f"od -c, xxd or base64]\n"
    )


def _not_json(name: str) -> float:
    # Python's decoder takes NaN and Infinity, which are not JSON: the value goes back to clients
    # that parse strictly
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):  # (`1e999999`: no JSON number can hold it)
        raise ValueError(f"number out of range: {text[:40]}")
    return value


def find_result_json(stdout: str) -> tuple[Any, str | None]:
    """(value, error) from the last `__RESULT__:` line; invalid JSON is reported, not raised."""
    at = stdout.rfind(RESULT_PREFIX)
    while at > 0 and stdout[at - 1] != "\n":  # only at the start of a line
        at = stdout.rfind(RESULT_PREFIX, 0, at)
    if at == -1:
        return None, None
    line = stdout[at + len(RESULT_PREFIX) :].split("\n", 1)[0]
    from ..sessions.schema import json_within

    # the script writes this line: bounded before json.loads builds it in the embedder's memory
    # (outside any run's budget: `[],` of output is ~64 bytes decoded)
    if not json_within(line.encode("utf-8", "surrogatepass"), MAX_RESULT_VALUES):
        return None, f"{RESULT_PREFIX} holds more than {MAX_RESULT_VALUES:,} JSON values"
    try:
        return json.loads(line, parse_constant=_not_json, parse_float=_finite), None
    except ValueError as e:
        return None, f"invalid JSON after {RESULT_PREFIX}: {e}"
    except RecursionError:  # (`[[[[...`: the decoder recurses once a level)
        return None, f"invalid JSON after {RESULT_PREFIX}: nested too deeply"


@dataclass
class ToolOutput:
    stdout: str
    stderr: str
    exit_code: int
    result_json: Any = None
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    limit: str | None = None
    result_json_error: str | None = None

    @classmethod
    def from_result(
        cls,
        result: ExecResult,
        *,
        limit: str | None = None,
        note: str = "",
        max_chars: int = DEFAULT_MAX_OUTPUT_CHARS,
    ) -> ToolOutput:
        """Shape an ExecResult for a model. `note` is appended to stderr (a limit message)."""
        out_bytes = result.stdout_bytes
        if is_binary(out_bytes):
            stdout, value, error = binary_notice(len(out_bytes)), None, None
        else:
            stdout = result.stdout
            value, error = find_result_json(stdout)
        err_bytes = result.stderr_bytes
        stderr = binary_notice(len(err_bytes)) if is_binary(err_bytes) else result.stderr
        stdout, out_cut = truncate_middle(stdout, max_chars)
        stderr, err_cut = truncate_middle(stderr + note, max_chars)
        return cls(stdout, stderr, result.exit_code, value, out_cut, err_cut, limit, error)

    @property
    def is_error(self) -> bool:
        return self.exit_code != 0 or self.limit is not None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "stdout": self.stdout,
            "stderr": self.stderr,
            "exit_code": self.exit_code,
            "result_json": self.result_json,
            "stdout_truncated": self.stdout_truncated,
            "stderr_truncated": self.stderr_truncated,
            "limit": self.limit,
        }
        if self.result_json_error is not None:
            d["result_json_error"] = self.result_json_error
        return d

    def text(self) -> str:
        """What a model reads: stdout, a `STDERR:` block, then the exit code."""
        parts: list[str] = []
        if self.stdout:
            parts.append(self.stdout.rstrip("\n"))
        if self.stderr:
            parts.append("STDERR:\n" + self.stderr.rstrip("\n"))
        if not parts:
            parts.append("(no output)")
        if self.result_json_error:
            parts.append(f"[{self.result_json_error}]")
        if self.limit:
            parts.append(f"[limit exceeded: {self.limit}]")
        parts.append(f"[exit code: {self.exit_code}]")
        return "\n".join(parts)


def shape_run(call: Callable[[], ExecResult], max_chars: int = DEFAULT_MAX_OUTPUT_CHARS) -> ToolOutput:
    """Run `call` and shape what it gives, a limit or a cancellation included."""
    try:
        result = call()
    except ExecutionLimitError as e:
        return ToolOutput.from_result(
            e.result, limit=e.limit, note=f"bash: {e.message}\n", max_chars=max_chars
        )
    except ExecutionCancelled as e:
        return ToolOutput.from_result(e.result, note="sandbash: execution cancelled\n", max_chars=max_chars)
    return ToolOutput.from_result(result, max_chars=max_chars)


# ------------------------------------------------------------------ the tool


class _Slot:
    """A session, the lock that keeps its runs one at a time, and when it was last used."""

    def __init__(self, session: Session, now: float) -> None:
        self.session = session
        self.lock = threading.Lock()
        self.used = now


SessionKey = tuple[str, str]  # (scope, session_id)
T = TypeVar("T")


class BashTool:
    """A bash tool for a model: one sandbox (files persist across calls) and
    named sessions within it, kept per scope. Thread-safe; calls in one session
    run in turn. The sandbox is `bash` if given (its files get `files`), else one made
    from `files`, `env`, `cwd` (default /home/user), `limits`, `network` and `policy`;
    passing those with `bash` is a ValueError (they would be ignored).

    `max_sessions` bounds the shells kept (the least recently used is forgotten
    first) and `session_idle_timeout` (seconds, None for no limit) forgets a
    shell unused for that long; `max_sessions_memory` (bytes, None for no limit) bounds what
    the kept shells hold together: after a call, the least recently used other shells are
    forgotten until the rest fit. `max_concurrent_calls` bounds the calls that run at once
    (each within `max_memory`); a call waits for a turn up to its time limit, then answers
    that there are too many concurrent calls. `max_timeout` (seconds) is the ceiling a call's
    `timeout_ms` may raise the time limit to (default: the sandbox's own limit,
    so a call can only lower it). `max_file_bytes` caps each file of a call's
    `files`. `network_by_default=False` keeps curl and wget away unless a call
    says `allow_network: true`. `audit` (default: the Bash's own) receives one
    `tool.call` event per call (command text, exit code, output sizes, duration).
    `files_note` tells the model where the user's files are (description and
    system prompt), e.g. "The user's project is at /workspace."

    `store` (a `SessionStore` or a URL: `memory://`, `sqlite:///path.db`, `redis://host:port/db`,
    `postgresql://...`) keeps each session in the store instead of this process: every call loads
    the session's snapshot, runs, and saves it with compare-and-swap, so any process built with
    the same store URL serves any session, and two calls on one session from two processes at once
    are serialised (the later one runs again on the new state; nothing is lost). In store mode
    each session has its own files (a copy of the tool's initial ones), and an idle session
    expires after `session_idle_timeout`."""

    def __init__(
        self,
        bash: Bash | None = None,
        *,
        files: Mapping[str, FileContent] | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        limits: Limits | str | None = None,
        network: NetworkConfig | None = None,
        policy: Policy | None = None,
        audit: Audit | None = None,
        max_output_chars: int = DEFAULT_MAX_OUTPUT_CHARS,
        max_file_bytes: int | None = None,
        max_timeout: float | None = None,
        network_by_default: bool = True,
        max_sessions: int = DEFAULT_MAX_SESSIONS,
        max_sessions_memory: int | None = DEFAULT_MAX_SESSIONS_MEMORY,
        max_concurrent_calls: int = DEFAULT_MAX_CONCURRENT_CALLS,
        session_idle_timeout: float | None = DEFAULT_SESSION_IDLE_TIMEOUT,
        name: str = "bash",
        files_note: str = "",
        clock: Callable[[], float] = time.monotonic,
        store: SessionStore | str | None = None,
    ) -> None:
        if bash is None:
            cwd = "/home/user" if cwd is None else cwd
            bash = new_bash(files=files, env=env, cwd=cwd, limits=limits, network=network, policy=policy)
        else:
            # these make the Bash; a Bash given keeps its own, and dropping them silently would run
            # the tool with other limits or policy than the caller asked for
            given = {"env": env, "cwd": cwd, "limits": limits, "network": network, "policy": policy}
            if clash := [k for k, v in given.items() if v is not None]:
                raise ValueError(
                    f"BashTool: {', '.join(clash)} configure the Bash it makes; with bash= given, "
                    "set them on that Bash (Bash(...) or new_bash(...))"
                )
            for path, content in (files or {}).items():
                bash.write_file(path, content)
        if max_sessions < 1:
            raise ValueError("BashTool: max_sessions must be at least 1")
        if session_idle_timeout is not None and session_idle_timeout <= 0:
            raise ValueError("BashTool: session_idle_timeout must be positive (or None)")
        if max_sessions_memory is not None and max_sessions_memory < 1:
            raise ValueError("BashTool: max_sessions_memory must be at least 1 (or None)")
        if max_concurrent_calls < 1:
            raise ValueError("BashTool: max_concurrent_calls must be at least 1")
        self.bash = bash
        self.name = name
        self.files_note = files_note
        self.max_output_chars = max_output_chars
        self.max_file_bytes = max_file_bytes
        self.max_timeout = max_timeout
        self.network_by_default = network_by_default
        self.audit = audit if audit is not None else bash.audit
        self.max_sessions = max_sessions
        self.max_sessions_memory = max_sessions_memory
        self.max_concurrent_calls = max_concurrent_calls
        self._turns = threading.BoundedSemaphore(max_concurrent_calls)
        self.session_idle_timeout = session_idle_timeout
        self._clock = clock
        self._sessions: OrderedDict[SessionKey, _Slot] = OrderedDict()
        self._lock = threading.Lock()
        self.store: SessionStore | None = None
        if store is not None:
            from ..sessions.stores import open_store

            self.store = open_store(store) if isinstance(store, str) else store
        self._template: bytes | None = None  # a fresh session of this tool, as a snapshot (store mode)

    @classmethod
    def cruvero(cls, **kw: Any) -> BashTool:
        """Cruvero's `bash_exec` contract (see `sandbash.agent.adapters.cruvero.cruvero_tool`)."""
        from .adapters.cruvero import cruvero_tool

        return cruvero_tool(**kw)

    # -------------------------------------------------------------- state

    @property
    def network(self) -> NetworkConfig | None:
        return self.bash.network

    @property
    def input_schema(self) -> dict[str, Any]:
        return copy.deepcopy(INPUT_SCHEMA)

    @staticmethod
    def new_session_id() -> str:
        """An unguessable session id (128 bits), for ids the embedding program hands out."""
        return secrets.token_urlsafe(16)

    def _expire(self, now: float) -> None:
        """Forget idle shells (the oldest are first: each use moves a slot to the end). Caller holds _lock."""
        idle = self.session_idle_timeout
        while self._sessions:
            key, slot = next(iter(self._sessions.items()))
            if idle is None or now - slot.used < idle:
                break
            del self._sessions[key]

    def _fit_memory(self, keep: SessionKey) -> None:
        """Forget the least recently used shells other than `keep` (the one just used) while the
        kept shells hold more than `max_sessions_memory` together. A shell running a call when it
        is forgotten finishes that call; its memory goes when the call ends."""
        cap = self.max_sessions_memory
        if cap is None:
            return
        with self._lock:
            held = {key: slot.session.held for key, slot in self._sessions.items()}
            total = sum(held.values())
            while total > cap and (victim := self._victim(held, keep)) is not None:
                del self._sessions[victim]
                total -= held.pop(victim)

    def _victim(self, weights: dict[SessionKey, int], keep: SessionKey) -> SessionKey | None:
        """The shell to forget when the kept shells are over a bound: the least recently used one
        of the scope whose shells weigh the most (`weights`: a shell's count or memory), never
        `keep` (the shell just used). So one client's many or large shells go before another
        client's: a client cannot make the server forget the others' shells by making its own.
        Caller holds _lock."""
        totals: dict[str, int] = {}
        for (scope, _), weight in weights.items():
            totals[scope] = totals.get(scope, 0) + weight
        for scope in sorted(totals, key=totals.__getitem__, reverse=True):
            for key in weights:  # (in the order of use: least recently used first)
                if key[0] == scope and key != keep:
                    return key
        return None

    def _slot(self, key: SessionKey, fresh: bool = False, create: bool = True) -> _Slot | None:
        with self._lock:
            now = self._clock()
            self._expire(now)
            slot = self._sessions.get(key)
            if slot is None and not create:
                return None
            if slot is None or fresh:
                slot = _Slot(self.bash.session(), now)
                self._sessions[key] = slot
                while len(self._sessions) > self.max_sessions:  # forget a least recently used one
                    victim = self._victim(dict.fromkeys(self._sessions, 1), key)
                    if victim is None:
                        break
                    del self._sessions[victim]
            slot.used = now
            self._sessions.move_to_end(key)
            return slot

    def session(self, session_id: str, *, scope: str = "") -> Session:
        """The session with this handle in `scope` (created on first use)."""
        slot = self._slot((scope, session_id))
        assert slot is not None
        return slot.session

    def find_session(self, session_id: str, *, scope: str = "") -> Session | None:
        """The session with this handle in `scope`, or None (nothing is created). In store mode,
        a copy restored from the store: changes to it are not saved (use `with_session`)."""
        if self.store is not None:
            got = self.store.load(self._store_key(scope, session_id))
            return None if got is None else self._stored_session(got[0])
        slot = self._slot((scope, session_id), create=False)
        return None if slot is None else slot.session

    def has_session(self, session_id: str, *, scope: str = "") -> bool:
        if self.store is not None:
            return self.store.load(self._store_key(scope, session_id)) is not None
        return self._slot((scope, session_id), create=False) is not None

    def with_session(
        self, session_id: str, fn: Callable[[Session], T], *, scope: str = "", save: bool = True
    ) -> T | None:
        """`fn(session)` on an existing session (None when there is none); in store mode the
        session is loaded, and saved again afterwards with compare-and-swap when `save`
        (`fn` runs again on the new state if another process saved meanwhile)."""
        if self.store is None:
            slot = self._slot((scope, session_id), create=False)
            if slot is None:
                return None
            with slot.lock:
                return fn(slot.session)
        return self._in_store(self._store_key(scope, session_id), fn, f"session {session_id}", save=save)[1]

    def restart(self, session_id: str, *, scope: str = "") -> Session:
        """A fresh shell under this handle (the files stay)."""
        slot = self._slot((scope, session_id), fresh=True)
        assert slot is not None
        return slot.session

    def close_session(self, session_id: str, *, scope: str = "") -> None:
        if self.store is not None:
            self.store.delete(self._store_key(scope, session_id))
            return
        with self._lock:
            self._sessions.pop((scope, session_id), None)

    def close_scope(self, scope: str) -> None:
        """Forget every shell of one scope (a client that went away)."""
        with self._lock:
            for key in [k for k in self._sessions if k[0] == scope]:
                del self._sessions[key]

    def sessions(self, *, scope: str = "") -> list[str]:
        """The live session ids of `scope`, least recently used first (store mode: sorted)."""
        if self.store is not None:
            prefix = self._store_key(scope, "")
            return [k[len(prefix) :] for k in self.store.keys(prefix)]
        with self._lock:
            self._expire(self._clock())
            return [sid for sc, sid in self._sessions if sc == scope]

    # -------------------------------------------------------------- running

    def _call_limits(self, req: ToolRequest) -> Limits:
        limits = self.bash.limits
        if req.timeout_ms is None:
            return limits
        ceiling = limits.timeout if self.max_timeout is None else self.max_timeout
        return limits.with_overrides(timeout=min(ceiling, req.timeout_ms / 1000))

    def run(
        self, request: Mapping[str, Any] | ToolRequest, *, cancel: CancelToken | None = None, scope: str = ""
    ) -> ToolOutput:
        """Run one tool call. Raises ToolInputError for input that breaks the schema
        (recorded too: a refused call is still a call)."""
        started = time.monotonic()
        try:
            req = request if isinstance(request, ToolRequest) else ToolRequest.parse(request)
            out = self._run(req, cancel, scope)
        except ToolInputError as e:
            self.record_refused(request, str(e), time.monotonic() - started)
            raise
        if self.audit is not None:
            self._record(req, out, time.monotonic() - started)
        return out

    def _run(self, req: ToolRequest, cancel: CancelToken | None, scope: str) -> ToolOutput:
        limits = self._call_limits(req)
        if not self._turns.acquire(timeout=limits.timeout):
            return ToolOutput("", f"{self.name}: too many concurrent calls; try again", 1)
        try:
            return self._run_turn(req, limits, cancel, scope)
        finally:
            self._turns.release()

    def _run_turn(
        self, req: ToolRequest, limits: Limits, cancel: CancelToken | None, scope: str
    ) -> ToolOutput:
        cap = self.max_output_chars
        if req.max_output_kb is not None:
            cap = min(cap, req.max_output_kb * 1024)
        wants_network = self.network_by_default if req.allow_network is None else req.allow_network
        offline = not wants_network and self.network is not None
        if req.session_id is None:
            self._write_files(req, self.bash.cwd)
            if not offline:
                return shape_run(
                    lambda: self.bash.exec(req.command, env=req.env, limits=limits, cancel=cancel), cap
                )
            # a throwaway shell whose runtime has no network: curl and wget do not exist for it
            once = self.bash.session(env=req.env)
            once.rt.network = None
            return shape_run(lambda: once.exec(req.command, limits=limits, cancel=cancel), cap)
        if self.store is not None:
            return self._run_stored(req, limits, cap, offline, cancel, scope)
        key = (scope, req.session_id)
        slot = self._slot(key, fresh=req.restart)
        assert slot is not None
        with slot.lock:
            out = self._run_in(slot.session, req, limits, cap, offline, cancel)
        self._fit_memory(key)
        return out

    def _run_in(
        self,
        session: Session,
        req: ToolRequest,
        limits: Limits,
        cap: int,
        offline: bool,
        cancel: CancelToken | None,
    ) -> ToolOutput:
        self._write_files(req, session.cwd)
        network = session.rt.network
        if offline:
            session.rt.network = None
        try:
            if req.env:
                # a session keeps what the call exported, as a shell would
                session.exec(_exports(req.env), limits=limits, cancel=cancel)
            return shape_run(lambda: session.exec(req.command, limits=limits, cancel=cancel), cap)
        finally:
            session.rt.network = network

    # -------------------------------------------------------------- store mode

    @staticmethod
    def _store_key(scope: str, session_id: str) -> str:
        key = f"{len(scope)}:{scope}:{session_id}"  # no scope can forge another's keys
        try:
            key.encode("utf-8")  # (stores keep keys as UTF-8 text: a lone surrogate cannot be one)
        except UnicodeEncodeError:
            raise ToolInputError(f"session_id {session_id!r}: not valid Unicode text") from None
        return key

    def _stored_session(self, data: bytes | None) -> Session:
        """A session of a Bash of its own: restored from `data`, or fresh (the tool's initial files)."""
        from ..sessions.snapshot import restore, twin

        if data is None:
            if self._template is None:
                self._template = self.bash.session().snapshot()
            data = self._template
        return restore(twin(self.bash), data)

    def _in_store(
        self,
        key: str,
        fn: Callable[[Session], T],
        what: str,
        *,
        create: bool = False,
        fresh: bool = False,
        save: bool = True,
    ) -> tuple[bool, T | None]:
        """The store's turn: load the session (or a fresh one when `fresh`, or when it is absent and
        `create`), `fn(session)`, then save it with compare-and-swap when `save`; a lost race runs
        `fn` again on the new state. (False, None) when the session is absent and not created;
        StoreConflict after STORE_RETRIES lost races."""
        from ..sessions.errors import StoreConflict

        assert self.store is not None
        for _ in range(STORE_RETRIES):
            got = self.store.load(key)
            if got is None and not create:
                return False, None
            session = self._stored_session(None if got is None or fresh else got[0])
            result = fn(session)
            if not save:
                return True, result
            try:
                self.store.save(
                    key, session.snapshot(), None if got is None else got[1], self.session_idle_timeout
                )
            except StoreConflict:
                continue  # another process ran a call on this session meanwhile: run again on its result
            return True, result
        raise StoreConflict(f"{what}: too many concurrent calls; try again")

    def _run_stored(
        self,
        req: ToolRequest,
        limits: Limits,
        cap: int,
        offline: bool,
        cancel: CancelToken | None,
        scope: str,
    ) -> ToolOutput:
        from ..sessions.errors import StoreConflict

        assert req.session_id is not None
        try:
            _, out = self._in_store(
                self._store_key(scope, req.session_id),
                lambda s: self._run_in(s, req, limits, cap, offline, cancel),
                f"session {req.session_id}",
                create=True,
                fresh=req.restart,
            )
        except StoreConflict as e:
            return ToolOutput("", str(e), 1)
        assert out is not None
        return out

    def _record(self, req: ToolRequest, out: ToolOutput, duration: float) -> None:
        rec = Recorder(self.audit, run_id=f"tool-{secrets.token_hex(6)}")
        rec.emit(
            TOOL_CALL,
            tool=self.name,
            command=req.command,
            exit_code=out.exit_code,
            limit=out.limit,
            stdout_bytes=len(out.stdout.encode("utf-8", "surrogateescape")),
            stderr_bytes=len(out.stderr.encode("utf-8", "surrogateescape")),
            stdout_truncated=out.stdout_truncated,
            stderr_truncated=out.stderr_truncated,
            duration=round(duration, 6),
            session=req.session_id is not None,
            allow_network=req.allow_network,
            timeout_ms=req.timeout_ms,
        )

    def record_refused(
        self, request: Mapping[str, Any] | ToolRequest, error: str, duration: float = 0.0
    ) -> None:
        """The `tool.call` audit event of a call refused for its input (for servers that judge input first)."""
        if self.audit is None:
            return
        command = request.command if isinstance(request, ToolRequest) else request.get("command")
        rec = Recorder(self.audit, run_id=f"tool-{secrets.token_hex(6)}")
        rec.emit(
            TOOL_CALL,
            tool=self.name,
            command=command if isinstance(command, str) else None,
            exit_code=None,
            error=error,
            duration=round(duration, 6),
        )

    async def arun(self, request: Mapping[str, Any] | ToolRequest, *, scope: str = "") -> ToolOutput:
        """`run` in a worker thread; cancelling the task cancels the script."""
        return await run_cancellable(lambda token: self.run(request, cancel=token, scope=scope))

    def _write_files(self, req: ToolRequest, cwd: str) -> None:
        caps = [
            c
            for c in (self.max_file_bytes, None if req.max_file_kb is None else req.max_file_kb * 1024)
            if c is not None
        ]
        max_bytes = min(caps) if caps else None
        for path, content in req.files:
            if max_bytes is not None and len(content.encode("utf-8", "surrogateescape")) > max_bytes:
                raise ToolInputError(
                    f"files: {path} is larger than max_file_kb ({_num(max_bytes / 1024)} KiB)"
                )
        for path, content in req.files:
            try:
                self.bash.write_file(posixpath.join(cwd, path), content)
            except FsError as e:
                raise ToolInputError(f"files: cannot write {path}: {strerror(e.code)}") from None

    # -------------------------------------------------------------- text for models

    def available_commands(self) -> list[str]:
        """Commands a script can run here (policy and network applied)."""
        table = self.bash.commands
        names = [
            n
            for n in table.names()
            if (self.network is not None or not table.needs_network(n))
            and (self.bash.host is not None or not table.needs_host(n))
        ]
        gate = self.bash.gate
        if gate is not None:  # the policy's own listing: asking it records nothing
            return gate.listing(names)[0]
        command_gate = self.bash.command_gate
        return [n for n in names if command_gate is None or command_gate([n]) is None]

    def _files_text(self) -> str:
        return f"{self.files_note} " if self.files_note else ""

    def _policy_text(self) -> str:
        policy = self.bash.policy
        if policy is None:
            return ""
        parts = []
        if policy.mode == "read-only":
            parts.append("the filesystem is read-only (writes are refused)")
        grants = policy.path_specs()
        if grants is not None:
            parts.append("file access is limited to " + (", ".join(grants) or "nothing"))
        if policy.deny:
            parts.append("denied commands: " + ", ".join(sorted(policy.deny)))
        return (
            (
                "Policy: " + "; ".join(parts) + ". Refused operations fail with status 126 or "
                "'Permission denied'. "
            )
            if parts
            else ""
        )

    def _limits_text(self) -> str:
        lim = self.bash.limits
        return (
            f"{_num(lim.timeout)} s wall clock per call, {_size(lim.max_output_size)} of output, "
            f"{lim.max_command_count:,} commands and {lim.max_loop_iterations:,} loop iterations per call, "
            f"{_size(lim.max_filesystem_bytes)} of files"
        )

    def _network_text(self) -> str:
        net = self.network
        if net is None:
            return "no network (curl and wget are not available)"
        # without it a call that leaves allow_network out finds no curl: the model must know to ask
        ask = "" if self.network_by_default else " when the call sets allow_network: true"
        if net.dangerously_allow_full_internet_access:
            return f"curl and wget can reach the internet{ask}"
        prefixes = ", ".join(net.allowed_url_prefixes) or "none"
        methods = ", ".join(net.allowed_methods)
        return f"curl and wget can reach only URLs under: {prefixes} (methods {methods}){ask}"

    def description(self) -> str:
        """The tool description a model sees: short, generated from the live configuration."""
        cmds = self.available_commands()
        return (
            "Run a bash script in a sandbox: GNU bash 5.2 syntax and behaviour, executed in-process over a "
            f"virtual filesystem. Each call starts in {self.bash.cwd}. {self._files_text()}"
            "Files persist between calls and are shared by every session; pass session_id to keep cwd, variables "
            "and functions too (a session is private to its client). "
            "Commands: "
            + ", ".join(cmds)
            + ", and the shell builtins. "
            + "".join(f"{note[0].upper()}{note[1:]}. " for note in runtime_notes(cmds))
            + f"Not available: host programs ({unavailable_programs(cmds)}). "
            f"Network: {self._network_text()}. {self._policy_text()}Limits: {self._limits_text()}. "
            f"stdout and stderr are each cut to {self.max_output_chars:,} characters (middle omitted). "
            f"To return structured data, print a line {RESULT_PREFIX}{{...json...}}; the last one is parsed "
            "into result_json."
        )

    def system_prompt(self) -> str:
        """A system-prompt section that explains the sandbox to a model."""
        cmds = self.available_commands()
        return "\n".join(
            [
                f"You have a `{self.name}` tool that runs bash scripts in a sandbox.",
                "- It is GNU bash 5.2 (pipes, redirections, functions, arrays, here-docs, [[ ]], $(( ))), run by "
                "sandbash, a bash interpreter in Python, over a virtual filesystem. Nothing runs on a real machine.",
                f"- The working directory starts at {self.bash.cwd}; /tmp is writable. Files persist between calls.",
                *([f"- {self.files_note}"] if self.files_note else []),
                "- Calls with the same session_id share one shell: cwd, variables, functions and options persist. "
                "A session is private to its client; the files are shared by every session.",
                f"- Commands ({len(cmds)}): {', '.join(cmds)}; plus the bash builtins (cd, export, read, declare, "
                "printf, test, ...). Each supports its common GNU options; `CMD --help` shows them.",
                *[f"- Runtimes: {note}." for note in runtime_notes(cmds)],
                f"- Not available: {unavailable_programs(cmds)}, sudo or any other host program; "
                "a missing command fails with status 127. Use awk, sed, jq and the shell instead.",
                f"- Network: {self._network_text()}.",
                *([f"- {policy}"] if (policy := self._policy_text().strip()) else []),
                f"- Limits: {self._limits_text()}. Going over a limit stops the script (exit 124 for time).",
                f"- Output: stdout and stderr are each cut to {self.max_output_chars:,} characters, keeping the "
                "start and the end; filter large output (head, grep, wc -l). Binary output is replaced by a notice.",
                f"- To return structured data, print one line `{RESULT_PREFIX}{{...}}` with JSON; the last such "
                "line is returned as result_json.",
            ]
        )


def _exports(env: Mapping[str, str]) -> str:
    for k in env:
        if not (k.isascii() and k.isidentifier()):
            raise ToolInputError(f"env: invalid variable name {k!r}")
    return "export " + " ".join(f"{k}={_quote(v)}" for k, v in env.items())


def _quote(value: str) -> str:
    return "'" + value.replace("'", "'\\''") + "'"


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def _size(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{_num(round(n / size, 1))} {unit}"
    return f"{n} bytes"
