"""Redirections made cheaper in loops (issue 23, pf-redir5): a builtin runs inside its redirections
from compiled code (fastbuiltins._redirected), /dev/null and its kin open without the path walk
(Vfs._open_device), `read NAME...` / `read -r NAME...` skip the option parser. Every open still
asks the policy and the permission model, an audit still sees each one, and the limits on
descriptors, file system bytes and commands still end an endless loop. Each script runs compiled
and walked (SANDBASH_TREE_WALKER=1)."""

from __future__ import annotations

import errno

import pytest

from sandbash import Bash, ExecutionLimitError, Limits, Policy
from sandbash.audit import Audit
from sandbash.policy import Action
from sandbash.vfs.errors import FsError
from sandbash.vfs.facade import Vfs
from sandbash.vfs.memory import MemoryFs

from .loopshapes import LOOPS

# every redirection shape sped up, writing to (or reading from) TARGET
SHAPES = [
    'echo "$i" > {t}',
    'echo "$i" >> {t}',
    "echo x &> {t}",
    "echo x &>> {t}",
    "echo x 2> {t}",
    "echo x >| {t}",
    "printf '%s\\n' x 1<> {t}",
    "{{ echo a; echo b; }} > {t}",
    'f="{t}"; echo x >> "$f"',
    "echo x 3> {t} >&3",
    "exec 3>> {t}; echo x >&3; exec 3>&-",
]
READS = [
    "read -r l < {t}",
    "read l < {t}",
    "read -r -n 1 l < {t}",
    "while read -r l; do :; done < {t}",
    "cat < {t}",
    "{{ read -r l; }} < {t}",
    "exec 4< {t}; read -r l <&4; exec 4<&-",
]


