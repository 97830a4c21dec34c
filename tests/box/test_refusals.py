"""Box mode's wording of a refused file operation: `policy denied this operation on '<path>'`
then `[policy: <id>]` or `[default-deny]`, wherever the refusal is printed (builtins,
redirections, commands), and only the seed's line when a limit ends the run. T-BOX-5"""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from sandbash.box.config import parse_config
from sandbash.box.runner import BoxRunner
from sandbash.vfs.errors import OPERATION_WORDING, RefusedCode, strerror


def _runner(root: Path, extra: str = "") -> BoxRunner:
    for d in ("home", "ws", "operator", "outside/sub"):
        (root / d).mkdir(parents=True, exist_ok=True)
    (root / "outside/note").write_text("x\n")
    (root / "ws/mine").write_text("m\n")
    return BoxRunner(
        parse_config(
            f'[agent]\nhome = "{root}/home"\nworkspace = "{root}/ws"\n'
            f'operator_home = "{root}/operator"\n'
            f'[agent.filesystem]\nread = ["{root}/outside"]\n{extra}'
        )
    )


def _run(runner: BoxRunner, script: str) -> tuple[str, str, int]:
    out: list[bytes] = []
    err: list[bytes] = []
    status = runner.run(script, out.append, err.append)
    return b"".join(out).decode(), b"".join(err).decode(), status


def _denied(path: str, tag: str = "[policy: reachable-paths]") -> str:
    return f"policy denied this operation on '{path}' {tag}"


# (script, stderr, status): {O} is a directory granted by [agent.filesystem] read but outside the
# reachable paths, {N} the file in it; each row is one kind of operation on a refused path
ROWS = [
    # read
    ("cat {N}", "cat: {N}: {D:N}\n", 1),
    ("head -1 {N}", "head: cannot open '{N}' for reading: {D:N}\n", 1),
    ("grep x {N}", "grep: {N}: {D:N}\n", 2),
    ("wc -l {N}", "wc: {N}: {D:N}\n", 1),
    ("sed -n p {N}", "sed: can't read {N}: {D:N}\n", 2),
    ("cp {N} copy", "cp: cannot stat '{N}': {D:N}\n", 1),
    ("stat -c %s {N}", "stat: cannot statx '{N}': {D:N}\n", 1),
    ("cat {N} | wc -c", "cat: {N}: {D:N}\n", 0),
    ("echo $(cat {N})", "cat: {N}: {D:N}\n", 0),
    # read through builtins and redirections
    ("cat < {N}", "bash: line 1: {N}: {D:N}\n", 1),
    ("read x < {N}", "bash: line 1: {N}: {D:N}\n", 1),
    ("mapfile a < {N}", "bash: line 1: {N}: {D:N}\n", 1),
    ("exec 3< {N}", "bash: line 1: {N}: {D:N}\n", 1),
    ("source {N}", "bash: line 1: {N}: {D:N}\n", 1),
    (". {N}", "bash: line 1: {N}: {D:N}\n", 1),
    ("cd {O}", "bash: line 1: cd: {O}: {D:O}\n", 1),
    # write
    ("echo hi > {O}/new", "bash: line 1: {O}/new: {D:O/new}\n", 1),
    ("echo hi >> {N}", "bash: line 1: {N}: {D:N}\n", 1),
    ("touch {O}/t", "touch: cannot touch '{O}/t': {D:O/t}\n", 1),
    ("mkdir {O}/d", "mkdir: cannot create directory ‘{O}/d’: {D:O/d}\n", 1),
    # GNU cp stats the destination first: a refusal there is 'cannot stat', as for EACCES
    ("cp mine {O}/c", "cp: cannot stat '{O}/c': {D:O/c}\n", 1),
    ("tee {O}/t < /dev/null", "tee: {O}/t: {D:O/t}\n", 1),
    ("truncate -s 0 {N}", "truncate: cannot open '{N}' for writing: {D:N}\n", 1),
    ("chmod 600 {N}", "chmod: cannot access '{N}': {D:N}\n", 1),
    # list
    ("ls {O}", "ls: cannot access '{O}': {D:O}\n", 2),
    ("ls -d {O}/sub", "ls: cannot access '{O}/sub': {D:O/sub}\n", 2),
    ("find {O}", "find: ‘{O}’: {D:O}\n", 1),
    # delete
    ("rm {N}", "rm: cannot remove '{N}': {D:N}\n", 1),
    ("rm -r {O}/sub", "rm: cannot remove '{O}/sub': {D:O/sub}\n", 1),
    ("rmdir {O}/sub", "rmdir: failed to remove '{O}/sub': {D:O/sub}\n", 1),
    # rename
    ("mv {N} moved", "mv: cannot stat '{N}': {D:N}\n", 1),
    # link
    ("ln {N} hard", "ln: failed to access '{N}': {D:N}\n", 1),
    ("ln -s x {O}/l", "ln: failed to create symbolic link '{O}/l': {D:O/l}\n", 1),
]


