"""Box mode end to end through the alias: the reachable-paths check, the seed's limits and their
messages, and host programs from [tool.<name>] tables inside bubblewrap."""

from __future__ import annotations

import time

import pytest

from sandbash.box.alias import frames
from sandbash.box.config import BoxConfigError, parse_config
from sandbash.box.runner import BoxRunner, match_tool
from sandbash.box.spawn import resolve_program

from .conftest import Box

needs_bwrap = pytest.mark.skipif(resolve_program("bwrap") is None, reason="bubblewrap is not installed")


def _gone(command_line: str, wait: float = 15.0) -> bool:
    """No process runs `command_line` (within `wait` seconds: the kernel ends a killed sandbox's
    processes a moment after its init, and a loaded host may take a while)."""
    import subprocess

    deadline = time.monotonic() + wait
    while subprocess.run(["pgrep", "-f", command_line], capture_output=True).stdout:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


# -- the reachable-paths check


def test_reachable_paths(box: Box) -> None:
    """T-BOX-5"""
    (box.root / "operator/o.txt").write_text("op\n")
    done = box.run(
        "-c", f"cat {box.root}/operator/o.txt; cat {box.root}/outside/note; cat {box.root}/box.toml"
    )
    assert done.stdout == "op\n"
    # granted by [agent.filesystem] read, but outside the operator's home, the agent's home and the workspace
    assert done.stderr == (
        f"cat: {box.root}/outside/note: policy denied this operation on "
        f"'{box.root}/outside/note' [policy: reachable-paths]\n"
        f"cat: {box.root}/box.toml: policy denied this operation on "
        f"'{box.root}/box.toml' [policy: reachable-paths]\n"
    )
    assert done.returncode == 1
    # the socket is the box's own too; an in-memory path is reachable
    done = box.run("-c", f"ls {box.socket}; echo ok > /tmp/t && cat /tmp/t")
    assert (
        done.stderr
        == (
            f"ls: cannot access '{box.socket}': policy denied this operation on '{box.socket}' "
            "[policy: reachable-paths]\n"
        )
        and done.stdout == "ok\n"
    )


# -- limits and their messages


def _request(box: Box, request: dict[str, str]) -> tuple[bytes, bytes, int]:
    """One request over the socket as the alias sends it (a command longer than an exec argument can be)."""
    import json
    import socket

    out, err = b"", b""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(str(box.socket))
        sock.sendall(json.dumps(request).encode() + b"\n")
        for tag, data in frames(sock):
            if tag == b"s":
                return out, err, int(data)
            if tag == b"o":
                out += data
            else:
                err += data
    raise AssertionError("no status")


def test_input_too_large(box: Box) -> None:
    limit = 256 * 1024
    assert _request(box, {"command": "#" + "x" * limit}) == (b"", b"strands-shell: input too large\n", 1)
    assert _request(box, {"command": "#" + "x" * (limit - 11) + "\necho fits"}) == (b"fits\n", b"", 0)
    # far past the limit: refused while reading, before the JSON is parsed
    assert _request(box, {"command": "x" * (8 * limit)}) == (b"", b"strands-shell: input too large\n", 1)
    assert _request(box, {"nothing": "x"}) == (b"", b"sandbash: box: malformed request\n", 125)


def test_file_size_limit(box: Box) -> None:
    done = box.run(
        "-c", "head -c 10485760 /dev/zero > /tmp/ok && echo ok; head -c 10485761 /dev/zero > /tmp/big"
    )
    assert (done.stdout, done.stderr, done.returncode) == (
        "ok\n",
        "strands-shell: file size limit exceeded (10485760 bytes)\n",
        1,
    )
    done = box.run("-c", "truncate -s 20M /tmp/sparse")
    assert (done.stderr, done.returncode) == ("strands-shell: file size limit exceeded (10485760 bytes)\n", 1)


