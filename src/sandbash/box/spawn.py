"""The one place sandbash starts host programs (box mode, and only for a configured `[tool.<name>]`
table): the program runs under bubblewrap with only the table's paths bound, a fresh /tmp, no
network unless the table allows it, in its own pid namespace, killed whole at the deadline. Its
output is streamed back into the pipeline stage that ran it.

Owns os, subprocess and signal (SIGKILL to the sandbox's init) for this purpose (tests/security/test_no_host_access.py)."""

from __future__ import annotations

import os
import queue
import re
import secrets
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, TypeVar

from ..host.elevation import SECURE_PATH as HOST_PATH
from ..limits import Cancelled, DeadlineExpired, LimitExceeded
from .config import ToolTable

CHUNK = 64 * 1024
T = TypeVar("T")
# the program's own installation and the /etc files programs expect (read-only)
_SYSTEM = ("/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin")
_ETC = (
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/hosts",
    "/etc/resolv.conf",
    "/etc/localtime",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/gitconfig",
    "/etc/mime.types",
)
RELAY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "egress_relay.py")
RELAY_DIR = "/run/sandbash"  # inside the sandbox: the relay and the proxy's socket
LIST_CAP = 10_000  # names a `list` grant shows (each is an empty file or directory made on the host)
_probe: dict[str, str | None] = {}


class SpawnUnavailable(Exception):
    """bwrap is missing or cannot make a sandbox here (no user namespaces): status 125."""


def resolve_program(name: str, path: str = HOST_PATH) -> str | None:
    """The real path of the host program `name` (a path, or searched on `path`), or None."""
    candidates = [name] if "/" in name else [d.rstrip("/") + "/" + name for d in path.split(":") if d]
    for c in candidates:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return os.path.realpath(c)
    return None


def host_kind(path: str) -> str:
    """'dir', 'file' or '' (missing) for a host path named in a table."""
    return "dir" if os.path.isdir(path) else "file" if os.path.exists(path) else ""


def bwrap_path() -> str:
    """bwrap's path once it has been seen to work here; SpawnUnavailable with why not."""
    if "bwrap" not in _probe:
        found = resolve_program("bwrap")
        why = None
        if found is None:
            why = "bubblewrap (bwrap) is not installed: host programs cannot run contained"
        else:
            try:
                done = subprocess.run(
                    [found, "--ro-bind", "/", "/", "--unshare-pid", "--", "/bin/true"],
                    stdin=subprocess.DEVNULL,
                    capture_output=True,
                    timeout=10,
                )
                if done.returncode != 0:
                    err = done.stderr.decode("utf-8", "replace").strip()
                    why = f"bubblewrap cannot create a sandbox here (user namespaces off?): {err}"
            except (OSError, subprocess.TimeoutExpired) as e:
                why = f"bubblewrap cannot run: {e}"
        _probe["bwrap"] = found if why is None else None
        _probe["why"] = why
    found = _probe["bwrap"]
    if found is None:
        raise SpawnUnavailable(_probe["why"] or "bubblewrap is unavailable")
    return found


@dataclass(frozen=True)
class Sandbox:
    """Where the program runs: the agent's workspace and home (host paths) and its cwd there."""

    workspace: str
    home: str
    cwd: str


