"""The interactive prompt `sandbash` shows when stdin is a terminal.

One `Session` for the whole visit (cwd, variables, functions persist). Line
editing and in-memory history come from the stdlib `readline` when it is
there (`input()` uses it). An incomplete construct (`if ...` without `fi`,
an open quote) asks for more lines with PS2. Ctrl-C cancels the running
command or the line being typed; `exit` or Ctrl-D leaves.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import BinaryIO

from .api import Bash, ExecResult, Session
from .errors import ExecutionCancelled, ExecutionLimitError
from .interp.prompt import expand_prompt
from .limits import CancelToken
from .syntax.errors import ParseError
from .syntax.parser import parse

DEFAULT_PS1 = "sandbash:\\w\\$ "
DEFAULT_PS2 = "> "


def needs_more(text: str) -> bool:
    """True when `text` ends inside a construct more lines could complete."""
    try:
        parse(text)
    except ParseError as e:
        return e.incomplete
    return False


class Repl:
    def __init__(self, bash: Bash, out: BinaryIO, err: BinaryIO,
                 read_line: Callable[[str], str] = input) -> None:
        self.session: Session = bash.session()
        self.out = out
        self.err = err
        self.read_line = read_line

    @property
    def exited(self) -> int | None:
        """The status of an `exit` the user ran (the prompt then ends)."""
        return self.session.exited

    def prompt(self, name: str, default: str) -> str:
        shell = self.session.shell
        return expand_prompt(shell, shell.get_str(name) or default)

    def _write(self, stream: BinaryIO) -> Callable[[bytes], None]:
        def write(data: bytes) -> None:
            stream.write(data)
            stream.flush()
        return write

    def run_one(self, text: str) -> int:
        """Run one complete input in a worker thread, so Ctrl-C can cancel it cleanly."""
        token = CancelToken()
        box: list[ExecResult | BaseException] = []
        done = threading.Event()

        def work() -> None:
            try:
                box.append(self.session.exec(text, cancel=token, on_stdout=self._write(self.out),
                                             on_stderr=self._write(self.err)))
            except BaseException as e:  # handed to the main thread as is
                box.append(e)
            finally:
                done.set()

        threading.Thread(target=work, name="sandbash-repl", daemon=True).start()
        # an Event, not Thread.join: a KeyboardInterrupt inside join can leave the thread looking finished
        while True:
            try:
                if done.wait(0.1):
                    break
            except KeyboardInterrupt:
                token.cancel()
        outcome = box[0]
        if isinstance(outcome, ExecResult):
            return outcome.exit_code
        if isinstance(outcome, ExecutionLimitError):
            self._write(self.err)(f"bash: {outcome.message}\n".encode())
            status = outcome.result.exit_code
        elif isinstance(outcome, ExecutionCancelled):
            self._write(self.err)(b"\n")
            status = 130
        else:
            raise outcome
        self.session.shell.state.last_status = status  # so the next `echo $?` shows it
        return status

    def loop(self) -> int:
        try:
            import readline  # noqa: F401  (importing it gives input() line editing and history)
        except ImportError:
            pass
        status = 0
        lines: list[str] = []
        while self.exited is None:
            try:
                line = self.read_line(self.prompt("PS2", DEFAULT_PS2) if lines else self.prompt("PS1", DEFAULT_PS1))
            except EOFError:
                self._write(self.out)(b"exit\n")
                break
            except KeyboardInterrupt:
                self._write(self.out)(b"^C\n")
                lines.clear()
                continue
            lines.append(line)
            text = "\n".join(lines)
            if needs_more(text):
                continue
            lines.clear()
            if text.strip():
                status = self.run_one(text)
        return self.exited if self.exited is not None else status


def interact(bash: Bash, out: BinaryIO, err: BinaryIO) -> int:
    return Repl(bash, out, err).loop()
