"""Attack round 27: last round's leftovers (PATH searches meeting refused directories, memory
charged for what is held, /dev/fd/N after a rename) and what was built recently (python3's
host-served modules, tar's delayed links, the no-fork exec, job tables in `$( )`).

Fell and fixed: a PATH search was made twice for one command (the first-word check, then the
run; `type`, `command -v` and `hash` checked visibility with one search and answered with
another; `env`, `xargs`, `timeout` ... searched, then their child searched again), so a refused
directory in PATH gave two or three audited refusals for one decision. The lookups of one command
now stat each path once. A program run by exec (env, xargs, timeout, nohup, nice, find -exec,
stdbuf) whose search met a refused directory said 'No such file or directory', status 127:
execvp's answer there is EACCES (GNU: 'Permission denied', 126), now with the policy's rule.
"""

from __future__ import annotations

import pytest

POLICY_FILES = {"/secret/s": "echo leaked\n", "/secret/d/x": "echo leaked\n"}


def _run_audited(script: str) -> tuple[str, str, list[str]]:
    from sandbash import Bash
    from sandbash.audit import Audit, ListSink
    from sandbash.policy import Policy

    sink = ListSink()
    bash = Bash(
        policy=Policy(paths=["/tmp:rw"], mode="remediation"),
        audit=Audit([sink], decisions="deny"),
        files=POLICY_FILES,
    )
    r = bash.exec("cd /tmp; " + script)
    refused = [e.fields["target"] for e in sink.events if e.kind == "decision"]
    return r.stdout, r.stderr, refused


NOT_FOUND = "bash: line 1: s: command not found\n"
DENIED = "Permission denied [policy: paths.no-grant]"

