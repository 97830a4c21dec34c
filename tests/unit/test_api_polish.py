"""The Python API's small edges: repr(ExecResult), read_file/read_text, Bash(cwd=), the output kept
at max_output_size, audit order across pipeline stages, and leaving PATH lookups out of the audit."""

from __future__ import annotations

import threading
import time

import pytest

from sandbash import Audit, Bash, Policy
from sandbash.agent.sandbox import Sandbox
from sandbash.audit import AuditEvent
from sandbash.errors import ExecutionLimitError
from sandbash.vfs import MemoryFs, MountFs


def test_repr_is_short_and_says_what_matters() -> None:
    bash = Bash()
    assert (
        repr(bash.exec("echo hi; echo oops >&2; exit 3"))
        == "ExecResult(exit_code=3, stdout='hi\\n', stderr='oops\\n')"
    )
    big = bash.exec("seq 200000")
    text = repr(big)
    assert (
        len(text) < 300
        and f"({len(big.stdout_bytes)} bytes)" in text
        and text.startswith("ExecResult(exit_code=0")
    )
    with pytest.raises(ExecutionLimitError) as info:
        bash.exec("while :; do :; done", limits={"max_loop_iterations": 50})
    assert info.value.result.limit == "max_loop_iterations"
    assert repr(info.value.result).endswith(", limit='max_loop_iterations')")
    assert big.limit is None


def test_read_file_is_bytes_and_read_text_is_str_on_both_classes() -> None:
    bash = Bash(files={"/d/a.txt": b"caf\xc3\xa9 \xff\n"})
    sandbox = Sandbox(bash)
    assert bash.read_file("/d/a.txt") == sandbox.read_file("/d/a.txt") == b"caf\xc3\xa9 \xff\n"
    assert bash.read_text("/d/a.txt") == sandbox.read_text("/d/a.txt") == "café \ufffd\n"
    assert bash.read_text("/d/a.txt", errors="surrogateescape") == "café \udcff\n"
    assert sandbox.read_bytes("/d/a.txt") == bash.read_file("/d/a.txt")


def test_cwd_is_made_when_it_can_be() -> None:
    bash = Bash(cwd="/work/deep/dir")
    assert bash.exec("pwd").stdout == "/work/deep/dir\n"


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        ({"bash": "rel"}, "/rel"),  # a relative cwd of the Bash counts from /
        ({"bash": "/tmp/../w/./x//"}, "/w/x"),
        ({"exec": "sub/dir"}, "/home/user/sub/dir"),  # a run's counts from the Bash's, as `cd`
        ({"exec": "../.."}, "/"),
        ({"exec": "/made/for/the/run"}, "/made/for/the/run"),  # made when missing, as the Bash's
        ({"session": "s/"}, "/home/user/s"),
        ({"bash": "/b", "session": "../c"}, "/c"),
    ],
)
def test_every_cwd_an_embedder_names_is_absolute_normal_and_there(
    where: dict[str, str], expected: str
) -> None:
    bash = Bash(cwd=where["bash"]) if "bash" in where else Bash()
    script = 'echo "$(pwd) $PWD"; ls -d "$PWD" >/dev/null && cd .. && cd - >/dev/null && pwd'
    if "session" in where:
        result = bash.session(cwd=where["session"]).exec(script)
    else:
        result = bash.exec(script, cwd=where.get("exec"))
    assert (result.stdout, result.stderr, result.exit_code) == (f"{expected} {expected}\n{expected}\n", "", 0)


@pytest.mark.parametrize("point", ["/tmp/data", "/home/user/proj", "/home/user", "/work/in"])
def test_a_mount_below_a_standard_directory_leaves_it_writable(point: str, tmp_path: object) -> None:
    # (the mount's parents were read-only stand-ins owned by root: `--mount ./p:/home/user/p` made
    # `echo x > ~/f` fail, `--mount ./d:/tmp/d` every write to /tmp)
    fs = MountFs(MemoryFs())
    fs.mount(point, MemoryFs())
    bash = Bash(fs=fs, cwd="/work")
    script = 'echo a > /tmp/f && echo b > ~/f && echo c > ./f && cat /tmp/f ~/f ./f; stat -c "%a %U" /tmp ~ .'
    result = bash.exec(script)
    assert (result.stdout, result.stderr) == ("a\nb\nc\n1777 user\n755 user\n755 user\n", "")
    assert (
        bash.exec("ls -d /work/in/ 2>/dev/null; touch /work/in/x && echo in", cwd="/work/in").exit_code == 0
    )


def test_a_run_cwd_that_cannot_be_a_directory_is_a_value_error() -> None:
    bash = Bash(files={"/f": "1"})
    for call in (
        lambda: bash.exec("pwd", cwd="/f"),
        lambda: bash.exec("pwd", cwd="/f/g"),
        lambda: bash.session(cwd="/f"),
    ):
        with pytest.raises(ValueError, match=r"^cwd '/f"):
            call()
    assert bash.read_text("/f") == "1"