class Staging:
    """A host directory private to one spawn (mode 0700, removed by `close`): what a `list` grant
    shows instead of the directory itself, the directory's names as empty files and empty
    directories, so the program can list it and read nothing in it."""

    def __init__(self, base: str | None = None) -> None:
        root = base or os.environ.get("TMPDIR") or "/tmp"
        self.path = os.path.join(root, f"sandbash-box-{secrets.token_hex(8)}")
        try:
            os.mkdir(self.path, 0o700)
        except OSError as e:
            raise SpawnUnavailable(
                f"cannot make the sandbox's staging directory in {root}: {e.strerror}"
            ) from None
        self._count = 0

    def listing(self, directory: str, inside: Sequence[str]) -> str:
        """A copy of `directory`'s names (at most LIST_CAP); `inside`: the other grants and masks
        under it, whose mount points must exist in the copy (as directories, or empty files)."""
        self._count += 1
        copy = os.path.join(self.path, str(self._count))
        os.mkdir(copy, 0o755)
        try:
            with os.scandir(directory) as entries:
                for n, entry in enumerate(entries):
                    if n >= LIST_CAP:
                        raise SpawnUnavailable(f"{directory}: a list grant shows at most {LIST_CAP} entries")
                    _empty(os.path.join(copy, entry.name), entry.is_dir(follow_symlinks=False), 0)
            for path in inside:  # mount points: the directories on the way to them can be passed, not read
                parts = path[len(directory) :].strip("/").split("/")
                for i in range(1, len(parts)):
                    _empty(os.path.join(copy, *parts[:i]), True, 0o111)
                    os.chmod(os.path.join(copy, *parts[:i]), 0o111)
                _empty(os.path.join(copy, *parts), host_kind(path) == "dir", 0)
        except OSError as e:
            raise SpawnUnavailable(f"{directory}: cannot list it for a list grant: {e.strerror}") from None
        return copy

    def file(self, name: str) -> str:
        """A path in the staging directory (the egress proxy's socket)."""
        return os.path.join(self.path, name)

    def close(self) -> None:
        try:
            _remove_tree(self.path)
        except OSError:
            pass  # already gone, or changed under us: a leftover directory of empty files, not a failure


def _empty(path: str, directory: bool, mode: int) -> None:
    """An empty directory or an empty file at `path` with `mode` (0: the program, holding no
    capabilities, can neither read nor enter it), unless something is there already."""
    if os.path.lexists(path):
        return
    if directory:
        os.mkdir(path, 0o700)
    else:
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY | os.O_EXCL, 0o600))
    os.chmod(path, mode)


def _remove_tree(path: str) -> None:
    """Remove a staging tree (its directories are made readable first: some are mode 0)."""
    os.chmod(path, 0o700)
    with os.scandir(path) as entries:
        for entry in list(entries):
            if entry.is_dir(follow_symlinks=False):
                _remove_tree(entry.path)
            else:
                os.unlink(entry.path)
    os.rmdir(path)


def relay_python() -> tuple[str, tuple[str, ...]]:
    """The interpreter the egress relay runs on inside the sandbox, and the host paths it needs
    bound (none for the system's python3 under /usr, which is bound already)."""
    system = resolve_program("python3", "/usr/bin:/bin")
    if system is not None and system.startswith("/usr/"):
        return system, ()
    exe, prefix = os.path.realpath(sys.executable), os.path.realpath(sys.base_prefix)
    if exe.startswith(prefix + "/"):
        return exe, (prefix,)
    raise SpawnUnavailable(
        "contain_egress needs a python3 for the sandbox's egress relay, and none was found"
    )


def _relay(egress: str) -> tuple[list[tuple[str, str, str]], list[str]]:
    """The binds and the command head that put the egress relay between the program and the
    network: the relay listens on the sandbox's 127.0.0.1 and forwards to the proxy's socket."""
    python, extra = relay_python()
    binds = [("--ro-bind", p, p) for p in extra]
    binds += [
        ("--ro-bind", RELAY, f"{RELAY_DIR}/relay.py"),
        ("--ro-bind", egress, f"{RELAY_DIR}/egress.sock"),
    ]
    return binds, [python, "-I", "-S", f"{RELAY_DIR}/relay.py", f"{RELAY_DIR}/egress.sock", "--"]


