"""The interactive prompt `sandbash` shows when stdin is a terminal.

One `Session` for the whole visit (cwd, variables, functions persist). Line
editing and in-memory history come from the stdlib `readline` when it is
there (`input()` uses it). An incomplete construct (`if ...` without `fi`,
an open quote) asks for more lines with PS2. Ctrl-C cancels the running
command or the line being typed; `exit` or Ctrl-D leaves.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import BinaryIO

from ..api import Bash, ExecResult, Session, set_shell_options
from ..errors import ExecutionCancelled, ExecutionLimitError
from ..interp.prompt import expand_prompt
from ..limits import CancelToken
from ..syntax.errors import ParseError
from ..syntax.parser import Parser
from ..vfs.errors import FsError

DEFAULT_PS1 = "sandbash:\\w\\$ "
DEFAULT_PS2 = "> "


def needs_more(text: str) -> bool:
    """True when `text` ends inside a construct more lines could complete, as bash's prompt
    decides: an open quote or compound command, a here-document whose delimiter has not come
    yet, or a last line ending in a backslash (a line continuation)."""
    parser = Parser(text)
    try:
        parser.parse_all()
    except ParseError as e:
        return e.incomplete
    if any("here-document" in message for _, message in parser.warnings):
        return True
    last = text.rsplit("\n", 1)[-1]
    trailing = len(last) - len(last.rstrip("\\"))
    return trailing % 2 == 1 and not last.lstrip().startswith("#")


# a word after one of these (or at the start of the line) is a command name
_COMMAND_AFTER = frozenset(
    {
        "if",
        "then",
        "else",
        "elif",
        "while",
        "until",
        "do",
        "!",
        "time",
        "{",
        "exec",
        "command",
        "builtin",
        "xargs",
        "env",
        "nohup",
        "timeout",
        "nice",
    }
)


class Completer:
    """Tab completion over the session's sandbox: command names (builtins, keywords, aliases,
    functions and the commands in PATH), `$VARIABLE`s, and paths in the virtual filesystem."""

    DELIMS = " \t\n\"'`;|&()<>="

    def __init__(self, session: Session) -> None:
        self.session = session
        self._matches: list[str] = []

    def complete(self, text: str, state: int) -> str | None:
        """The readline completer protocol: the `state`-th match for `text`."""
        if state == 0:
            import readline

            line = readline.get_line_buffer()
            self._matches = self.for_readline(line, readline.get_begidx(), readline.get_endidx())
        return self._matches[state] if state < len(self._matches) else None

    def for_readline(self, line: str, begin: int, end: int) -> list[str]:
        """What replaces line[begin:end]. Readline splits words at every delimiter, even an escaped
        one (`a\\ b`), so the word is found again here with bash's backslash rule, completed whole,
        and each match returned from `begin` on."""
        start, quote = word_start(line, end)
        if start > begin:
            return []
        typed = line[start:begin]
        word = line[start:end] if quote == "'" else _unescape(line[start:end])
        try:
            found = self.candidates(line[: start - len(quote)], word)
        except Exception:  # completion must never break the prompt
            found = []
        if quote:  # inside quotes a name is written as it is, and a finished one closes the quote
            found = [_unescape(m) for m in found]
        # as bash: a completed word gets a space, a directory its slash (Python's readline adds nothing)
        return [
            m[len(typed) :] + ("" if m.endswith("/") else quote + " ") for m in found if m.startswith(typed)
        ]

    def candidates(self, before: str, text: str) -> list[str]:
        """Completions of `text`, the word being typed after `before` on the line."""
        sh = self.session.shell
        if text.startswith("${"):
            return [f"${{{n}}}" for n in sorted(set(sh.var_names())) if n.startswith(text[2:])]
        if text.startswith("$"):
            return [f"${n}" for n in sorted(set(sh.var_names())) if n.startswith(text[1:])]
        if "/" not in text and self._command_position(before):
            return self._commands(text)
        return self._paths(text)

    @staticmethod
    def _command_position(before: str) -> bool:
        head = before.rstrip()
        if not head or head[-1] in ";|&(`{":
            return True
        return head.split()[-1] in _COMMAND_AFTER

    def _commands(self, prefix: str) -> list[str]:
        from ..builtins import BUILTINS
        from ..builtins.compgen import path_programs
        from ..builtins.core import _KEYWORDS

        st = self.session.shell.state
        names = set(BUILTINS) | set(_KEYWORDS) | set(st.aliases) | set(st.functions)
        names.update(path_programs(self.session.shell, prefix))
        return sorted(n for n in names if n.startswith(prefix))

    def _paths(self, text: str) -> list[str]:
        sh = self.session.shell
        fs = sh.state.fs
        directory, _, base = text.rpartition("/")
        where = directory if text.count("/") else "."
        if text.startswith("/") and not directory:
            where = "/"
        if where.startswith("~"):
            where = (sh.get_str("HOME") or "/") + where[1:]
        try:
            entries = fs.listdir(where)
        except FsError:
            return []
        head = text[: len(text) - len(base)]
        out: list[str] = []
        for name in sorted(entries):
            if not name.startswith(base) or (name.startswith(".") and not base.startswith(".")):
                continue
            out.append(escape_word(head + name) + ("/" if fs.is_dir(where.rstrip("/") + "/" + name) else ""))
        return out


# characters a completed path has backslash-escaped, as bash's completion writes them
_SPECIAL = frozenset(" \t\n\"'`;|&()<>=$*?[]{}!#\\")


def escape_word(text: str) -> str:
    return "".join("\\" + c if c in _SPECIAL else c for c in text)


def _unescape(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            i += 1
        out.append(text[i])
        i += 1
    return "".join(out)


def word_start(line: str, end: int) -> tuple[int, str]:
    """Where the word ending at `end` starts (after the last delimiter that no backslash escapes and
    no quote holds), and the quote still open there ('' when none)."""
    start = i = 0
    quote = ""
    while i < end:
        c = line[i]
        if quote:
            if c == quote:
                quote = ""
            elif c == "\\" and quote == '"':
                i += 1
        elif c == "\\":
            i += 1
        elif c in "'\"":
            quote, start = c, i + 1
        elif c in Completer.DELIMS:
            start = i + 1
        i += 1
    return min(start, end), quote


class Repl:
    def __init__(
        self, bash: Bash, out: BinaryIO, err: BinaryIO, read_line: Callable[[str], str] = input
    ) -> None:
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
                box.append(
                    self.session.exec(
                        text, cancel=token, on_stdout=self._write(self.out), on_stderr=self._write(self.err)
                    )
                )
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

    def _setup_readline(self) -> None:
        """Line editing, history and Tab completion, when the stdlib readline is there."""
        try:
            import readline  # importing it gives input() line editing and history
        except ImportError:
            return
        readline.set_completer(Completer(self.session).complete)
        readline.set_completer_delims(Completer.DELIMS)
        if "libedit" in (readline.__doc__ or ""):
            readline.parse_and_bind("bind ^I rl_complete")
        else:
            readline.parse_and_bind("tab: complete")

    def loop(self) -> int:
        self._setup_readline()
        status = 0
        lines: list[str] = []
        while self.exited is None:
            try:
                line = self.read_line(
                    self.prompt("PS2", DEFAULT_PS2) if lines else self.prompt("PS1", DEFAULT_PS1)
                )
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


def interact(bash: Bash, out: BinaryIO, err: BinaryIO, options: Mapping[str, bool] | None = None) -> int:
    """The prompt; `options` are set -o / shopt names turned on or off first (`sandbash -x`)."""
    repl = Repl(bash, out, err)
    set_shell_options(repl.session.shell.state, options or {})
    return repl.loop()