def _fill(text: str, outside: str) -> str:
    """{O}, {N}, and {D:X}: the refusal of X (O, N, or O/name)."""
    for key, path in (("O", outside), ("N", f"{outside}/note")):
        text = text.replace("{D:" + key + "}", _denied(path))
    while "{D:O/" in text:
        start = text.index("{D:O/")
        end = text.index("}", start)
        text = text[:start] + _denied(outside + text[start + 4 : end]) + text[end + 1 :]
    return text.replace("{O}", outside).replace("{N}", f"{outside}/note")


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory) -> tuple[BoxRunner, str]:
    root = tmp_path_factory.mktemp("refusals")
    return _runner(root), str(root / "outside")


@pytest.mark.parametrize(("script", "stderr", "status"), ROWS, ids=[r[0] for r in ROWS])
def test_refused_operation_wording(
    runner: tuple[BoxRunner, str], script: str, stderr: str, status: int
) -> None:
    box, outside = runner
    _, err, got = _run(box, _fill(script, outside))
    assert (err, got) == (_fill(stderr, outside), status)
    assert "Permission denied" not in err


def test_refused_operation_leaves_the_host_alone(runner: tuple[BoxRunner, str]) -> None:
    box, outside = runner
    _run(
        box, f"rm {outside}/note; echo x > {outside}/new; mv {outside}/note {outside}/n2; rm -r {outside}/sub"
    )
    assert sorted(p.name for p in Path(outside).iterdir()) == ["note", "sub"]
    assert (Path(outside) / "note").read_text() == "x\n"


def test_default_deny_and_policy_rules(tmp_path: Path) -> None:
    """A path no [policy] grant covers reads `[default-deny]`; a static rule names itself."""
    ws = tmp_path / "ws"
    box = _runner(tmp_path, f'[policy]\nmode = "read-only"\npaths = ["{ws}:ro", "/tmp:rw"]\n')
    out, err, status = _run(box, "cat /etc/hostname; echo x > mine; cat mine")
    assert out == "m\n" and status == 0
    assert err == (
        f"cat: /etc/hostname: {_denied('/etc/hostname', '[default-deny]')}\n"
        f"bash: line 1: mine: {_denied(f'{ws}/mine', '[policy: mode.read-only]')}\n"
    )


def test_the_policy_decides_on_the_path_it_resolved(runner: tuple[BoxRunner, str]) -> None:
    """The spelling the script used stays in the command's own prefix; the quoted path is the
    canonical one the policy was asked about."""
    box, outside = runner
    _, err, status = _run(box, f"cd {outside}/..; cat outside/./note")
    assert err == f"cat: outside/./note: {_denied(outside + '/note')}\n" and status == 1


def test_sandbash_wording_elsewhere() -> None:
    """Outside box mode a refusal keeps sandbash's wording; the code survives pickling."""
    from sandbash import Bash
    from sandbash.policy import Policy

    result = Bash(files={"/d/f": "x"}, policy=Policy(paths=["/tmp:rw"])).exec("cat /d/f")
    assert result.stderr == "cat: /d/f: Permission denied [policy: paths.no-grant]\n"
    code = RefusedCode(13, "r", "/p", OPERATION_WORDING)
    assert pickle.loads(pickle.dumps(code)).target == "/p" and strerror(code) == _denied("/p", "[policy: r]")
    assert strerror(RefusedCode(13, "paths.no-grant")) == "Permission denied [policy: paths.no-grant]"


@pytest.mark.parametrize(
    ("script", "message"),
    [
        (
            "echo before; head -c 10485761 /dev/zero > /tmp/big; echo never",
            "file size limit exceeded (10485760 bytes)",
        ),
        (
            "echo before; head -c 10485760 /dev/zero > /tmp/f; echo x >> /tmp/f; echo never",
            "file size limit exceeded (10485760 bytes)",
        ),
        ("echo before; truncate -s 11M /tmp/sparse; echo never", "file size limit exceeded (10485760 bytes)"),
        (
            "echo before; head -c 10485761 /dev/zero | cat > /tmp/big; echo never",
            "file size limit exceeded (10485760 bytes)",
        ),
        (
            "echo before; mkdir /tmp/d && cd /tmp/d && for i in $(seq 10001); do : > f$i; done; echo never",
            "in-memory entry limit exceeded (10000 entries)",
        ),
    ],
)
def test_limit_message_first_and_alone(runner: tuple[BoxRunner, str], script: str, message: str) -> None:
    """A limit of the memory filesystem ends the run: its line is the only stderr (no `File too
    large` or `No space left on device` from the command first), status 1."""
    box, _ = runner
    assert _run(box, script) == ("before\n", f"strands-shell: {message}\n", 1)
