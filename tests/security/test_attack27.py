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


# Fell and fixed: python3's host-served modules ran on the embedding process's heap, outside
# Monty's limit, and charged only their arguments: what they made from them was not bounded.
# `logging` with "%(message)s" * 3000 and a 1 MB message made a 3 GB string (Monty then aborted
# the whole process allocating it), pprint.pformat(rows, indent=2000000) grew 7.6 GB,
# textwrap.indent of a million lines with a 5000-character prefix 4.9 GB, textwrap.fill with a
# long subsequent_indent 4.8 GB; urllib's quote, html.escape and shlex.quote made strings over
# max_string_length. Each now knows the most it can make before making it (or makes it a part
# at a time: quote, pformat's output) and ends at max_string_length.
HOST_MODULE_GROWTH = {
    "logging-repeated-field": 'import logging, sys\nm = "x" * 1000000\nlogging.basicConfig(format="%(message)s" * 3000, stream=sys.stdout)\nlogging.warning(m)',
    "pformat-indent": "import pprint\nrows = [[i, [i, [i]]] for i in range(3000)]\nprint(len(pprint.pformat(rows, indent=2000000, width=1)))",
    "textwrap-indent": 'import textwrap\nprint(len(textwrap.indent("a\\n" * 1000000, "p" * 5000)))',
    "textwrap-fill-indent": 'import textwrap\nprint(len(textwrap.fill("a " * 500000, width=2, subsequent_indent="i" * 5000)))',
    "urllib-quote": 'from urllib.parse import quote\nprint(len(quote("\\u20ac" * 2000000)))',
    "urlencode": 'from urllib.parse import urlencode\nprint(len(urlencode({"q": "\\u20ac" * 2000000})))',
    "html-escape": 'import html\nprint(len(html.escape("\\"" * 3000000)))',
    "shlex-quote": 'import shlex\nprint(len(shlex.quote("\'" * 3000000)))',
}


@pytest.mark.parametrize("name", sorted(HOST_MODULE_GROWTH))
def test_host_served_modules_make_nothing_past_the_limits(name: str) -> None:
    import shlex

    from secharness import run_isolated

    from sandbash import Limits

    limits = Limits(max_memory=64 << 20, timeout=60)
    out = run_isolated("python3 -c " + shlex.quote(HOST_MODULE_GROWTH[name]), limits=limits)
    assert out.kind == "limit" and out.limit == "max_string_length", out.describe()
    assert out.extra["peak_rss"] <= 256 << 20, f"grew {out.extra['peak_rss'] >> 20} MiB: " + out.describe()


def test_host_served_modules_still_give_cpythons_answers() -> None:
    from sandbash import Bash

    prog = (
        "import logging, sys, pprint, textwrap, html, shlex\n"
        "from urllib.parse import quote, quote_plus, urlencode\n"
        'logging.basicConfig(format="%(levelname)s:%(message)s", stream=sys.stdout)\n'
        'logging.warning("hi %s", 3)\n'
        'print(pprint.pformat({"a": [1, 2]}, indent=4))\n'
        'print(textwrap.fill("a b c d e f", width=3, initial_indent="> "))\n'
        'print(textwrap.indent("a\\nb", "  "), html.escape("<a&b\'>"), shlex.quote("it\'s"))\n'
        'print(quote("a b/\\u20ac"), quote_plus("a b&"), urlencode({"q": "x y", "n": [1, 2]}, doseq=True))\n'
        'big = quote("a/b \\u20ac" * 20000)\n'
        'print(len(big), big[:20], big == "".join(quote("a/b \\u20ac") for _ in range(20000)))\n'
    )
    r = Bash().exec("python3 -c " + __import__("shlex").quote(prog))
    assert (r.stdout, r.stderr, r.exit_code) == (
        "WARNING:hi 3\n{'a': [1, 2]}\n> a\nb c\nd e\nf\n  a\n  b &lt;a&amp;b&#x27;&gt; 'it'\"'\"'s'\n"
        "a%20b/%E2%82%AC a+b%26 q=x+y&n=1&n=2\n300000 a/b%20%E2%82%ACa/b%2 True\n",
        "",
        0,
    )


def test_a_sessions_next_run_looks_again() -> None:
    """What one run's lookups saw is not used by the session's next run, which counts its commands
    from 0 again: a file the embedder wrote between the calls is found."""
    from sandbash import Bash

    bash = Bash()
    session = bash.session()
    session.exec("mkdir -p /tmp/w; cd /tmp/w; PATH=/tmp/w:$PATH")
    assert session.exec(":; s; echo $?").stdout == "127\n"
    bash.write_file("/tmp/w/s", "echo hi\n")  # (not executable: found, and refused to run)
    r = session.exec(":; s; echo $?")
    assert (r.stdout, r.stderr) == ("126\n", "bash: line 1: /tmp/w/s: Permission denied\n")