@pytest.mark.parametrize(
    "make",
    [
        lambda: Bash(fs=_with_file("/f"), cwd="/f"),  # a file is there
        lambda: Bash(fs=_with_file("/f"), cwd="/f/sub"),
        lambda: Bash(fs=_ro_mount(), cwd="/ro/missing"),
        lambda: Bash(files={"/x": "1"}, cwd="/x"),  # the embedder's own file where the cwd goes
        lambda: Bash(files={"/x": "1"}, cwd="/x/y/"),
        lambda: Bash(files={"../x": "1"}, cwd="/x"),  # relative to the cwd: the same place
    ],
)
def test_cwd_that_cannot_be_a_directory_is_a_value_error(make: object) -> None:
    with pytest.raises(ValueError, match=r"^cwd '/"):
        make()  # type: ignore[operator]


@pytest.mark.parametrize(
    "make",
    [
        lambda: Bash(files={"/tmp": "1"}),
        lambda: Bash(files={"/a": "1", "/a/b": "2"}),
        lambda: Bash(fs=_ro_mount(), files={"/ro/f": "1"}),
    ],
)
def test_files_that_cannot_be_written_are_a_value_error(make: object) -> None:
    with pytest.raises(ValueError, match=r"^files: '/"):
        make()  # type: ignore[operator]


def _with_file(path: str) -> MemoryFs:
    fs = MemoryFs()
    Bash(fs=fs, files={path: "x"})
    return fs


def _ro_mount() -> MountFs:
    fs = MountFs(MemoryFs())
    fs.mount("/ro", MemoryFs(), read_only=True)
    return fs


@pytest.mark.parametrize(
    ("script", "stdout", "stderr"),
    [
        ("printf '%05000d' 0", "0" * 1000, ""),  # one write crossing the cap
        ("echo abc; printf '%05000d' 0", "abc\n" + "0" * 996, ""),
        ("echo abc >&2; seq 100000", "1\n2\n3\n", "abc\n"),  # the cap is shared by both streams
    ],
)
def test_output_that_fitted_is_kept_when_a_write_crosses_the_cap(
    script: str, stdout: str, stderr: str
) -> None:
    cap = 1000
    with pytest.raises(ExecutionLimitError) as info:
        Bash().exec(script, limits={"max_output_size": cap})
    result = info.value.result
    assert len(result.stdout_bytes) + len(result.stderr_bytes) == cap
    assert result.stdout.startswith(stdout) and result.stderr == stderr


def test_streamed_output_also_stops_at_the_cap() -> None:
    seen: list[bytes] = []
    with pytest.raises(ExecutionLimitError):
        Bash().exec("seq 100000", limits={"max_output_size": 700}, on_stdout=seen.append, keep_output=False)
    data = b"".join(seen)
    assert len(data) == 700 and data.startswith(b"1\n2\n")


def test_sinks_see_pipeline_events_in_sequence_order() -> None:
    got: list[int] = []
    lock = threading.Lock()

    def slow_sink(event: AuditEvent) -> None:
        if event.kind == "command.start" and event.fields.get("argv", [""])[0] in ("cat", "tr"):
            time.sleep(0.02)  # a slow sink must not let a later event overtake this one
        with lock:
            got.append(event.seq)

    bash = Bash(audit=Audit(sinks=[slow_sink]))
    stages = " | ".join(["cat", "tr a b", "cat", "sort", "tr b c", "cat", "uniq", "cat"])
    r = bash.exec(f"seq 50 | {stages} > /dev/null; " * 3)
    assert got == sorted(got) == list(range(1, len(got) + 1))
    assert [e["seq"] for e in r.events] == got


def test_audit_can_leave_out_path_lookups() -> None:
    policy = Policy(paths=["/tmp:rw", "/home/user:rw"])
    script = "seq 3 | sort -r > /tmp/x; cat /tmp/x; ls /dev/null"

    def decisions(audit: Audit) -> list[tuple[str, str]]:
        r = Bash(audit=audit, policy=policy).exec(script)
        return [(str(e["action"]), str(e["rule"])) for e in r.events if e["kind"] == "decision"]

    everything = decisions(Audit())
    quiet = decisions(Audit(lookups=False))
    assert any(rule == "paths.implicit" for _, rule in everything)
    assert all(rule != "paths.implicit" for _, rule in quiet)
    # (sorted: the pipeline's stages run at once, so `seq`'s and `sort`'s decisions come in either order)
    assert sorted(quiet) == sorted(d for d in everything if d[1] != "paths.implicit")
    assert ("fs:create", "paths.grant") in quiet and ("shell:exec", "commands.all") in quiet
