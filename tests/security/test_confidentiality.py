"""Confidentiality: nothing of the host shows inside the sandbox.

A canary variable sits in the host process environment (set by conftest.py
and inherited by every forked case); a canary file sits in a host directory
beside the granted root, reachable from inside only through links the host
planted. No script may print either, nor the host's paths, kernel release or
hostname, whatever it tries: the environment builtins, /proc, /etc, /sys,
sub-shells, awk/jq environment access, links, `..`, file descriptors.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from secharness import ENV_CANARY, ENV_CANARY_NAME, FILE_CANARY, Outcome, batch, param, plant_canaries, verify

from sandbash import Bash
from sandbash.vfs import MemoryFs, MountFs, OverlayFs, ReadWriteFs

HOST = Path(tempfile.mkdtemp(prefix="sandbash-conf-"))
atexit.register(shutil.rmtree, HOST, True)  # only the directory made just above
CANARY = plant_canaries(HOST)
ROOT = HOST / "root"
ROOT.mkdir()
(ROOT / "inside.txt").write_text("inside\n")
(ROOT / "link").symlink_to(CANARY)
(ROOT / "rel").symlink_to("../canary")
(ROOT / "secret-link").symlink_to(CANARY / "secret.txt")

UNAME = os.uname()
# Host facts that must never show (when distinctive enough to search for). Not
# the canary directory's path: the planted links' own text holds it, and the
# link text is part of the granted root.
HOST_STRINGS = [s for s in (str(ROOT), UNAME.release, UNAME.version, os.getcwd()) if len(s) >= 6]
if len(UNAME.nodename) >= 6 and UNAME.nodename not in ("sandbox", "localhost"):
    HOST_STRINGS.append(UNAME.nodename)


def _mount() -> MountFs:
    fs = MountFs(MemoryFs())
    fs.mount("/work", ReadWriteFs(str(ROOT)))
    fs.mount("/ro", OverlayFs(str(ROOT), follow_symlinks=True), read_only=True)
    return fs


BACKENDS: dict[str, Callable[[], Bash]] = {
    "memory": lambda: Bash(),
    "overlay": lambda: Bash(fs=OverlayFs(str(ROOT), follow_symlinks=True), cwd="/"),
    "readwrite": lambda: Bash(fs=ReadWriteFs(str(ROOT)), cwd="/"),
    "mount": lambda: Bash(fs=_mount(), cwd="/work"),
}

V = ENV_CANARY_NAME
SCRIPTS: dict[str, str] = {
    "env": f"env; printenv; printenv {V}; echo ${V} ${{{V}}} ${{!{V}}}",
    "set-declare": "set; declare -p; declare -x; export -p; typeset; readonly -p; compgen -v | tr '\\n' ' '",
    "indirect-names": f'echo ${{!S*}} ${{!SANDBASH*}}; for v in $(compgen -e); do echo "$v=${{!v}}"; done; '
    f"x={V}; echo ${{!x}}; declare -n r={V}; echo $r",
    "subshells": f"bash -c 'env'; sh -c 'echo ${V}'; (printenv); $(echo env); env -i env; env -u HOME env; "
    f"exec env",
    "awk-jq-env": "awk 'BEGIN{for(k in ENVIRON) print k\"=\"ENVIRON[k]}'; jq -n env; jq -n '$ENV'; "
    f"jq -n 'env.{V}'; awk 'BEGIN{{print ENVIRON[\"{V}\"]}}'",
    "proc": "cat /proc/self/environ /proc/1/environ /proc/self/cmdline /proc/self/status /proc/version "
    "/proc/self/maps /proc/self/mountinfo 2>&1; ls /proc /proc/self /proc/self/fd 2>&1",
    "etc-sys-dev": "cat /etc/passwd /etc/shadow /etc/hostname /etc/hosts /etc/os-release /etc/resolv.conf "
    "/etc/environment /etc/machine-id 2>&1; ls /sys /sys/class/net /etc 2>&1; "
    "cat /dev/mem /dev/kmem /dev/sda /dev/tty 2>&1 | head -c 300",
    "identity": "whoami; id; id -un; hostname; hostname -f; uname -a; uname -r; echo $HOSTNAME $USER $HOME $UID "
    "$EUID $SHELL $BASH $MACHTYPE $OSTYPE; groups; logname; tty; nproc; pwd -P",
    "host-paths": "pwd -P; realpath .; readlink -f link secret-link rel; df; mount; stat -f .; cd link 2>&1; pwd -P",
    "links-read": "cat link/secret.txt rel/secret.txt secret-link link/sub/deep.txt 2>&1; head link/* 2>&1; "
    "grep -r canary . 2>&1; cp secret-link /tmp/x 2>&1; cat /tmp/x 2>&1; tar -chf - link 2>&1 | strings",
    "links-list": "ls -laR link rel 2>&1; find -L . 2>&1; du -aL . 2>&1; stat link/secret.txt 2>&1; "
    "tree link 2>&1; ls -la secret-link",
    "dotdot": "cat ../canary/secret.txt ../../canary/secret.txt /../canary/secret.txt 2>&1; cd ..; ls -la; "
    "cd ../..; ls; cat $(find / -name 'secret*' 2>/dev/null) 2>&1",
    "fds-and-redirects": "exec 3<link/secret.txt 2>&1; cat <&3 2>&1; cat < secret-link 2>&1; "
    "cat /dev/fd/3 2>&1; exec 4<../canary/secret.txt 2>&1; read -r l <&4; echo $l",
    "source-and-eval": 'source link/secret.txt 2>&1; . secret-link 2>&1; eval "$(cat secret-link 2>&1)"; '
    "bash link/exe.sh 2>&1; ./secret-link 2>&1; link/exe.sh 2>&1",
    "search-everything": f"grep -rs {FILE_CANARY[:10]} / 2>&1; grep -rsa {ENV_CANARY[:9]} / 2>&1; "
    "find / -name '*canary*' 2>&1; find / -newer /tmp -type f 2>/dev/null | head",
    "host-commands": "python3 -c 'import os;print(os.environ)' 2>&1; perl -e 'print %ENV' 2>&1; "
    "ps aux 2>&1; getent passwd 2>&1; curl file:///etc/passwd 2>&1; wget -O- file:///etc/passwd 2>&1",
    "history-and-traps": "history 2>&1; fc -l 2>&1; trap -p; alias; hash; cat ~/.bash_history ~/.bashrc "
    "~root/.bashrc 2>&1; echo ~root ~nobody",
}

CASES = [
    param(f"{b}-{sid}", script, build=build)
    for sid, script in SCRIPTS.items()
    for b, build in BACKENDS.items()
]


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    return batch(request, "test_nothing_of_the_host_shows")


@pytest.mark.parametrize("case", CASES)
def test_nothing_of_the_host_shows(case: dict[str, Any], outcomes: dict[str, Outcome]) -> None:
    out = outcomes[case["id"]]
    verify(case, out)  # also: neither canary in the output
    for s in HOST_STRINGS:
        assert s not in out.text, f"host string {s!r} shows: " + out.describe()


def test_env_is_only_what_the_embedder_passes() -> None:
    os.environ[V] = ENV_CANARY  # (conftest sets it too; be explicit)
    bash = Bash(env={"GIVEN": "yes"})
    r = bash.exec("env; echo ${#SANDBASH_SECURITY_CANARY}")
    assert "GIVEN=yes" in r.stdout and ENV_CANARY not in r.stdout and r.stdout.endswith("0\n")
    r = Bash().exec("env", env={"PER_RUN": "1"})
    assert "PER_RUN=1" in r.stdout and ENV_CANARY not in r.stdout


def test_identity_is_virtual() -> None:
    r = Bash().exec("whoami; hostname; id -u; uname -r; echo $HOME")
    lines = r.stdout.splitlines()
    assert lines[0] != "root" and lines[2] != "0", r.stdout
    assert lines[1] != UNAME.nodename or UNAME.nodename == "sandbox", r.stdout
    assert lines[3] != UNAME.release, r.stdout


def test_sessions_do_not_share_state() -> None:
    """One session's variables and files are not seen by a fresh Bash or another session."""
    bash = Bash()
    s1 = bash.session()
    s1.exec("export TOKEN=s1-secret-9; f(){ echo s1-secret-9; }; echo s1-secret-9 > /tmp/s1")
    s2 = bash.session()
    r = s2.exec("echo $TOKEN; f; env | grep TOKEN")
    assert "s1-secret-9" not in r.stdout
    assert "s1-secret-9" not in Bash().exec("cat /tmp/s1; echo $TOKEN").stdout