def bwrap_argv(
    bwrap: str,
    tool: ToolTable,
    program: str,
    args: Sequence[str],
    box: Sandbox,
    staging: Staging | None = None,
    egress: str | None = None,
) -> list[str]:
    """The bubblewrap command line for `program args` under `tool`'s table (`staging`: where a
    `list` grant's copy of names is made, without it a list grant binds nothing; `egress`: the
    proxy's socket, for a table with `contain_egress`)."""
    # --cap-drop ALL: a service running as root must not hand the program root's capabilities (it
    # could remount its read-only binds, or read a file of mode 0 such as a list grant's names)
    cmd = [
        bwrap,
        "--die-with-parent",
        "--new-session",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--cap-drop",
        "ALL",
    ]
    if not tool.network or tool.contain_egress:
        # a network namespace of its own (loopback only); with contain_egress, the relay's way out
        cmd.append("--unshare-net")
    for p in _SYSTEM:
        if os.path.islink(p):
            cmd += ["--symlink", os.readlink(p), p]
        elif os.path.isdir(p):
            cmd += ["--ro-bind", p, p]
    for p in _ETC:
        cmd += ["--ro-bind-try", p, p]
    cmd += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--dir", box.home]
    binds = [("--ro-bind", p, p) for p in (*tool.read, *tool.read_file) if host_kind(p)]
    binds += [("--bind", p, p) for p in (*tool.write, *tool.write_file) if host_kind(p)]
    if tool.workspace and host_kind(box.workspace):
        binds.append(("--bind", box.workspace, box.workspace))
    if staging is not None:
        named = [b[2] for b in binds] + list(tool.deny)
        binds += [
            ("--ro-bind", staging.listing(p, [q for q in named if q != p and q.startswith(p + "/")]), p)
            for p in tool.list
            if host_kind(p) == "dir"
        ]
    head: list[str] = []
    if tool.contain_egress:
        if egress is None:
            raise SpawnUnavailable("contain_egress: no egress proxy for this program")
        covering = [b[2] for b in binds if (RELAY_DIR + "/").startswith(b[2].rstrip("/") + "/")]
        if covering:  # its mount points would be made in the host directory bound there
            raise SpawnUnavailable(
                f"contain_egress: a grant of {covering[0]} covers {RELAY_DIR}, where the relay goes"
            )
        relay_binds, head = _relay(egress)
        binds += relay_binds
    for flag, src, dest in sorted(binds, key=lambda b: b[2].count("/")):  # parents before what lies inside
        cmd += [flag, src, dest]
    for p in tool.deny:  # after the binds, so the mask lies over them
        kind = host_kind(p)
        if kind == "dir":
            cmd += ["--tmpfs", p, "--remount-ro", p]
        elif kind == "file":
            cmd += ["--ro-bind", "/dev/null", p]
    cwd = box.cwd if tool.workspace and (box.cwd + "/").startswith(box.workspace + "/") else "/"
    cmd += ["--chdir", cwd, "--", *head, program, *args]
    return cmd


def program_env(tool: ToolTable, box: Sandbox, lang: str | None) -> dict[str, str]:
    """The program's environment: a fixed base, then the table's `env` (nothing of the service's)."""
    env = {"PATH": HOST_PATH, "HOME": box.home, "TMPDIR": "/tmp", "LANG": lang or "C.UTF-8"}
    env.update(tool.env)
    return env


@dataclass
class Streams:
    """The pipeline stage's ends: `read(n)` gives stdin (b"" at its end), the writers take output."""

    read: Callable[[int], bytes]
    write_out: Callable[[bytes], None]
    write_err: Callable[[bytes], None]


def run_contained(
    argv: list[str],
    env: Mapping[str, str],
    streams: Streams,
    remaining: Callable[[], float],
    check: Callable[[], None],
    feed_stdin: bool,
) -> int | None:
    """Run argv (a bwrap command line) with its output streamed to `streams`. `check()` is the run's
    checkpoint (its deadline, cancellation): whatever it raises kills the program and goes on up.
    Once `remaining()` (seconds) reaches 0 without `check` raising, the program is killed and None
    returned. `feed_stdin`: the stage has a real stdin to copy in (else /dev/null)."""
    info_r, info_w = os.pipe()  # bwrap writes {"child-pid": N} there once the sandbox's init exists
    argv = [argv[0], "--info-fd", str(info_w), *argv[1:]]
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE if feed_stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(env),
            start_new_session=True,
            pass_fds=(info_w,),
        )
    except BaseException:
        os.close(info_r)
        raise
    finally:
        os.close(info_w)
    child = _ChildPid(info_r)
    chunks: queue.Queue[tuple[int, bytes]] = queue.Queue(maxsize=64)  # bounded: a flood waits for the stage
    stop = threading.Event()
    readers = 0
    for fd, pipe in ((1, proc.stdout), (2, proc.stderr)):
        threading.Thread(target=_pump, args=(pipe, fd, chunks, stop), daemon=True).start()
        readers += 1
    if feed_stdin and proc.stdin is not None:
        threading.Thread(target=_feed, args=(streams.read, proc.stdin), daemon=True).start()
    open_pipes = readers
    try:
        while open_pipes:
            got = _poll(lambda s: chunks.get(timeout=s), queue.Empty, check, remaining)
            if got is None:
                _kill(proc, child)
                return None
            fd, data = got
            if not data:
                open_pipes -= 1
            else:
                (streams.write_out if fd == 1 else streams.write_err)(data)
        status = _poll(lambda s: proc.wait(timeout=s), subprocess.TimeoutExpired, check, remaining)
        if status is None:
            _kill(proc, child)
        return status
    except BaseException:  # a limit or SIGPIPE in the stage: nothing keeps running (re-raised)
        _kill(proc, child)
        raise
    finally:
        stop.set()


