"""The interactive prompt, driven through a pseudo-terminal like a person would."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import subprocess
import sys
import termios
import time
from collections.abc import Iterator

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")


def _take_terminal() -> None:
    """In the child: a new session whose controlling terminal is the pty, so Ctrl-C sends SIGINT."""
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class Terminal:
    def __init__(self, *args: str) -> None:
        master, slave = pty.openpty()
        env = {**os.environ, "TERM": "dumb", "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "sandbash", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            close_fds=True,
            preexec_fn=_take_terminal,
        )
        os.close(slave)
        self.fd = master
        self.seen = b""

    def expect(self, text: bytes, timeout: float = 20) -> bytes:
        """Read until `text` appears; returns everything read so far."""
        deadline = time.monotonic() + timeout
        while text not in self.seen:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"did not see {text!r}; saw {self.seen[-500:]!r}")
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.fd, 4096)
                except OSError:  # the child closed the terminal
                    chunk = b""
                if not chunk:
                    raise AssertionError(f"terminal closed before {text!r}; saw {self.seen[-500:]!r}")
                self.seen += chunk
        at = self.seen.index(text) + len(text)
        before, self.seen = self.seen[:at], self.seen[at:]
        return before

    def send(self, line: str) -> None:
        os.write(self.fd, line.encode() + b"\r")

    def close(self) -> int:
        try:
            return self.proc.wait(timeout=20)
        finally:
            os.close(self.fd)


@pytest.fixture
def term() -> Iterator[Terminal]:
    t = Terminal()
    yield t
    if t.proc.poll() is None:
        t.proc.kill()
        t.proc.wait()


def test_type_a_command_see_its_output_and_exit(term: Terminal) -> None:
    term.expect(b"sandbash:~$ ")
    term.send("echo $((6 * 7)) | tr 4 X")
    assert b"X2" in term.expect(b"sandbash:~$ ")
    term.send("exit 3")
    assert term.close() == 3


def test_state_persists_and_continuation_prompt(term: Terminal) -> None:
    term.expect(b"$ ")
    term.send("cd /tmp; greet() { echo hi $1; }")
    term.expect(b"sandbash:/tmp$ ")
    term.send("for i in 1 2; do")
    term.expect(b"> ")
    term.send("greet $i")
    term.expect(b"> ")
    term.send("done")
    out = term.expect(b"sandbash:/tmp$ ")
    assert b"hi 1" in out and b"hi 2" in out
    term.send("nosuchcmd")
    assert b"nosuchcmd: command not found" in term.expect(b"$ ")
    term.send("echo $?")
    assert b"127" in term.expect(b"$ ")
    os.write(term.fd, b"\x04")  # Ctrl-D leaves like exit
    term.expect(b"exit")
    assert term.close() == 0


def test_ctrl_c_cancels_a_running_command(term: Terminal) -> None:
    term.expect(b"$ ")
    term.send("sleep 30; echo not-reached")
    time.sleep(0.5)
    os.write(term.fd, b"\x03")
    out = term.expect(b"$ ", timeout=10)
    assert b"not-reached" not in out.split(b"\n", 1)[1]  # past the echoed command line
    term.send("echo $?")
    assert b"130" in term.expect(b"$ ")
    term.send("exit")
    assert term.close() == 0


def test_here_document_continues_with_the_secondary_prompt(term: Terminal) -> None:
    term.expect(b"sandbash:~$ ")
    term.send("cat <<EOF | tr a-z A-Z")
    term.expect(b"> ")
    term.send("one $((1+1))")
    term.expect(b"> ")
    term.send("EOF")
    assert b"ONE 2" in term.expect(b"sandbash:~$ ")
    # two here-documents on one line: the prompt waits for both delimiters
    term.send("cat <<A - <<B")
    term.expect(b"> ")
    term.send("first")
    term.expect(b"> ")
    term.send("A")
    term.expect(b"> ")
    term.send("B")
    term.expect(b"sandbash:~$ ")
    term.send("exit")
    assert term.close() == 0


def test_trailing_backslash_continues_the_line(term: Terminal) -> None:
    term.expect(b"sandbash:~$ ")
    term.send("echo one \\")
    term.expect(b"> ")
    term.send("two; echo 'a\\\\'")
    out = term.expect(b"sandbash:~$ ")
    assert b"one two" in out and b"a\\\\" in out
    term.send("echo x \\\\")  # an escaped backslash ends the line
    assert b"x \\" in term.expect(b"sandbash:~$ ")
    term.send("exit")
    assert term.close() == 0


def _tab(term: Terminal, typed: str) -> None:
    os.write(term.fd, typed.encode() + b"\t")


def test_tab_completes_commands_variables_and_paths(term: Terminal) -> None:
    term.expect(b"sandbash:~$ ")
    term.send("mkdir -p proj/sub && echo data > proj/notes.txt; greet_me() { echo hi $1; }; ZVAR_ONE=42")
    term.expect(b"sandbash:~$ ")
    _tab(term, "greet_")  # a function
    os.write(term.fd, b"you\r")
    assert b"hi you" in term.expect(b"sandbash:~$ ")
    _tab(term, "ech")  # a builtin
    _tab(term, "o $ZVAR_")  # a variable
    os.write(term.fd, b"\r")
    assert b"42" in term.expect(b"sandbash:~$ ")
    _tab(term, "cat pro")  # a directory, then a file in it
    _tab(term, "no")
    os.write(term.fd, b"\r")
    assert b"data" in term.expect(b"sandbash:~$ ")
    _tab(
        term, "wc -c /usr/bin/wh"
    )  # a command in /usr/bin (whoami, which: list both, complete the common part)
    _tab(term, "oa")
    os.write(term.fd, b"\r")
    out = term.expect(b"sandbash:~$ ")
    assert b"/usr/bin/whoami" in out
    _tab(term, "xarg")  # a command in PATH
    os.write(term.fd, b"echo via xargs\r")
    assert b"via xargs" in term.expect(b"sandbash:~$ ")
    term.send("exit")
    assert term.close() == 0


def test_bash_options_given_on_the_command_line_hold_at_the_prompt() -> None:
    t = Terminal("-x", "-o", "pipefail")
    try:
        t.expect(b"sandbash:~$ ")
        t.send("false | true; echo status=$?")
        out = t.expect(b"sandbash:~$ ")
        assert b"+ false\r\n" in out and b"+ true\r\n" in out and b"status=1" in out
        t.send("exit")
        assert t.close() == 0
    finally:
        if t.proc.poll() is None:
            t.proc.kill()
            t.proc.wait()


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("ls /tmp/a", ["/tmp/a\\ b/"]),  # a name with a space comes back escaped
        ("ls /tmp/a\\ ", ["b/"]),  # readline starts its word after the escaped space
        ("ls /tmp/a\\ b/f", ["b/f\\(x\\)\\$y ", "b/file\\ one "]),
        ("cat /tmp/a\\ b/f\\(", ["x\\)\\$y "]),
        ("ls /tmp/a\\ b/n", []),
        ("ls '/tmp/a", ["/tmp/a b/"]),  # inside quotes a name is written as it is
        ("ls '/tmp/a b/fi", ["b/file one' "]),  # and a finished one closes the quote
        ('ls "/tmp/a b/f(', ['x)$y" ']),
        ("echo 'x' ec", []),  # not a command position
        ("echo $ZV", ["$ZVAR "]),
        ("ec", ["echo "]),
        ("cat x; ec", ["echo "]),
    ],
)
def test_completion_escapes_special_characters_as_bash_does(line: str, expected: list[str]) -> None:
    from sandbash import Bash
    from sandbash.cli.repl import Completer

    session = Bash().session()
    session.exec("mkdir -p '/tmp/a b'; touch '/tmp/a b/file one' '/tmp/a b/f(x)$y'; ZVAR=1")
    begin = max(line.rfind(c) for c in Completer.DELIMS) + 1  # where readline's word starts
    assert Completer(session).for_readline(line, begin, len(line)) == expected


def test_tab_completes_a_path_with_a_space(term: Terminal) -> None:
    term.expect(b"sandbash:~$ ")
    term.send("mkdir -p 'my dir'; echo inside > 'my dir/note'")
    term.expect(b"sandbash:~$ ")
    _tab(term, "cat my")
    _tab(term, "no")
    os.write(term.fd, b"\r")
    assert b"inside" in term.expect(b"sandbash:~$ ")
    term.send("exit")
    assert term.close() == 0
