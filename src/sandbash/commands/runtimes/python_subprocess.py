"""`subprocess`, `os.system` and `os.popen` for python3: sandbash commands, never host processes.

A command runs through the shell's executor (`ctx.run` for an argument list, `ctx.run_script` for
a shell string), so the policy, the limits and the audit apply to it as to any command of the
script. What is supported: `subprocess.run/call/check_call/check_output/getoutput/
getstatusoutput` with `input`, `capture_output`, `stdout`/`stderr` = PIPE, DEVNULL or STDOUT,
`text`/`encoding`, `check`, `cwd`, `env`, `timeout`, `shell`; `os.system` (the wait status, as
CPython returns it) and `os.popen(cmd).read()`. `Popen` is not: a command runs to its end.
Monty has no exception classes of the host's, so a failed `check` raises RuntimeError worded as
CPython's CalledProcessError, and `timeout` raises TimeoutError; python_source binds the names
`subprocess.CalledProcessError`, `TimeoutExpired` and `SubprocessError` to RuntimeError,
TimeoutError and Exception, so an `except` naming them catches. Such an exception takes no
attributes, so the one in flight is remembered (`failure`): in an `except` naming those classes,
`e.returncode`, `e.cmd`, `e.output`, `e.stdout`, `e.stderr`, `e.timeout` are rewritten to the
prelude's `_sb_exc_attr`, which asks for them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ...stdio.streams import BufferWriter, NullStream, Stream
from ..context import CommandTimeout, Ctx

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PIPE, STDOUT, DEVNULL = -1, -2, -3


@dataclass
class CompletedProcess:
    args: Any
    returncode: int
    stdout: Any = None
    stderr: Any = None


class Subprocess:
    """The host side of the program's subprocess module (one per python3 run)."""

    def __init__(self, ctx: Ctx, pm: Any, environ: Callable[[], dict[str, str] | None] | None = None) -> None:
        self.ctx = ctx
        self.pm = pm
        # the program's environment (os.environ with its changes): what a command inherits
        self.environ = environ
        # the last failure raised (its text, its attributes): only one, the exception in flight,
        # so what it holds was the program's already
        self.last: tuple[str, dict[str, Any]] | None = None

    def attrs(self) -> dict[str, Any]:
        """The module's attributes (python.py wraps the functions so a limit stops the program)."""
        return {
            "run": self.run,
            "call": self.call,
            "check_call": self.check_call,
            "check_output": self.check_output,
            "getoutput": self.getoutput,
            "getstatusoutput": self.getstatusoutput,
            "PIPE": PIPE,
            "STDOUT": STDOUT,
            "DEVNULL": DEVNULL,
        }

    # ------------------------------------------------------------ running

    def _capture(self) -> BufferWriter:
        return BufferWriter(charge=self.ctx.budget.charge_memory, max_size=self.ctx.limits.max_string_length)

    def _target(self, spec: Any, capture: bool) -> Stream | None:
        if capture or spec == PIPE:
            return self._capture()
        if spec == DEVNULL:
            return NullStream()
        return None  # the program's own stream

    def _exec(
        self,
        args: Any,
        *,
        input: Any = None,
        stdin: Any = None,
        stdout: Any = None,
        stderr: Any = None,
        capture_output: bool = False,
        shell: bool = False,
        cwd: str | None = None,
        timeout: float | None = None,
        env: Mapping[str, str] | None = None,
        text: bool | None = None,
        encoding: str | None = None,
        errors: str | None = None,
        universal_newlines: bool | None = None,
        **_ignored: Any,
    ) -> CompletedProcess:
        ctx = self.ctx
        as_text = bool(text or encoding or errors or universal_newlines)
        if isinstance(input, str):
            input = input.encode(encoding or "utf-8", errors or "strict")
        source: Stream | bytes = (
            input if isinstance(input, bytes) else (NullStream() if stdin == DEVNULL else ctx.stdin)
        )
        out = self._target(stdout, capture_output)
        err = out if stderr == STDOUT and out is not None else self._target(stderr, capture_output)
        held = 0
        try:
            if shell:
                status = self._script(str(args), source, out, err, env, cwd, timeout)
            else:
                argv = [args] if isinstance(args, str) else [str(a) for a in args]
                status = ctx.run(
                    argv, stdin=source, stdout=out, stderr=err, env=self._env(env), cwd=cwd, timeout=timeout
                )
        except CommandTimeout:
            # CPython's TimeoutExpired holds what was captured so far, as bytes, or None
            got = [_value(s, False, None, None) or None for s in (out, None if err is out else err)]
            message = f"Command '{args}' timed out after {timeout} seconds"
            attrs = {"cmd": args, "timeout": timeout, "output": got[0], "stdout": got[0], "stderr": got[1]}
            raise self._failure(TimeoutError, message, attrs) from None
        finally:
            for stream in (out, err):
                if isinstance(stream, BufferWriter):
                    held += stream.size
            ctx.budget.release_memory(held)  # the captures are copied into the program now
        return CompletedProcess(
            args,
            status,
            _value(out, as_text, encoding, errors),
            None if err is out else _value(err, as_text, encoding, errors),
        )

    def _script(
        self,
        script: str,
        source: Stream | bytes,
        out: Stream | None,
        err: Stream | None,
        env: Mapping[str, str] | None,
        cwd: str | None,
        timeout: float | None,
    ) -> int:
        if cwd is not None:
            script = f"cd -- {_quote(cwd)} || exit 1\n{script}"
        if timeout is not None:
            return self.ctx.run(
                ["bash", "-c", script],
                stdin=source,
                stdout=out,
                stderr=err,
                env=self._env(env),
                timeout=timeout,
            )
        return self.ctx.run_script(script, (), stdin=source, stdout=out, stderr=err, env=self._env(env))

    def _env(self, env: Mapping[str, str] | None) -> Mapping[str, str] | None:
        """A command's environment: `env=` as given, else the program's if it changed os.environ
        (None: the command's own)."""
        if env is not None:
            return {str(k): str(v) for k, v in env.items()}
        return self.environ() if self.environ is not None else None

    # ------------------------------------------------------------ the module's functions

    def _failure(self, kind: type[Exception], text: str, attrs: dict[str, Any]) -> Exception:
        self.last = (text, attrs)
        return kind(text)

    def _failed(self, done: CompletedProcess) -> Exception:
        """CPython's CalledProcessError, as the RuntimeError Monty can raise."""
        text = f"Command '{done.args}' returned non-zero exit status {done.returncode}."
        attrs = {
            "returncode": done.returncode,
            "cmd": done.args,
            "output": done.stdout,
            "stdout": done.stdout,
            "stderr": done.stderr,
        }
        return self._failure(RuntimeError, text, attrs)

    def failure(self, text: str) -> dict[str, Any] | None:
        """The attributes of the last failure raised, if `text` is its message."""
        return self.last[1] if self.last is not None and self.last[0] == text else None

    def run(self, args: Any, check: bool = False, **kw: Any) -> Any:
        done = self._exec(args, **kw)
        if check and done.returncode:
            raise self._failed(done)
        return self.pm.ClassInstance(done, eager_attrs="all")

    def call(self, args: Any, **kw: Any) -> int:
        return self._exec(args, **kw).returncode

    def check_call(self, args: Any, **kw: Any) -> int:
        done = self._exec(args, **kw)
        if done.returncode:
            raise self._failed(done)
        return 0

    def check_output(self, args: Any, **kw: Any) -> Any:
        kw.pop("stdout", None)
        done = self._exec(args, stdout=PIPE, **kw)
        if done.returncode:
            raise self._failed(done)
        return done.stdout

    def getstatusoutput(self, cmd: str) -> tuple[int, str]:
        done = self._exec(cmd, shell=True, stdout=PIPE, stderr=STDOUT, text=True)
        text = done.stdout[:-1] if done.stdout.endswith("\n") else done.stdout
        return done.returncode, text

    def getoutput(self, cmd: str) -> str:
        return self.getstatusoutput(cmd)[1]

    def system(self, command: str) -> int:
        """os.system: the command's wait status (exit status << 8)."""
        return (self._exec(str(command), shell=True).returncode & 0xFF) << 8

    def popen_read(self, command: str) -> str:
        """os.popen(cmd) in read mode: what the command printed."""
        return str(self._exec(str(command), shell=True, stdout=PIPE, text=True).stdout)


def _value(stream: Stream | None, as_text: bool, encoding: str | None, errors: str | None) -> Any:
    if not isinstance(stream, BufferWriter):
        return None
    data = stream.getvalue()
    return data.decode(encoding or "utf-8", errors or "replace") if as_text else data


def _quote(s: str) -> str:
    return "'" + s.replace("'", "'\\''") + "'"