def _poll(
    wait: Callable[[float], T],
    waiting: type[Exception],
    check: Callable[[], None],
    remaining: Callable[[], float],
) -> T | None:
    """`wait(seconds)` in slices of 0.1 s (it raises `waiting` when a slice passes with nothing),
    the run's checkpoint between slices; None once `remaining()` reaches 0."""
    while True:
        check()
        left = remaining()
        if left <= 0:
            return None
        try:
            return wait(min(left, 0.1))
        except waiting:
            continue


def _pump(pipe: IO[bytes], fd: int, chunks: queue.Queue[tuple[int, bytes]], stop: threading.Event) -> None:
    """Copy one output pipe into the queue until its end (b"" marks it), or until the run is over."""
    data = b"x"
    while data and not stop.is_set():
        try:
            data = os.read(pipe.fileno(), CHUNK)
        except (OSError, ValueError):  # closed by _kill
            data = b""
        while not stop.is_set():
            try:
                chunks.put((fd, data), timeout=0.2)
                break
            except queue.Full:
                continue


def _feed(read: Callable[[int], bytes], sink: IO[bytes]) -> None:
    try:
        while True:
            data = read(CHUNK)
            if not data:
                break
            sink.write(data)
            sink.flush()
    except (Exception, Cancelled, DeadlineExpired, LimitExceeded):  # the program stopped reading, or the
        pass  # stage's stdin failed or ended with its run: this helper thread only stops copying
    try:
        sink.close()
    except OSError:
        pass


class _ChildPid:
    """The host pid of the sandbox's init (bwrap's --info-fd), read by a thread as bwrap reports it."""

    def __init__(self, fd: int) -> None:
        self.pid: int | None = None
        self.known = threading.Event()  # the pid is known, or bwrap has ended without naming one
        threading.Thread(target=self._read, args=(fd,), daemon=True).start()

    def _read(self, fd: int) -> None:
        data = b""
        try:
            # read to the end (bwrap's own exit): closing early would end bwrap with SIGPIPE
            while chunk := os.read(fd, 4096):
                if self.pid is None and len(data) < 65536:
                    data += chunk
                    found = re.search(rb'"child-pid"\s*:\s*(\d+)', data)
                    if found:
                        self.pid = int(found.group(1))
                        self.known.set()
        except OSError:
            pass
        finally:
            os.close(fd)
            self.known.set()


def _kill(proc: subprocess.Popen[bytes], child: _ChildPid) -> None:
    """The whole process tree. Killing the sandbox's init ends every process of its pid namespace;
    bwrap's --die-with-parent alone does not cover a kill that comes while bwrap is still setting
    the sandbox up, so wait for bwrap to name its child (or to end) and kill that first, while
    bwrap, its parent, still holds the pid (it cannot be reused before bwrap reaps it)."""
    child.known.wait(5)
    if child.pid is not None and proc.poll() is None:
        try:
            os.kill(child.pid, signal.SIGKILL)
        except OSError:
            pass
    try:
        proc.kill()
    except OSError:
        pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    for pipe in (proc.stdout, proc.stderr, proc.stdin):
        if pipe is not None:
            try:
                pipe.close()
            except OSError:
                pass
