"""Attack round 18 on the policy and the filesystem.

Fell and fixed: `tar c -C DIR` of a directory tar cannot enter said "NAME: Cannot stat" per
name and went on (GNU: "DIR: Cannot open", fatal; a refused one names its rule).
`sed -i` and `gawk -i inplace` on a symbolic link replaced it with a file that
had the link's own bits, 0777 (a private file behind a link came back world-writable and
executable). GNU gives the new file the bits of the file the link named (FileRewrite).

Held, kept as guards: a denied command reached by another spelling or through another
program; a path outside the grants reached through /dev/fd, /proc/self/root, OLDPWD, CDPATH,
`cd -P`, a link or `~user`; host facts (users, host name, kernel) that must be the sandbox's.
"""

from __future__ import annotations

import pytest

from sandbash import Bash, Limits
from sandbash.policy import Action, Policy
from sandbash.vfs.facade import Vfs

SECRET = "secret-83c2f04e"


def _decide(action: Action) -> bool | None:
    return False if "hidden" in (action.path or "") else None


POLICY = Policy(
    None, paths=["/data:ro", "/workspace:rw"], mode="remediation", decide=_decide, deny=["cat", "rm"]
)


def sandbox() -> Bash:
    vfs = Vfs()
    view = vfs.view("/")
    for d in ("/data", "/workspace", "/secret/dir"):
        view.mkdir(d, parents=True)
    for p in ("/secret/key", "/data/a", "/workspace/hidden", "/workspace/ok"):
        view.write_bytes(p, f"line 1 {SECRET}\n".encode())
    return Bash(fs=vfs, cwd="/workspace", policy=POLICY, limits=Limits(timeout=20))


# -------------------------------------------------------------- in-place edits through a link

INPLACE = {
    "sed": "sed -i 's/1/9/' l",
    "sed-backup": "sed -i.bak 's/1/9/' l",
    "gawk": "gawk -i inplace '{ print }' l",
}


@pytest.mark.parametrize("edit", sorted(INPLACE))
@pytest.mark.parametrize("mode", ["600", "640", "755"])
def test_an_inplace_edit_of_a_link_keeps_the_named_files_bits(edit: str, mode: str) -> None:
    r = sandbox().exec(f"chmod {mode} ok; ln -s ok l; {INPLACE[edit]}; stat -c '%a %F' l ok")
    assert r.stderr == "" and r.exit_code == 0, r.stderr
    assert r.stdout == f"{mode} regular file\n{mode} regular file\n"


def test_an_inplace_edit_of_a_link_into_a_read_only_grant_leaves_the_target() -> None:
    r = sandbox().exec("ln -s /data/a l; sed -i 's/1/9/' l; stat -c '%a %F' l; grep -c 9 /data/a")
    assert r.stdout == "644 regular file\n0\n", r.stdout + r.stderr


# -------------------------------------------------------------- denied commands, other spellings

DENIED = {
    "command-p": "command -p cat ok",
    "builtin": "builtin cat ok; builtin command cat ok; enable -f /x cat cat; cat ok",
    "exec-a": "(exec -a foo cat ok)",
    "hash-p": "hash -p /bin/true cat; cat ok",
    "hash-p-other-name": "hash -p /usr/bin/cat foo; foo ok",
    "env-S": "env -S 'cat ok'",
    "env-i": "env -i cat ok",
    "xargs-sh-c": "echo ok | xargs sh -c 'cat \"$0\"'",
    "find-exec": "find . -name ok -exec cat {} \\;",
    "find-execdir-plus": "find . -name ok -execdir cat {} +",
    "find-ok": "find . -name ok -ok cat {} \\; <<< y",
    "timeout": "timeout 5 cat ok",
    "nice-nohup-stdbuf": "nice cat ok; nohup cat ok; stdbuf -o0 cat ok",
    "source-generated": "echo 'cat ok' > g; source g; . ./g; bash g; sh g",
    "trap-strings": "trap 'cat ok' EXIT; trap 'cat ok' ERR; false",
    "function-named-cat": 'cat() { command cat "$@"; }; cat ok',
    "alias": "shopt -s expand_aliases; alias c=cat\nc ok",
    "expanded-name": 'c=cat; $c ok; "$(echo cat)" ok; eval c\\at ok; \\cat ok; /bin/cat ok',
    "coproc-and-background": "coproc cat ok; wait; cat ok & wait",
    "awk-system-and-pipe": 'awk \'BEGIN { system("cat ok"); while (("cat ok" | getline l) > 0) print l }\'',
    "sed-e": "sed 'e cat ok' /dev/null; echo | sed '1e cat ok'",
    "ed-shell": "ed -s ok <<< '!cat ok'",
    "runtimes": "lua -e 'os.execute(\"cat ok\")'; sqlite3 :memory: '.shell cat ok'",
}


