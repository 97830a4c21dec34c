"""Run the host's real programs (bash, gawk, sed, jq...) as test oracles, inside bubblewrap.

Tests and tools/record.py compare sandbash with the real programs by running scripts on the host,
often as root (CI). A script is not trusted to stay in its directory: a spec case meant to show
sandbash refusing `rm /dev/null` removed the host's /dev/null. So every oracle run goes through
`oracle_command` (or `run`, its subprocess.run wrapper), which wraps the command in `bwrap`:

* the host's root read-only (`--ro-bind / /`), so the real programs and their data are there;
* a private /dev (`--dev /dev`: null, zero, tty, urandom, fd...), a fresh /proc, a private empty
  /tmp (`--tmpfs /tmp`, mode 1777 as the host's): what a script writes there vanishes with it;
* the working directory writable only when it lies in the host's temporary directory (the case's
  own fresh directory, pytest's tmp_path); any other cwd (e.g. "/") is entered read-only;
* of root's capabilities only those of file permissions (_ROOT_CAPS); the host's pid namespace
  (one of its own ends with its first process: a straggler such as `tee >(sed ...)`'s sed, still
  writing when bash exits, would be killed and its output lost, where the host's bash gives it);
* the host's network namespace kept (no `--unshare-net`): cases talk to servers on 127.0.0.1;
* `--die-with-parent`: a timeout that kills bwrap kills the script too.

When bwrap is missing or cannot build its sandbox (a CI container without the right to create
mount namespaces), `oracle_command` raises OracleUnavailable with the reason; tests/conftest.py turns
that into a skip of the test, record.py into an error. SANDBASH_ORACLE_UNSANDBOXED=1 is the explicit
opt-out: the programs then run directly on the host, with the caller's rights (only for a machine
where that is acceptable, e.g. a throwaway container). Nothing runs unsandboxed silently.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from typing import Any

UNSANDBOXED_ENV = "SANDBASH_ORACLE_UNSANDBOXED"

# execve(program, argv, env) for a caller that names the program apart from argv[0] (subprocess's
# `executable=`, e.g. ["bash", "-c", s] run as /bin/bash) when bwrap's own PATH lookup of argv[0]
# would find another file: bwrap has no --argv0. The env is passed explicitly so that nothing the
# Python start-up does to its own environment (locale coercion) reaches the program.
_EXEC_SHIM = "import json, os, sys; os.execve(sys.argv[1], sys.argv[3:], json.loads(sys.argv[2]))"


class OracleUnavailable(RuntimeError):
    """The sandbox for the real programs cannot be built here (the reason is the message)."""


def unsandboxed() -> bool:
    """The explicit opt-out: SANDBASH_ORACLE_UNSANDBOXED=1 runs the oracles on the host itself."""
    return os.environ.get(UNSANDBOXED_ENV, "") not in ("", "0")


def _under_tmp(path: str, top: str | None = None) -> bool:
    """Only a directory inside the host's temporary directory (or, for `writable`, /dev/shm) is
    ever bound writable: a caller's cwd of "/" or of the checkout must not become writable."""
    real = os.path.realpath(path)
    tmp = os.path.realpath(top or tempfile.gettempdir())
    return real != tmp and real.startswith(tmp.rstrip("/") + "/")


# What a root tester's script keeps of root's capabilities: file ownership and permission checks
# (a case's `chmod 000 f; cat f` or `chown` reads as it did unsandboxed) and set*id. Not
# CAP_SYS_ADMIN (a remount of the read-only root would write the host), not CAP_KILL or the others.
# (CAP_SYS_RESOURCE is left out too: bwrap 0.8 given it where the bounding set lacks it kept every
# capability.)
_ROOT_CAPS = (
    "CAP_CHOWN",
    "CAP_DAC_OVERRIDE",
    "CAP_DAC_READ_SEARCH",
    "CAP_FOWNER",
    "CAP_FSETID",
    "CAP_SETGID",
    "CAP_SETUID",
)


def _bwrap_prefix(
    bwrap: str, cwd: str | None, writable: Sequence[str] = (), root_caps: bool = True
) -> list[str]:
    prefix = [
        bwrap,
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--perms",
        "1777",
        "--tmpfs",
        "/tmp",
    ]
    prefix += ["--cap-drop", "ALL"]  # (no --unshare-pid: see the module's docstring)
    if root_caps and os.geteuid() == 0:
        for cap in _ROOT_CAPS:
            prefix += ["--cap-add", cap]
    for extra in writable:
        real = os.path.realpath(extra)
        if not (_under_tmp(real) or _under_tmp(real, "/dev/shm")):
            raise ValueError(f"oracle: {extra} is outside the temporary directory and /dev/shm")
        prefix += ["--bind", real, real]
    if cwd is not None:
        real = os.path.realpath(cwd)
        if _under_tmp(real):
            prefix += ["--bind", real, real]
        prefix += ["--chdir", real]
    return [*prefix, "--die-with-parent", "--"]


