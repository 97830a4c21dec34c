"""`sandbash serve --socket PATH --config box.toml`: the shell service. One process, a thread per
connection, each request one command in its own run (BoxRunner).

The protocol: the client sends one JSON line, `{"command": TEXT}` or `{"script": PATH}`, then its
stdin in frames (tag `i`, 4-byte big-endian length, the bytes; an empty one ends it); the service
answers with length-framed chunks as the output is produced: a tag byte (`o` stdout, `e`
stderr), a 4-byte big-endian length and the bytes; then `s` with the status in ASCII. A failure
of the service itself is status 125. (alias.py is the client.) The connection's end is the
client's end: closing it, even only for writing, cancels the command.

Owns a socket (the listening end) and os/open (the socket file, the config file)."""

from __future__ import annotations

import json
import os
import queue
import socket
import sys
import threading
from collections.abc import Callable

from ..limits import CancelToken
from ..stdio.hostin import HostInput
from .config import BoxConfig, BoxConfigError, parse_config
from .runner import BoxRunner

MAX_CONNECTIONS = 64
REQUEST_TIMEOUT = 60.0


def load_config(path: str, socket_path: str) -> BoxConfig:
    """Read box.toml; the config file and the socket are the box's own paths (never reachable)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return parse_config(text, (os.path.abspath(path), os.path.abspath(socket_path)))


class BoxServer:
    """The listening socket and its connection threads (`serve_forever`, or `start` in a thread)."""

    def __init__(self, runner: BoxRunner, socket_path: str) -> None:
        self.runner = runner
        self.path = socket_path
        if os.path.exists(socket_path):
            os.unlink(socket_path)  # a stale socket of a service that is gone
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(socket_path)
        os.chmod(socket_path, 0o600)  # only the operator's user (and the agent running as it) connects
        self.sock.listen(MAX_CONNECTIONS)
        self.slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self.closed = False

    def start(self) -> threading.Thread:
        thread = threading.Thread(target=self.serve_forever, daemon=True, name="sandbash-box")
        thread.start()
        return thread

    def serve_forever(self) -> None:
        while not self.closed:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                break  # closed
            self.slots.acquire()
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def close(self) -> None:
        self.closed = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
        try:
            os.unlink(self.path)
        except OSError:
            pass

    def _serve(self, conn: socket.socket) -> None:
        lock = threading.Lock()
        gone = CancelToken()  # the client went away: its command stops at its next check

        def send(tag: bytes, data: bytes) -> None:
            with lock:
                if gone.cancelled:
                    return
                try:
                    conn.sendall(tag + len(data).to_bytes(4, "big") + data)
                except OSError:
                    gone.cancel()

        try:
            with conn:
                conn.settimeout(REQUEST_TIMEOUT)  # a client that never finishes its request
                status = self._answer(conn, send, gone)
                send(b"s", str(status).encode())
        except OSError:
            pass  # the client went away: its command has ended or will end at its deadline
        finally:
            self.slots.release()

    def _answer(self, conn: socket.socket, send: Callable[[bytes, bytes], None], gone: CancelToken) -> int:
        limits = self.runner.config.limits

        def chunk(tag: bytes) -> Callable[[bytes], None]:
            return lambda data: send(tag, data)

        line, rest = _read_line(
            conn, limits.max_command_bytes * 6 + 1024
        )  # JSON escapes: at most 6 bytes each
        conn.settimeout(None)
        if line is None:
            send(b"e", f"{limits.prefix}: input too large\n".encode())
            return 1
        try:
            request = json.loads(line)
            command, script = request.get("command"), request.get("script")
            if not isinstance(command, str) and not isinstance(script, str):
                raise ValueError("no command")
        except (ValueError, AttributeError):
            send(b"e", b"sandbash: box: malformed request\n")
            return 125
        stdin = ClientStdin()
        # the client's stdin frames go to the run's stdin; the connection's end cancels the run
        threading.Thread(target=_pump_stdin, args=(conn, rest, stdin, gone), daemon=True).start()
        try:
            if isinstance(script, str):
                return self.runner.run(
                    "", chunk(b"o"), chunk(b"e"), script_path=script, cancel=gone, stdin=stdin
                )
            return self.runner.run(command, chunk(b"o"), chunk(b"e"), cancel=gone, stdin=stdin)
        except OSError:
            raise
        except Exception as e:  # a service failure answers 125, never a traceback
            send(b"e", f"sandbash: box: internal error ({type(e).__name__})\n".encode())
            return 125
        finally:
            stdin.closed = True  # a late reader (a host program's feeder) gets end of input


class ClientStdin(HostInput):
    """The run's stdin: the chunks the client sends, handed over by the connection's reader (a
    HostInput, so that a read waits only as long as the run's deadline and cancellation allow)."""

    def __init__(self) -> None:
        super().__init__(-1)
        self._queue: queue.Queue[bytes] = queue.Queue(maxsize=16)  # bounded: a flood waits for the run
        self.closed = False
        self._left = b""

    @property
    def holds_data(self) -> bool:
        return True

    def _fill(self, n: int) -> bytes:
        while not self._left:
            if self._eof or self.closed:
                return b""
            if self.checkpoint is not None:
                self.checkpoint()
            try:
                self._left = self._queue.get(timeout=0.05)
            except queue.Empty:
                continue
            if not self._left:
                self._eof = True
                return b""
        data, self._left = self._left[:n], self._left[n:]
        return data

    def put(self, data: bytes) -> None:
        """Queue a chunk (b"": end of input), waiting while the run has not read the earlier ones;
        dropped once the run is over."""
        while not self.closed:
            try:
                self._queue.put(data, timeout=0.1)
                return
            except queue.Full:
                continue


def _pump_stdin(conn: socket.socket, rest: bytes, stdin: ClientStdin, gone: CancelToken) -> None:
    """Copy the client's `i` frames to the run's stdin (an empty one ends it); when the connection
    ends, the client has gone: cancel its run."""
    buf = rest
    try:
        while True:
            while len(buf) >= 5 and len(buf) >= 5 + int.from_bytes(buf[1:5], "big"):
                size = int.from_bytes(buf[1:5], "big")
                stdin.put(buf[5 : 5 + size])
                buf = buf[5 + size :]
            more = conn.recv(65536)
            if not more or len(buf) > (1 << 20):  # gone, or not frames of ours
                break
            buf += more
    except OSError:
        pass
    finally:
        stdin.put(b"")
        gone.cancel()


def _read_line(conn: socket.socket, cap: int) -> tuple[bytes | None, bytes]:
    """The request line and what followed it; the line is None when it is longer than `cap` (the
    rest is read and dropped, so the client can finish sending and read the answer)."""
    buf = bytearray()
    over = False
    while True:
        data = conn.recv(65536)
        if not data:
            return (None if over else bytes(buf)), b""
        end = data.find(b"\n")
        if not over:
            buf += data if end < 0 else data[:end]
            over = len(buf) > cap
            if over:
                buf.clear()
        if end >= 0:
            return (None if over else bytes(buf)), data[end + 1 :]


USAGE = "usage: sandbash serve --socket PATH --config box.toml\n"
HELP = (
    USAGE
    + """
Box mode's shell service: runs each command the bash/sh/zsh alias sends (one run each, in the
workspace, with the tools and limits the configuration describes) and streams its output back.
Runs until interrupted or terminated. See the README's "Box mode" section.

options:
  --socket PATH  the Unix socket to listen on (made at start; its directory must exist)
  --config FILE  the box configuration (TOML: workspace, [tool.<name>] tables, limits)
  -h, --help     show this help message and exit
"""
)


def main(argv: list[str]) -> int:
    """`sandbash serve --socket PATH --config box.toml`."""
    if argv in (["-h"], ["--help"]):
        sys.stdout.write(HELP)
        return 0
    opts = dict(zip(argv[::2], argv[1::2], strict=False))
    if len(argv) != 4 or set(opts) != {"--socket", "--config"}:
        sys.stderr.write(USAGE + "Try 'sandbash serve --help' for more information.\n")
        return 2
    try:
        config = load_config(opts["--config"], opts["--socket"])
        server = BoxServer(BoxRunner(config), opts["--socket"])
    except BoxConfigError as e:
        sys.stderr.write(f"sandbash serve: {e}\n")
        return 2
    except OSError as e:
        sys.stderr.write(f"sandbash serve: {e.filename or opts['--socket']}: {e.strerror or e}\n")
        return 1
    sys.stderr.write(f"sandbash serve: listening on {opts['--socket']}\n")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    return 0