def test_entry_limit(box: Box) -> None:
    done = box.run(
        "-c", "mkdir /tmp/d && cd /tmp/d && for i in $(seq 10001); do : > f$i || break; done; ls | wc -l"
    )
    assert (done.stdout, done.stderr, done.returncode) == (
        "",
        "strands-shell: in-memory entry limit exceeded (10000 entries)\n",
        1,
    )


def test_timeout(quick_box: Box) -> None:
    start = time.monotonic()
    done = quick_box.run("-c", "echo before; while :; do :; done")
    assert (done.stdout, done.stderr, done.returncode) == (
        "before\n",
        "strands-shell: execution timeout exceeded\n",
        1,
    )
    assert time.monotonic() - start < 30


def test_sandbash_wording(tmp_path: object) -> None:
    cfg = parse_config(
        '[agent]\nhome = "/nonexistent/h"\nworkspace = "/nonexistent/w"\n'
        '[limits]\nmessages = "sandbash"\nmax_command_bytes = 10\n'
    )
    err: list[bytes] = []
    assert BoxRunner(cfg).run("echo 12345678901", lambda b: None, err.append) == 1
    assert err == [b"sandbash: input too large\n"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[agent]\nhome = "/h"\n', "agent: home and workspace are required"),
        ('[agent]\nhome = "h"\nworkspace = "/w"\n', "agent.home: an absolute path"),
        ('[agent]\nhome = "/h"\nworkspace = "/w"\n[tool.git]\ncommand = []\n', "tool.git.command"),
        (
            '[agent]\nhome = "/h"\nworkspace = "/w"\n[tool.git]\nnetwrk = 1\n',
            "tool.git: unknown key(s) netwrk",
        ),
        (
            '[agent]\nhome = "/h"\nworkspace = "/w"\n[tool.git.filesystem]\nread = ["rel"]\n',
            "tool.git.filesystem.read: an absolute path",
        ),
        (
            '[agent]\nhome = "/h"\nworkspace = "/w"\n[limits]\ntimeout = -1\n',
            "limits.timeout: a positive number",
        ),
        ('[agent]\nhome = "/h"\nworkspace = "/w"\n[limits]\nmessages = "x"\n', "limits.messages"),
        ("[agent\n", "box.toml:"),
        (
            '[agent]\nhome = "/h"\nworkspace = "/w"\n[tool.git.network]\ncontain_egress = "yes"\n',
            "tool.git.network.contain_egress: true or false",
        ),
        (
            '[agent]\nhome = "/h"\nworkspace = "/w"\n[tool.git.network]\nallow = 1\n',
            "tool.git.network.allow: true or false",
        ),
        (
            '[agent]\nhome = "/h"\nworkspace = "/w"\n[network]\nallow_urls = ["ftp://x/"]\n',
            'network.allow_urls: Protocol "ftp" not supported',
        ),
        (
            '[agent]\nhome = "/h"\nworkspace = "/w"\n[network]\ndeny_private_ranges = "no"\n',
            "network.deny_private_ranges: true or false",
        ),
        ('[agent]\nhome = "/h"\nworkspace = "/w"\n[network]\nallow = []\n', "network: unknown key(s) allow"),
        ('[agent]\nhome = "/h"\nworkspace = "/w"\n[policy]\nmode = "bogus"\n', "policy:"),
    ],
)
def test_bad_config(text: str, message: str) -> None:
    with pytest.raises(BoxConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_config(text)


def test_network_table() -> None:
    base = '[agent]\nhome = "/h"\nworkspace = "/w"\n'
    assert parse_config(base).network is None  # no table: curl has no network, contained programs none
    cfg = parse_config(base + '[network]\nallow_urls = "https://example.com/"\nmethods = "post"\n')
    assert cfg.network is not None  # a single string is a list of one
    assert (
        cfg.network.allowed_url_prefixes,
        cfg.network.allowed_methods,
        cfg.network.deny_private_ranges,
    ) == (("https://example.com/",), ("POST",), True)
    assert parse_config(base + "[network]\n").network is not None  # present and empty: nothing allowed


# -- host programs


def test_tool_matching() -> None:
    cfg = parse_config(
        '[agent]\nhome = "/h"\nworkspace = "/w"\n[agent.filesystem]\nexec = ["/usr/bin/git log"]\n'
        '[tool.gs]\ncommand = ["git", "status"]\n[tool.gsv]\ncommand = ["/usr/bin/git", "status", "-v"]\n'
    )
    git = resolve_program("git")
    m = match_tool(cfg, ["git", "status", "-v", "x"])
    assert m is not None and m.tool is not None and m.tool.name == "gsv" and m.program == git  # the longest
    m = match_tool(cfg, ["git", "status"])
    assert m is not None and m.tool is not None and m.tool.name == "gs"
    m = match_tool(cfg, ["git", "log", "-1"])
    assert m is not None and m.tool is not None and m.tool.command == ("/usr/bin/git", "log")  # an exec entry
    m = match_tool(cfg, ["git", "push"])
    assert m is not None and m.tool is None  # the file is named, no arguments match: refused
    assert match_tool(cfg, ["no-such-program-xyz"]) is None


@needs_bwrap
def test_git_through_a_tool_table(box: Box) -> None:
    done = box.run("-c", "git --version | tr a-z A-Z")
    assert (done.stdout.startswith("GIT VERSION "), done.stderr, done.returncode) == (True, "", 0)
    (box.root / "ws/a.txt").write_text("a\n")
    done = box.run(
        "-c", "git status --short; git status | head -1; git config user.email a@b; git config user.email"
    )
    # ws/secret is denied to git: masked by an empty directory, so git does not list it
    assert (done.stdout, done.stderr, done.returncode) == ("?? a.txt\nOn branch master\na@b\n", "", 0)
    assert "a@b" in (box.root / "ws/.git/config").read_text()  # the workspace is bound read-write


@needs_bwrap
def test_git_deny_path_unreadable(box: Box) -> None:
    done = box.run("-c", "git hash-object secret/key")
    assert done.returncode == 128
    assert done.stderr == "fatal: could not open 'secret/key' for reading: No such file or directory\n"
    # the shell itself (not the tool) still reads it: deny belongs to the tool's table
    assert box.run("-c", "cat secret/key").stdout == "s3cret\n"


@needs_bwrap
def test_write_outside_filesystem_write_refused_by_the_os_sandbox(box: Box) -> None:
    done = box.run(
        "-c", f"hosttouch {box.root}/shared/new; echo status=$?; hosttouch {box.root}/ws/inws; echo ok=$?"
    )
    assert "Read-only file system" in done.stderr
    assert "status=1" in done.stdout and "ok=0" in done.stdout
    assert not (box.root / "shared/new").exists()
    assert (box.root / "ws/inws").exists()
    # a path bound nowhere does not exist inside the sandbox
    done = box.run("-c", f"hosttouch {box.root}/operator/x")
    assert done.returncode == 1 and "No such file or directory" in done.stderr


@needs_bwrap
def test_host_program_streams_into_the_pipeline(box: Box) -> None:
    done = box.run(
        "-c", "printf 'b\\na\\n' > f; git hash-object --stdin < f | wc -c; echo x | git hash-object --stdin"
    )
    assert done.stdout.split() == ["41", "587be6b4c3f93f93c489c0111bba5596147a26cb"]


def test_program_without_a_table_refused(box: Box) -> None:
    done = box.run("-c", "perl -e 1; echo status=$?")
    perl = resolve_program("perl")
    assert done.stdout == "status=126\n"
    assert (
        done.stderr
        == f"bash: line 1: perl: effect denied: policy denied this operation on '{perl}' [default-deny]\n"
    )
    done = box.run("-c", "no-such-program-xyz")
    assert (done.stderr, done.returncode) == ("bash: line 1: no-such-program-xyz: command not found\n", 127)


@needs_bwrap
def test_policy_decides_shell_spawn(tmp_path: object) -> None:
    from pathlib import Path

    root = Path(str(tmp_path))
    (root / "w").mkdir()
    cfg = parse_config(
        f'[agent]\nhome = "{root}/h"\nworkspace = "{root}/w"\n[tool.git]\ncommand = ["git"]\n'
        f'[policy]\ncommands = {{deny = ["{resolve_program("git")}"]}}\n'
    )
    err: list[bytes] = []
    assert BoxRunner(cfg).run("git --version", lambda b: None, err.append) == 126
    assert b"effect denied: policy denied this operation on '" in err[0] and b"[policy: " in err[0]


@needs_bwrap
def test_deadline_kills_a_spawned_sleep(quick_box: Box) -> None:
    start = time.monotonic()
    done = quick_box.run("-c", "hostsleep 100; echo never")
    elapsed = time.monotonic() - start
    assert (done.stdout, done.stderr, done.returncode) == (
        "",
        "strands-shell: execution timeout exceeded\n",
        1,
    )
    assert elapsed < 30
    assert _gone("/usr/bin/sleep 100")


@needs_bwrap
def test_wrappers_reach_host_programs(box: Box) -> None:
    """timeout, env and xargs look a program up before they run it: a table's program is found."""
    start = time.monotonic()
    done = box.run(
        "-c",
        "timeout 1 hostsleep 100; echo status=$?; env git --version | cut -c1-11; "
        "echo --version | xargs git | cut -c1-11",
    )
    assert (done.stdout, done.stderr) == ("status=124\ngit version\ngit version\n", "")
    assert time.monotonic() - start < 20


@needs_bwrap
def test_endless_host_output_ends_with_its_pipeline(quick_box: Box) -> None:
    start = time.monotonic()
    done = quick_box.run("-c", "hostyes | head -2; printf 'a\\nb\\n' | hostcat | hostcat -n")
    assert (done.stdout, done.stderr, done.returncode) == ("y\ny\n     1\ta\n     2\tb\n", "", 0)
    assert time.monotonic() - start < 30


@needs_bwrap
def test_host_program_has_no_network_unless_allowed(box: Box) -> None:
    """A listener on the host's 127.0.0.1: unreachable from a table without network (its own
    loopback), reachable from one with `allow = true`."""
    import socket
    import threading

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        port = listener.getsockname()[1]
        accepted: list[int] = []

        def serve() -> None:
            while True:
                try:
                    conn, _ = listener.accept()
                except OSError:
                    return
                accepted.append(1)
                conn.close()

        server = threading.Thread(target=serve, daemon=True)
        server.start()
        try:
            url = f"http://127.0.0.1:{port}/x.git"
            done = box.run("-c", f"git ls-remote {url}; echo status=$?")
            assert done.stdout == "status=128\n" and "Couldn't connect to server" in done.stderr
            assert accepted == []
            done = box.run("-c", f"netgit ls-remote {url}; echo status=$?")
            assert done.stdout == "status=128\n" and "Couldn't connect" not in done.stderr
            assert accepted
        finally:
            listener.shutdown(socket.SHUT_RDWR)  # wakes the accept (a close alone does not)
            server.join(10)


def test_cli_serve_and_install_alias(tmp_path: object) -> None:
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(str(tmp_path))
    for d in ("h", "w"):
        (root / d).mkdir()
    (root / "box.toml").write_text(f'[agent]\nhome = "{root}/h"\nworkspace = "{root}/w"\n')
    sock = root / "s.sock"
    bad = subprocess.run(
        [sys.executable, "-m", "sandbash", "serve", "--socket", str(sock)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (bad.returncode, bad.stderr) == (
        2,
        "usage: sandbash serve --socket PATH --config box.toml\nTry 'sandbash serve --help' for more information.\n",
    )
    (root / "bad.toml").write_text("[agent]\nhome = 1\n")
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "sandbash",
            "serve",
            "--socket",
            str(sock),
            "--config",
            str(root / "bad.toml"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (bad.returncode, bad.stderr) == (2, "sandbash serve: agent: home and workspace are required\n")
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "sandbash",
            "serve",
            "--socket",
            str(sock),
            "--config",
            str(root / "box.toml"),
        ],
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while not sock.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        made = subprocess.run(
            [sys.executable, "-m", "sandbash", "install-alias", str(root / "bin"), "--socket", str(sock)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert made.stdout.split() == [str(root / "bin" / n) for n in ("bash", "sh", "zsh")]
        assert all(os.access(root / "bin" / n, os.X_OK) for n in ("bash", "sh", "zsh"))
        done = subprocess.run(
            [str(root / "bin/sh"), "-lc", "echo $HOME; pwd"], capture_output=True, text=True, timeout=60
        )
        assert (done.stdout, done.returncode) == (f"{root}/h\n{root}/w\n", 0)
    finally:
        server.terminate()
        server.wait(30)


@needs_bwrap
def test_client_gone_stops_its_command(box: Box) -> None:
    """A client that disconnects (the agent's bash was killed) stops its command: a spawned
    program is killed, a shell loop ends."""
    import socket

    for command in (b"echo started; hostsleep 77; echo never > late", b"echo started; while :; do :; done"):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.connect(str(box.socket))
            sock.sendall(b'{"command": "' + command + b'"}\n')
            first = next(frames(sock))
            assert first == (b"o", b"started\n")
        deadline = time.monotonic() + 15  # the connection's slot comes back once its run has ended
        while box.server.slots._value < 64 and time.monotonic() < deadline:  # type: ignore[attr-defined]
            time.sleep(0.05)
        assert box.server.slots._value == 64  # type: ignore[attr-defined]
        assert _gone("/usr/bin/sleep 77")
    assert not (box.root / "ws/late").exists()


def test_default_sandbox_starts_no_host_program() -> None:
    from sandbash import Bash

    result = Bash().exec("git --version; echo status=$?")
    assert result.stdout == "status=127\n" and "git: command not found" in result.stderr


def test_missing_bwrap_is_125(box: Box, monkeypatch: pytest.MonkeyPatch) -> None:
    from sandbash.box import spawn

    monkeypatch.setattr(
        spawn,
        "_probe",
        {"bwrap": None, "why": "bubblewrap (bwrap) is not installed: host programs cannot run contained"},
    )
    done = box.run("-c", "git --version; echo status=$?")
    assert done.stdout == "status=125\n"
    assert "git: bubblewrap (bwrap) is not installed" in done.stderr


def test_readme_box_toml_parses() -> None:
    """The README's complete box.toml is a valid config with every table the section describes."""
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = readme[readme.index("## Box mode") :]
    text = section[section.index("```toml\n") + 8 : section.index("```\n", section.index("```toml"))]
    cfg = parse_config(text)
    assert cfg.workspace == "/srv/agent/work" and cfg.exec_entries == (("/usr/bin/make",),)
    git = cfg.tools[0]
    assert (git.name, git.command, git.deny) == ("git", ("git",), ("/srv/agent/work/.secrets",))
    assert cfg.policy is not None and cfg.limits.timeout == 30
    assert git.contain_egress and cfg.network is not None and "POST" in cfg.network.allowed_methods
    assert cfg.network.allowed_url_prefixes == ("https://github.com/", "https://api.github.com/repos/")


@needs_bwrap
def test_list_grant_shows_names_only(box: Box) -> None:
    """`list` shows a directory's names; what is in them (file contents, a subdirectory's own
    names, a link's target) stays out unless another grant names it. T-BOX-4"""
    listed = box.root / "listed"
    done = box.run("-c", f"listls {listed}; listls {listed}/sub")
    assert done.stdout == "a.txt\nempty\nlink\nopen\nsub\n"
    # sub is only the way to the read grant inside it: it can be passed, not listed
    # (bubblewrap 0.8 has no --argv0: the program's argv[0] is its resolved path)
    assert (done.stderr, done.returncode) == (
        f"/usr/bin/ls: cannot open directory '{listed}/sub': Permission denied\n",
        2,
    )
    done = box.run(
        "-c",
        f"listcat {listed}/a.txt; echo s=$?; listls {listed}/empty; echo s=$?; "
        f"listcat {listed}/link; echo s=$?",
    )
    assert done.stdout == "s=1\ns=2\ns=1\n"
    assert done.stderr == (
        f"/usr/bin/cat: {listed}/a.txt: Permission denied\n"
        f"/usr/bin/ls: cannot open directory '{listed}/empty': Permission denied\n"
        f"/usr/bin/cat: {listed}/link: Permission denied\n"
    )
    # grants inside the listed directory still work, and a deny inside them still masks
    done = box.run(
        "-c", f"listls {listed}/open {listed}/open/masked {listed}/sub/deep; listcat {listed}/open/f"
    )
    assert done.stdout == (
        f"{listed}/open:\nf\nmasked\n\n{listed}/open/masked:\n\n{listed}/sub/deep:\nc.txt\n"
        "content of listed/open/f\n"
    )
    assert (done.stderr, done.returncode) == ("", 0)
    # the host directory is untouched
    assert sorted(p.name for p in listed.iterdir()) == ["a.txt", "empty", "link", "open", "sub"]
    assert (listed / "a.txt").read_text() == "content of listed/a.txt\n"


@needs_bwrap
def test_list_grant_staging_is_removed(
    box: Box, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    staging = tmp_path_factory.mktemp("staging")
    monkeypatch.setenv("TMPDIR", str(staging))
    done = box.run("-c", f"listls {box.root}/listed | wc -l; listls {box.root}/listed/sub/deep")
    assert (done.stdout, done.returncode) == ("5\nc.txt\n", 0)
    assert list(staging.iterdir()) == []


def test_list_grant_cap(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    from pathlib import Path

    from sandbash.box import spawn

    root = Path(str(tmp_path))
    (root / "big").mkdir()
    for i in range(5):
        (root / "big" / f"f{i}").write_text("")
    monkeypatch.setattr(spawn, "LIST_CAP", 4)
    stage = spawn.Staging(str(root))
    try:
        with pytest.raises(spawn.SpawnUnavailable, match="a list grant shows at most 4 entries"):
            stage.listing(str(root / "big"), [])
        with pytest.raises(spawn.SpawnUnavailable, match="cannot list it for a list grant: No such file"):
            stage.listing(str(root / "nothing"), [])
    finally:
        stage.close()
    assert sorted(p.name for p in root.iterdir()) == ["big"]


@needs_bwrap
def test_program_holds_no_capabilities(box: Box) -> None:
    """A read-only bind stays read-only even for a service running as root: the program cannot
    remount it read-write (it holds no capabilities). T-BOX-1"""
    shared = box.root / "shared"
    done = box.run(
        "-c",
        f"hostsh -c 'mount -o remount,bind,rw {shared} && touch {shared}/x; "
        'grep -E "^Cap(Prm|Eff)" /proc/self/status\'',
    )
    assert done.stdout == "CapPrm:\t0000000000000000\nCapEff:\t0000000000000000\n"
    assert not (shared / "x").exists()


@needs_bwrap
def test_argument_too_long_for_the_host(box: Box) -> None:
    """One argument past the kernel's 128 KiB: the program cannot be started (126, as bash)."""
    done = box.run("-c", "hostcat $(printf '%0140000d' 0); echo status=$?")
    assert (done.stdout, done.stderr) == ("status=126\n", "bash: line 1: hostcat: Argument list too long\n")


@pytest.mark.parametrize("sub", ["serve", "install-alias"])
@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_box_subcommands_have_help(sub: str, flag: str) -> None:
    """`sandbash serve --help` and `install-alias --help` describe the command and its options on
    stdout with status 0 (they printed only a usage line as an error)."""
    import subprocess
    import sys

    r = subprocess.run(
        [sys.executable, "-m", "sandbash", sub, flag], capture_output=True, text=True, timeout=60
    )
    assert (r.returncode, r.stderr) == (0, "")
    assert r.stdout.startswith(f"usage: sandbash {sub} ")
    assert "--socket PATH" in r.stdout and "-h, --help" in r.stdout and "Box mode" in r.stdout
