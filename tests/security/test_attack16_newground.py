"""Attack round 16, the features added last round, as an attacker who reads the code: ed's shell
escapes and writes, sed -i --follow-symlinks, gawk's inplace suffix, tar -d/-x/-t -C, SHELLOPTS
from the environment, exec. One fell: `tar -C DIR` of a directory the policy refuses said "No such
file or directory" (the round-14 class: a refusal must name its rule, FsView.stat_error); the
rest held and are kept here as guards.
"""

from __future__ import annotations

import pytest

from sandbash import Bash, Limits
from sandbash.policy import Action, Policy
from sandbash.vfs.facade import Vfs


def _decide(action: Action) -> bool | None:
    return False if "hidden" in (action.path or "") else None


FILES = ("/secret/key", "/data/a", "/workspace/hidden", "/workspace/ok")
POLICY = Policy(
    None, paths=["/data:ro", "/workspace:rw"], mode="remediation", decide=_decide, deny=["cat", "rm"]
)


def sandbox_vfs() -> Vfs:
    vfs = Vfs()
    view = vfs.view("/")
    for d in ("/data", "/workspace", "/secret/dir"):
        view.mkdir(d, parents=True)
    for p in FILES:
        view.write_bytes(p, b"line 1\nline 2\n")
    return vfs


def sandbox() -> Bash:
    return Bash(fs=sandbox_vfs(), cwd="/workspace", policy=POLICY, limits=Limits(timeout=20))


TAR = "tar cf t.tar ok; "
# (script, what stderr must say): a refused directory names its rule
TAR_DIRS = {
    "extract-no-grant": (
        TAR + "tar xf t.tar -C /secret",
        "tar: /secret: Cannot open: Permission denied [policy: paths.no-grant]",
    ),
    "list-no-grant": (
        TAR + "tar tf t.tar -C /secret/dir",
        "tar: /secret/dir: Cannot open: Permission denied [policy: paths.no-grant]",
    ),
    "diff-no-grant": (
        TAR + "tar -d -f t.tar -C /secret",
        "tar: /secret: Cannot open: Permission denied [policy: paths.no-grant]",
    ),
    "diff-decide": (
        TAR + "tar -d -f t.tar -C hidden",
        "tar: hidden: Cannot open: Permission denied [policy: decide]",
    ),
    "not-a-directory": (TAR + "tar xf t.tar -C ok", "tar: ok: Cannot open: Not a directory"),
    "missing": (TAR + "tar xf t.tar -C nope", "tar: nope: Cannot open: No such file or directory"),
}


@pytest.mark.parametrize("name", sorted(TAR_DIRS))
def test_tar_names_the_refusal_of_its_directory(name: str) -> None:
    script, said = TAR_DIRS[name]
    r = sandbox().exec(script + "; echo rc=$?")
    assert r.stdout == "rc=2\n" and r.stderr.startswith(said + "\n"), r


# held: nothing of /secret is read, nothing under /data or `hidden` is written, cat and rm never run
HELD = {
    "ed-read-escape": 'printf "r !cat /secret/key\\n,p\\nq\\n" | ed -s ok',
    "ed-read-escape-reader": 'printf "r !head /secret/key\\n,p\\nq\\n" | ed -s ok',
    "ed-bang": 'printf "!rm ok\\nq\\n" | ed -s ok',
    "ed-write-escape": 'printf ",p\\nw !cat\\nq\\n" | ed -s ok',
    "ed-edit-escape": 'printf "e !cat /secret/key\\n,p\\nq\\n" | ed -s ok',
    "ed-edit": 'printf "e /secret/key\\n,p\\nq\\n" | ed -s ok',
    "ed-read": 'printf "r /secret/key\\n,p\\nq\\n" | ed -s ok',
    "ed-write-read-only": 'printf "a\\nX\\n.\\nw /data/a\\nq\\n" | ed -s ok',
    "ed-filename-read-only": 'printf "f /data/a\\nw\\nq\\n" | ed -s ok',
    "ed-open-read-only": 'printf "a\\nX\\n.\\nw\\nq\\n" | ed -s /data/a',
    "sed-follow-read-only": "ln -s /data/a l; sed -i --follow-symlinks s/line/X/ l",
    "sed-follow-no-grant": "ln -s /secret/key l; sed -i --follow-symlinks s/line/X/ l",
    "sed-follow-decide": "ln -s hidden l; sed -i --follow-symlinks s/line/X/ l",
    "sed-follow-dir-link": "ln -s /data l2; sed -i --follow-symlinks s/line/X/ l2/a",
    "sed-backup-outside": 'sed -i"../../data/*" s/line/X/ ok',
    "gawk-suffix-outside": 'awk -i inplace -v inplace::suffix=/../../data/b "{print}" ok',
    "gawk-suffix-decide": 'awk -i inplace -v "inplace::suffix=/../hidden" "{print}" ok',
    "gawk-read-only": 'awk -i inplace -v INPLACE_SUFFIX=.bak "{print}" /data/a',
    "gawk-no-grant": 'awk -i inplace "{print}" /secret/key',
    "exec-denied": "exec cat /secret/key",
    "exec-a-denied": "exec -a foo rm ok",
    "exec-in-function": "x() { exec rm ok; }; x",
    "time-subshell": "time ( cat /secret/key )",
    "shellopts-env": "env SHELLOPTS=xtrace:noclobber bash -c 'cat /secret/key; rm ok'",
}


@pytest.mark.parametrize("name", sorted(HELD))
def test_new_commands_hold_the_policy(name: str) -> None:
    vfs = sandbox_vfs()
    bash = Bash(fs=vfs, cwd="/workspace", policy=POLICY, limits=Limits(timeout=20))
    r = bash.exec(HELD[name] + "; echo end")
    assert r.stdout.endswith("end\n") or name.startswith("exec"), r  # (a failed exec ends the shell)
    # the secret's text never reaches the script; every file is as it was and /data has no new name
    assert r.stdout.count("line 1") <= (1 if name.startswith("ed-") else 0), r
    view = vfs.view("/")
    # (what the policy lets the embedder's view read: /secret and `hidden` are refused to it too)
    assert [view.read_bytes(p) for p in ("/data/a", "/workspace/ok")] == [b"line 1\nline 2\n"] * 2, r
    assert sorted(view.listdir("/data")) == ["a"], r