@pytest.mark.parametrize("name", sorted(DENIED))
def test_a_denied_command_stays_denied_by_another_spelling(name: str) -> None:
    r = sandbox().exec(DENIED[name])
    assert SECRET not in r.stdout + r.stderr
    assert "[policy: commands.deny]" in r.stderr, r.stderr


# -------------------------------------------------------------- paths outside the grants

PATHS = {
    "dev-fd-of-refused-open": "exec 3</secret/key; head /dev/fd/3",
    "proc-self-root": "head /proc/self/root/secret/key",
    "proc-1-root": "head /proc/1/root/secret/key",
    "oldpwd": "OLDPWD=/secret; cd - && head key; head $OLDPWD/key",
    "cdpath": "CDPATH=/secret cd dir; CDPATH=/ cd secret; head key",
    "cd-P-through-link": "ln -s /secret s; cd -P s; head s/key; head key",
    "tilde-user": "head ~root/../secret/key; head ~+/../secret/key",
    "link-chain": "ln -s /secret a; ln -s a b; head b/key; head b/../secret/key",
    "glob": "printf '%s\\n' /secret/* /secret/*/..; compgen -f /secret/; compgen -G '/secret/*'",
    "decide-via-link": "ln -s hidden h2; head h2; ln -s . d; head d/hidden",
    "tcp-udp": "head /dev/tcp/127.0.0.1/22; echo x > /dev/udp/127.0.0.1/53",
}


@pytest.mark.parametrize("name", sorted(PATHS))
def test_a_path_outside_the_grants_stays_unread(name: str) -> None:
    r = sandbox().exec(PATHS[name])
    assert SECRET not in r.stdout + r.stderr, r.stdout


def test_host_facts_are_the_sandboxs() -> None:
    r = sandbox().exec("id; whoami; hostname; uname -a; echo $HOSTNAME $USER $HOME; who; users")
    import getpass
    import socket

    host, user = socket.gethostname(), getpass.getuser()
    for fact in {host, user} - {"user", "sandbox", "root"}:
        assert fact not in r.stdout, fact


# -------------------------------------------------------------- tar -C while creating

TAR_DIRS = {
    "no-grant": (
        "tar cf t.tar -C /secret key",
        "tar: /secret: Cannot open: Permission denied [policy: paths.no-grant]",
    ),
    "decide": (
        "tar cf t.tar -C hiddend x",
        "tar: hiddend: Cannot open: Permission denied [policy: decide]",
    ),
    "chained-into-no-grant": (
        "tar cf t.tar -C /data -C ../secret key",
        "tar: ../secret: Cannot open: Permission denied [policy: paths.no-grant]",
    ),
    "missing": (
        "tar cf t.tar -C /workspace/nope ok",
        "tar: /workspace/nope: Cannot open: No such file or directory",
    ),
}


@pytest.mark.parametrize("name", sorted(TAR_DIRS))
def test_tar_create_names_a_refused_directory_and_stops(name: str) -> None:
    script, said = TAR_DIRS[name]
    r = sandbox().exec(script + "; echo rc=$?; wc -c < t.tar")
    assert r.stderr == said + "\ntar: Error is not recoverable: exiting now\n", r.stderr
    assert r.stdout == "rc=2\n0\n" and SECRET not in r.stdout
