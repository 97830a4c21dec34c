"""Runs INSIDE a box tool's bubblewrap sandbox (`contain_egress = true`), under the host's python3
with -I -S, standalone (it imports nothing of sandbash): `relay.py SOCKET -- PROGRAM ARGS...`.

The sandbox has its own network namespace with loopback only. The relay listens on its
127.0.0.1, starts PROGRAM with HTTP_PROXY/HTTPS_PROXY (both cases) pointing there and NO_PROXY
removed, and copies each connection to the Unix socket SOCKET, where sandbash's egress proxy
(egress.py, outside the sandbox) decides it. A program that ignores the proxy variables reaches
nothing. The relay holds no authority of its own: the program could reach SOCKET itself and
meet the same rules. Exits with the program's status (128+N for a signal).

Owns os, socket and subprocess: it is the program's parent inside the sandbox."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading

CHUNK = 64 * 1024
_PROXY_NAMES = ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY")
_DROPPED = frozenset({"no_proxy", "all_proxy", "ftp_proxy"})


def _copy(src: socket.socket, dst: socket.socket) -> None:
    try:
        while True:
            data = src.recv(CHUNK)
            if not data:
                break
            dst.sendall(data)
        dst.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def _relay(conn: socket.socket, path: str) -> None:
    out = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        out.connect(path)
        back = threading.Thread(target=_copy, args=(out, conn), daemon=True)
        back.start()
        _copy(conn, out)
        back.join()
    except OSError:
        pass
    finally:
        out.close()
        conn.close()


def _serve(listener: socket.socket, path: str) -> None:
    while True:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        threading.Thread(target=_relay, args=(conn, path), daemon=True).start()


def main(argv: list[str]) -> int:
    if len(argv) < 4 or argv[2] != "--":
        sys.stderr.write("usage: relay.py SOCKET -- PROGRAM [ARGS...]\n")
        return 125
    path, program = argv[1], argv[3:]
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    proxy = f"http://127.0.0.1:{listener.getsockname()[1]}"
    env = {k: v for k, v in os.environ.items() if k.lower() not in _DROPPED and k not in _PROXY_NAMES}
    env.update(dict.fromkeys(_PROXY_NAMES, proxy))
    threading.Thread(target=_serve, args=(listener, path), daemon=True).start()
    try:
        child = subprocess.Popen(program, env=env)
    except OSError as e:
        sys.stderr.write(f"{program[0]}: {e.strerror}\n")
        return 127 if isinstance(e, FileNotFoundError) else 126
    status = child.wait()
    return 128 - status if status < 0 else status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