@pytest.fixture(params=["compiled", "walked"])
def way(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "walked":
        monkeypatch.setenv("SANDBASH_TREE_WALKER", "1")
    else:
        monkeypatch.delenv("SANDBASH_TREE_WALKER", raising=False)
    return str(request.param)


RO = Policy(paths=["/home/user:rw", "/data:ro", "/tmp:rw"])


@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("shape", SHAPES)
def test_a_read_only_grant_refuses_every_write(way: str, loop: str, shape: str) -> None:
    bash = Bash(policy=RO, files={"/data/f": "old\n"})
    for target in ("/data/f", "/data/new", "link"):  # (link -> /data/f: decided on where it leads)
        script = "ln -sf /data/f link; " + loop.format(cmd=shape.format(t=target))
        r = bash.exec(script)
        assert r.stderr.count("Permission denied [policy: paths.read-only]") == 3, (script, r.stderr)
        assert bash.exec("cat /data/f; ls /data").stdout == "old\nf\n"


@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("shape", SHAPES + READS)
def test_a_path_no_grant_covers_is_refused_every_time(way: str, loop: str, shape: str) -> None:
    bash = Bash(policy=RO, files={"/secret/f": "hidden\n"})
    script = loop.format(cmd=shape.format(t="/secret/f"))
    r = bash.exec(script)
    assert r.stderr.count("Permission denied [policy: paths.no-grant]") == 3, (script, r.stderr)
    assert "hidden" not in r.stdout


def _refuse_null(action: Action) -> bool | None:
    return False if action.target == "/dev/null" else None


@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize(
    "shape",
    [
        "echo x > /dev/null",
        "echo x 2>/dev/null",
        "echo x &>/dev/null",
        "echo x >>/dev/null",
        "read -r l </dev/null",
    ],
)
def test_a_refused_device_is_refused_at_every_iteration(way: str, loop: str, shape: str) -> None:
    r = Bash(policy=Policy(decide=_refuse_null)).exec(loop.format(cmd=shape))
    assert r.stderr.count("/dev/null: Permission denied [policy: decide]") == 3, r.stderr


@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize(
    ("shape", "action", "target"),
    [
        ("echo x > /dev/null", "fs:write", "/dev/null"),
        ("echo x &> /dev/zero", "fs:write", "/dev/zero"),
        ("read -r l < /dev/null", "fs:read", "/dev/null"),
        ('echo "$i" >> out', "fs:write", "/home/user/out"),
        ("read -r l < in", "fs:read", "/home/user/in"),
    ],
)
def test_an_audit_sees_every_open(way: str, loop: str, shape: str, action: str, target: str) -> None:
    r = Bash(audit=Audit(), policy=Policy(), files={"/home/user/in": "x\n", "/home/user/out": ""}).exec(
        loop.format(cmd=shape)
    )
    seen = [
        e for e in r.events if e["kind"] == "decision" and e["target"] == target and e["action"] == action
    ]
    assert len(seen) == 3, [(e.get("action"), e.get("target")) for e in r.events]


@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("shape", SHAPES)
def test_the_permission_model_refuses_every_write_without_gates(way: str, loop: str, shape: str) -> None:
    """No policy, no audit: the compiled builtin runs without the dispatch, and the file system's
    own permissions still decide each open (a read-only file, a directory without write)."""
    bash = Bash(files={"/home/user/ro/f": "old\n"})
    r = bash.exec("chmod 444 ro/f; chmod 555 ro")
    assert r.exit_code == 0
    for target in ("ro/f", "ro/new"):
        script = loop.format(cmd=shape.format(t=target))
        r = bash.exec(script)
        assert r.stderr.count("Permission denied") == 3, (script, r.stderr)
    assert bash.exec("cat ro/f; ls ro").stdout == "old\nf\n"


@pytest.mark.parametrize("loop", LOOPS)
def test_a_file_the_loop_removes_or_replaces_is_found_again(way: str, loop: str) -> None:
    """Nothing of an open is kept between iterations: the path is walked again each time."""
    body = 'n=$((n+1)); echo "$n" >> log; mv log "log$n"; ln -s "t$n" log'
    r = Bash().exec("n=0; " + loop.format(cmd=body) + "; cat log1 log2 log3; ls")
    assert r.stdout == "1\n2\n3\nlog\nlog1\nlog2\nlog3\nt1\nt2\n", (r.stdout, r.stderr)


def test_the_device_fast_path_keeps_the_walks_answers() -> None:
    vfs = Vfs()
    assert type(vfs.open("/dev/null", "w")).__name__ == "NullStream"
    devfs = vfs.tree.devfs
    assert devfs is not None
    root = devfs.root
    old = root.mode
    root.mode = (old & ~0o777) | 0o700  # /dev not searchable by the sandbox user: EACCES, as the walk
    try:
        with pytest.raises(FsError) as e:
            vfs.open("/dev/null", "w")
        assert e.value.code == errno.EACCES
    finally:
        root.mode = old
    # a mount below /dev (an embedder's): the walk decides, and finds what is mounted there
    other = MemoryFs(uid=1000, gid=1000)
    other.open("/x", "w", 0o644, 1000, 1000).write(b"mounted\n")
    vfs.tree.mount("/dev/null", other)
    assert vfs.tree.devfs is None
    with pytest.raises(FsError) as e:
        vfs.open("/dev/null", "w")
    assert e.value.code == errno.EISDIR
    assert vfs.open("/dev/null/x", "r").read() == b"mounted\n"
    vfs.tree.umount("/dev/null")
    assert vfs.tree.devfs is devfs
    # a device's entry removed by the embedder: the walk's answers (no new entry in /dev)
    devfs.unlink("/zero")
    for flags, code in (("w", errno.EACCES), ("r", errno.ENOENT)):
        with pytest.raises(FsError) as e:
            vfs.open("/dev/zero", flags)
        assert e.value.code == code


@pytest.mark.parametrize(
    "script",
    [
        "rm -f /dev/null; mv /dev/null /dev/x; chmod 000 /dev/null; ln -s /etc/passwd /dev/y; echo > /dev/new",
        "for i in 1 2; do rm /dev/null; echo x > /dev/null; done",
    ],
)
def test_the_script_cannot_change_dev(way: str, script: str) -> None:
    bash = Bash()
    bash.exec(script)
    r = bash.exec(
        "ls -l /dev/null | cut -c1; ls /dev | tr '\\n' ' '; echo; echo x > /dev/null; cat /dev/null | wc -c"
    )
    kind, names, size = r.stdout.splitlines()
    assert kind == "c" and size == "0"
    assert set(names.split()) == {
        "fd",
        "full",
        "null",
        "random",
        "stderr",
        "stdin",
        "stdout",
        "tty",
        "urandom",
        "zero",
    }


ENDLESS_LIMITS = [
    ("for ((;;)); do exec {{fd}}>> f; done", {"max_file_descriptors": 64}, "max_file_descriptors"),
    ("for ((;;)); do : {{fd}}> /dev/null; done", {"max_file_descriptors": 64}, "max_file_descriptors"),
    (
        'x=$(printf %0100d 0); while :; do echo "$x" >> f; done',
        {"max_command_count": 30000},
        "max_command_count",
    ),
    ('while :; do echo "$x" >> f; x+=$x; done', {"max_memory": 8 << 20}, "max_memory"),
    ("while :; do read -r l < /dev/null; done", {"max_loop_iterations": 5000}, "max_loop_iterations"),
    ("while :; do echo x > /dev/null; done", {"timeout": 0.5}, "timeout"),
]


@pytest.mark.parametrize(("script", "limits", "limit"), ENDLESS_LIMITS)
def test_endless_redirecting_loops_end_with_the_right_limit(
    way: str, script: str, limits: dict[str, float], limit: str
) -> None:
    base: dict[str, float] = {"timeout": 20.0}
    base.update(limits)
    with pytest.raises(ExecutionLimitError) as e:
        Bash(limits=Limits(**base)).exec("x=1; " + script.format())  # type: ignore[arg-type]
    assert e.value.limit == limit


def test_appending_past_the_file_system_quota_fails_each_write(way: str) -> None:
    r = Bash(limits=Limits(max_filesystem_bytes=1 << 20)).exec(
        'x=$(printf %01000d 0); n=0; while echo "$x" >> f; do ((++n)); done; echo "$n"; wc -c < f'
    )
    n, size = (int(v) for v in r.stdout.split())
    assert 900 < n < 1048 and size == n * 1001, r.stdout
    assert "echo: write error: No space left on device" in r.stderr