# (script, stdout, stderr, the refusals audited): bash searches PATH once per command, and a
# directory it may not search makes a simple command 'not found' (findcmd.c skips it)
PATH_SEARCHES = [
    ("PATH=/secret:/usr/bin; s; echo $?", "127\n", NOT_FOUND, ["/secret/s"]),
    ("PATH=/secret/d:/usr/bin; x; echo $?", "127\n", "bash: line 1: x: command not found\n", ["/secret/d/x"]),
    ("PATH=/secret s; echo $?", "127\n", NOT_FOUND, ["/secret/s"]),
    ("PATH=/secret:/usr/bin; s; s; echo $?", "127\n", NOT_FOUND * 2, ["/secret/s"] * 2),
    ("PATH=/secret:/usr/bin; for i in 1 2; do s; done", "", NOT_FOUND * 2, ["/secret/s"] * 2),
    ("PATH=/secret:/usr/bin; (s); x=$(s); s & wait $!; echo $?", "127\n", NOT_FOUND * 3, ["/secret/s"] * 3),
    ("PATH=/secret:/usr/bin; s | cat", "", NOT_FOUND, ["/secret/s", "/secret/cat"]),
    ("PATH=/secret:/usr/bin; ls /tmp >/dev/null; ls /tmp; echo $?", "0\n", "", ["/secret/ls"]),
    ("PATH=/secret:/usr/bin; { time s; } 2>/dev/null; eval s", "", NOT_FOUND, ["/secret/s"] * 2),
    ("PATH=/secret:/usr/bin; command s; echo $?", "127\n", NOT_FOUND, ["/secret/s"]),
    ("PATH=/secret; type s; echo $?", "1\n", "bash: line 1: type: s: not found\n", ["/secret/s"]),
    ("PATH=/secret; type -a s; echo $?", "1\n", "bash: line 1: type: s: not found\n", ["/secret/s"]),
    ("PATH=/secret; type -P s; echo $?", "1\n", "", ["/secret/s"]),
    ("PATH=/secret; command -v s; echo $?", "1\n", "", ["/secret/s"]),
    ("PATH=/secret; command -V s; echo $?", "1\n", "bash: line 1: command: s: not found\n", ["/secret/s"]),
    ("PATH=/secret; hash s; echo $?", "1\n", "bash: line 1: hash: s: not found\n", ["/secret/s"]),
    (
        "PATH=/secret:/usr/bin; type s ls",
        "ls is /usr/bin/ls\n",
        "bash: line 1: type: s: not found\n",
        ["/secret/s", "/secret/ls"],
    ),
    (
        "hash -p /secret/s s; s; echo $?",
        "127\n",
        NOT_FOUND,
        ["/secret/s"] * 2,
    ),  # hash -p, then s: a command each
    # a program exec'ed by a program: execvp's EACCES for a directory it may not search
    ("PATH=/secret:/usr/bin; env s; echo $?", "126\n", f"env: ‘s’: {DENIED}\n", ["/secret/env", "/secret/s"]),
    (
        "PATH=/secret:/usr/bin; env /secret/s; echo $?",
        "126\n",
        f"env: ‘/secret/s’: {DENIED}\n",
        ["/secret/env", "/secret/s"],
    ),
    ("env PATH=/secret s; echo $?", "126\n", f"env: ‘s’: {DENIED}\n", ["/secret/s"]),
    (
        "PATH=/secret:/usr/bin; echo a | xargs s; echo $?",
        "126\n",
        f"xargs: s: {DENIED}\n",
        ["/secret/xargs", "/secret/s"],
    ),
    (
        "PATH=/secret:/usr/bin; timeout 5 s; echo $?",
        "126\n",
        f"timeout: failed to run command ‘s’: {DENIED}\n",
        ["/secret/timeout", "/secret/s"],
    ),
    (
        "PATH=/secret:/usr/bin; nohup s; echo $?",
        "126\n",
        f"nohup: failed to run command 's': {DENIED}\n",
        ["/secret/nohup", "/secret/s"],
    ),
    (
        "PATH=/secret:/usr/bin; nice s; echo $?",
        "126\n",
        f"nice: ‘s’: {DENIED}\n",
        ["/secret/nice", "/secret/s"],
    ),
    (
        "PATH=/secret:/usr/bin; find /tmp -maxdepth 0 -exec s \\;; echo $?",
        "0\n",
        f"find: ‘s’: {DENIED}\n",
        ["/secret/find", "/secret/s"],
    ),
    ("PATH=/secret:/usr/bin; env ls -d /tmp; echo $?", "/tmp\n0\n", "", ["/secret/env", "/secret/ls"]),
    ("PATH=/secret:/usr/bin; echo /tmp | xargs ls -d", "/tmp\n", "", ["/secret/xargs", "/secret/ls"]),
    ("PATH=/secret:/usr/bin; timeout 5 ls -d /tmp", "/tmp\n", "", ["/secret/timeout", "/secret/ls"]),
    ("PATH=/secret:/usr/bin; exec s", "", "bash: line 1: exec: s: not found\n", ["/secret/s"]),
]


@pytest.mark.parametrize(("script", "out", "err", "refused"), PATH_SEARCHES)
def test_a_path_search_is_one_decision(script: str, out: str, err: str, refused: list[str]) -> None:
    assert _run_audited(script) == (out, err, refused)


# What the search saw is used only while nothing ran since: a `$( )` in the words, or an
# arithmetic assignment to PATH, is seen by the run's own search, as bash searches after expanding
SEARCH_AGAIN = [
    ("PATH=/tmp/w:/usr/bin; cat \"$(printf 'echo mine' > /tmp/w/cat; chmod +x /tmp/w/cat)\"", "mine\n"),
    ("PATH=/tmp/w:/usr/bin; s2 $(chmod +x /tmp/w/s2); echo $?", "s2 ran\n0\n"),
    ("PATH=/tmp/w:/usr/bin; s3 $((PATH=5)); echo $?", "127\n"),
    ("PATH=/tmp/w:/usr/bin; s3; echo $?", "s3 ran\n0\n"),
]


@pytest.mark.parametrize(("script", "expected"), SEARCH_AGAIN)
def test_the_run_searches_again_after_something_ran(script: str, expected: str) -> None:
    from sandbash import Bash

    bash = Bash(files={"/tmp/w/s2": "echo s2 ran\n", "/tmp/w/s3": "echo s3 ran\n"})
    assert bash.exec("chmod +x /tmp/w/s3; " + script + " 2>/dev/null").stdout == expected
