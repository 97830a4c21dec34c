"""The bash/sh/zsh alias: sends one command to the box's shell service and streams its output back.

It is on the agent's hot path, so it imports only os, sys and the C socket module (`_socket`: the
`socket` wrapper imports enum and selectors, `json` imports re; together they cost more than the
rest of the start-up). `sandbash install-alias DIR --socket PATH` writes `bash`, `sh` and `zsh`
scripts that load this file directly, not through the `sandbash` package (whose import loads the
interpreter). Owns a socket (the client end) and os (its environment, the scripts' mode).

Protocol (service.py): the request is one JSON line, `{"command": TEXT}` or `{"script": PATH}`,
then the client's stdin in frames; the answer is frames. A frame is a tag byte (`i` stdin, `o`
stdout, `e` stderr, `s` status), a 4-byte big-endian length and that many bytes; an empty `i` ends
stdin, `s` carries the status in ASCII and ends the answer."""

from __future__ import annotations

import _socket
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

USAGE = "Shell alias accepts only -c COMMAND, -lc COMMAND, -c -l COMMAND, or SCRIPT."
NAMES = ("bash", "sh", "zsh")
# a JSON string's escapes: quote, backslash, control characters, and the lone surrogates that
# stand for undecodable bytes of an argument (the service encodes them back with surrogateescape)
_ESCAPES = {c: f"\\u{c:04x}" for c in (*range(0x20), *range(0xDC80, 0xDD00))} | {0x22: '\\"', 0x5C: "\\\\"}


def parse_form(args: list[str]) -> tuple[str, str] | None:
    """("command", TEXT) or ("script", PATH) for the accepted forms (`-c C`, `-lc C`, `-c -l C`,
    `-l -c C`, `SCRIPT`), else None."""
    if (
        len(args) == 2 and args[0] in ("-c", "-lc") and not args[1].startswith("-")
    ):  # bash reads `-l` as an option
        return "command", args[1]
    if len(args) == 3 and args[:2] in (["-c", "-l"], ["-l", "-c"]):
        return "command", args[2]
    if len(args) == 1 and args[0] and not args[0].startswith("-"):
        return "script", args[0]
    return None


def encode_request(key: str, text: str) -> bytes:
    """The request line (JSON without the json module)."""
    return ('{"' + key + '": "' + text.translate(_ESCAPES) + '"}\n').encode("utf-8")


def frames(sock: _socket.socket) -> Iterator[tuple[bytes, bytes]]:
    """(tag, payload) for each frame of the answer, until the connection ends."""
    buf = b""
    while True:
        while len(buf) >= 5 and len(buf) >= 5 + int.from_bytes(buf[1:5], "big"):
            size = int.from_bytes(buf[1:5], "big")
            yield buf[:1], buf[5 : 5 + size]
            buf = buf[5 + size :]
        data = sock.recv(65536)
        if not data:
            return
        buf += data


def main(argv: list[str] | None = None, socket_path: str | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    request = parse_form(args)
    if request is None:
        sys.stderr.write(USAGE + "\n")
        return 2
    path = os.environ.get("SANDBASH_SOCKET") or socket_path
    if not path:
        sys.stderr.write("sandbash-alias: no shell service socket (set SANDBASH_SOCKET)\n")
        return 125
    try:
        return _call(path, encode_request(*request))
    except OSError as e:
        sys.stderr.write(f"sandbash-alias: cannot reach the shell service at {path}: {e.strerror or e}\n")
        return 125


def _call(path: str, request: bytes) -> int:
    """Send the request, then forward stdin (frames `i`, an empty one at its end) while the answer's
    frames are written out; stdin is sent only as fast as the service takes it (no deadlock with a
    command that does not read it)."""
    import select  # a C module: cheap

    out, err = sys.stdout.buffer, sys.stderr.buffer
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.connect(path)
        sock.sendall(request)
        stdin: int | None = _stdin_fd()
        pending = b"" if stdin is not None else _frame(b"i", b"")
        buf = b""
        while True:
            readers = [sock] + ([stdin] if stdin is not None and not pending else [])
            readable, writable, _ = select.select(readers, [sock] if pending else [], [])
            if stdin in readable:
                data = _read_stdin(stdin)
                pending = _frame(b"i", data)
                if not data:
                    stdin = None
            if writable and pending:
                try:
                    pending = pending[sock.send(pending) :]
                except OSError:  # the command ended: it does not want the rest
                    pending, stdin = b"", None
            if sock in readable:
                data = sock.recv(65536)
                if not data:
                    break
                buf += data
                while len(buf) >= 5 and len(buf) >= 5 + int.from_bytes(buf[1:5], "big"):
                    size = int.from_bytes(buf[1:5], "big")
                    tag, payload, buf = buf[:1], buf[5 : 5 + size], buf[5 + size :]
                    if tag == b"s":
                        return int(payload)
                    stream = out if tag == b"o" else err
                    stream.write(payload)
                    stream.flush()
    finally:
        sock.close()
    sys.stderr.write("sandbash-alias: the shell service closed the connection\n")
    return 125


def _frame(tag: bytes, data: bytes) -> bytes:
    return tag + len(data).to_bytes(4, "big") + data


def _stdin_fd() -> int | None:
    """Our stdin's descriptor when it may carry data (not a terminal, not closed)."""
    try:
        return None if os.isatty(0) else (0 if os.fstat(0) else None)
    except OSError:
        return None


def _read_stdin(fd: int) -> bytes:
    try:
        return os.read(fd, 65536)
    except OSError:
        return b""


def install(directory: str, socket_path: str, python: str | None = None) -> list[str]:
    """Write `bash`, `sh` and `zsh` into `directory`, bound to `socket_path`; returns their paths."""
    here = os.path.dirname(os.path.abspath(__file__))
    body = (
        "#!{python} -S\n"
        "# sandbash box alias: one command per call to the shell service (SANDBASH_SOCKET overrides)\n"
        "import sys\nsys.path.insert(0, {here!r})\nimport alias\n"
        "sys.exit(alias.main(sys.argv[1:], {sock!r}))\n"
    )
    os.makedirs(directory, exist_ok=True)
    written = []
    for name in NAMES:
        target = os.path.join(directory, name)
        with open(target, "w") as f:
            f.write(
                body.format(python=python or sys.executable, here=here, sock=os.path.abspath(socket_path))
            )
        os.chmod(target, 0o755)
        written.append(target)
    return written


INSTALL_USAGE = "usage: sandbash install-alias DIR --socket PATH\n"
INSTALL_HELP = (
    INSTALL_USAGE
    + """
Box mode: write the `bash`, `sh` and `zsh` alias scripts into DIR (made if missing; put it first on
the agent's PATH). Each sends its command to the shell service (`sandbash serve`) listening on the
Unix socket PATH and prints what it answers, with its exit status. Prints the files written.

options:
  --socket PATH  the service's socket (stored in the scripts as an absolute path)
  -h, --help     show this help message and exit
"""
)


def install_main(argv: list[str]) -> int:
    """`sandbash install-alias DIR --socket PATH`."""
    if argv in (["-h"], ["--help"]):
        sys.stdout.write(INSTALL_HELP)
        return 0
    if len(argv) != 3 or argv[1] != "--socket" or not argv[0] or not argv[2]:
        sys.stderr.write(INSTALL_USAGE + "Try 'sandbash install-alias --help' for more information.\n")
        return 2
    try:
        for path in install(argv[0], argv[2]):
            sys.stdout.write(path + "\n")
    except OSError as e:
        sys.stderr.write(f"sandbash install-alias: {argv[0]}: {e.strerror or e}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