@functools.cache
def sandbox_problem() -> str | None:
    """None when bwrap can build the sandbox here; else why not (cached: probed once per process)."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "bwrap (bubblewrap) is not installed: the real programs would run unsandboxed on the host"
    with tempfile.TemporaryDirectory(prefix="oracle-probe") as d:
        try:
            p = subprocess.run(
                [*_bwrap_prefix(bwrap, d), "/bin/sh", "-c", ": > probe"],
                capture_output=True,
                timeout=60,
                env={"PATH": "/usr/bin:/bin"},
            )
        except (OSError, subprocess.TimeoutExpired) as e:
            return f"bwrap failed to start: {e}"
        if p.returncode != 0 or not os.path.exists(os.path.join(d, "probe")):
            why = p.stderr.decode(errors="replace").strip() or f"status {p.returncode}"
            return f"bwrap cannot build its sandbox here ({why})"
    return None


def _shim_python() -> str:
    """A Python for _EXEC_SHIM that the sandbox can see: the interpreter itself, not a virtual
    environment's link to it, which may lie under /tmp (a checkout there: the sandbox's /tmp is
    its own, empty); the shim needs only the standard library."""
    real = os.path.realpath(sys.executable)
    if not _under_tmp(real) and not real.startswith("/tmp/"):
        return real
    return shutil.which("python3", path="/usr/bin:/bin") or real


def _resolves_to(name: str, program: str, env: Mapping[str, str] | None) -> bool:
    """Whether exec'ing `name` by PATH (as bwrap does, with the program's env) runs `program`."""
    path = (env if env is not None else os.environ).get("PATH", os.defpath)
    found = name if "/" in name else shutil.which(name, path=path)
    try:
        return found is not None and os.path.samefile(found, program)
    except OSError:
        return False


def oracle_command(
    argv: Sequence[str],
    cwd: str | os.PathLike[str] | None = None,
    executable: str | None = None,
    env: Mapping[str, str] | None = None,
    writable: Sequence[str] = (),
    root_caps: bool = True,
) -> tuple[list[str], str | None]:
    """The (argv, executable) for subprocess that run `argv` (as `executable` when given,
    subprocess-style) in the sandbox, with `cwd` as its working directory and the directories of
    `writable` (a caller's own fresh directories, e.g. one on /dev/shm for a cross-device test)
    also writable: the one place that builds an oracle's command. `root_caps=False` for a caller
    whose preexec_fn gives up root before bwrap starts. Raises OracleUnavailable when there is no
    sandbox."""
    args = [os.fspath(a) for a in argv]
    if unsandboxed():
        return args, executable
    problem = sandbox_problem()
    if problem is not None:
        raise OracleUnavailable(f"{problem}; set {UNSANDBOXED_ENV}=1 to run the oracles on the host anyway")
    bwrap = shutil.which("bwrap")
    assert bwrap is not None  # sandbox_problem checked it
    prefix = _bwrap_prefix(bwrap, None if cwd is None else os.fspath(cwd), writable, root_caps)
    if executable is None or _resolves_to(args[0], executable, env):
        return [*prefix, *args], None
    program_env = dict(os.environ if env is None else env)
    return [
        *prefix,
        _shim_python(),
        "-I",
        "-S",
        "-c",
        _EXEC_SHIM,
        executable,
        json.dumps(program_env),
        *args,
    ], None


def run(
    argv: Sequence[str],
    *,
    cwd: str | os.PathLike[str] | None = None,
    executable: str | None = None,
    env: Mapping[str, str] | None = None,
    writable: Sequence[str] = (),
    root_caps: bool = True,
    **kwargs: Any,
) -> subprocess.CompletedProcess[Any]:
    """subprocess.run(argv, cwd=, executable=, env=, **kwargs) with the program in the sandbox.
    A program killed by a signal shows status 128+N (bwrap's), where subprocess gives -N."""
    cmd, program = oracle_command(argv, cwd, executable, env, writable, root_caps)
    return subprocess.run(cmd, executable=program, cwd=cwd, env=None if env is None else dict(env), **kwargs)
