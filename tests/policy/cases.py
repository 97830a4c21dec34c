"""The (policy, script) -> (status, stderr, events) table, bypass attempts included.

Every case runs in a fresh sandbox whose cwd is /workspace, holding:
  /data/a.txt "alpha", /data/b.txt "beta", /data/lib.sh (echo sourced), /secret/key "TOPSECRET",
  /workspace/notes "n", /workspace/link -> /secret/key, /workspace/run.sh (cat /data/a.txt).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sandbash.policy import Action, Decision, Policy

PATHS = ["/data:ro", "/workspace:rw"]
ALL = Policy(paths=PATHS, mode="remediation", name="all")
NOCAT = Policy(deny=["cat"], paths=PATHS, mode="remediation", name="nocat")
LIST = Policy(
    [
        "cat",
        "ls",
        "grep",
        "find",
        "xargs",
        "sh",
        "bash",
        "awk",
        "sed",
        "wc",
        "sort",
        "head",
        "tr",
        "touch",
        "mkdir",
        "cp",
        "mv",
        "env",
        "timeout",
        "nice",
        "nohup",
        "tee",
        "ln",
        "rm",
        "tar",
        "chmod",
        "stat",
        "base64",
    ],
    paths=PATHS,
    mode="remediation",
    name="list",
)
NOSHELL = Policy(
    ["cat", "find", "xargs", "awk", "sed", "sort"],
    deny=["cat"],
    paths=PATHS,
    mode="remediation",
    name="noshell",
)
RO = Policy(paths=PATHS, mode="read-only", name="ro")
OPEN = Policy(name="open")
TIGHT = Policy(["ls"], deny=["eval"], paths=["/data:ro"], mode="read-only", name="tight")


def _decide(a: Action) -> Decision | bool | None:
    if a.kind == "shell:exec" and "--force" in a.argv:
        return Decision.deny("no-force", "--force is not allowed")
    if a.kind == "shell:exec" and a.target == "wc":
        return False
    if a.kind == "fs:read" and a.target == "/data/b.txt":
        return (False, "b is embargoed")
    return None


DECIDE = Policy(paths=PATHS, mode="remediation", decide=_decide, name="decide")

DECIDE_NET = Policy(decide=lambda a: (False, "no requests") if a.kind == "http:request" else None, name="net")

DENIED = "policy denied this command"
EACCES = "Permission denied"
WAIT = "waiting for executor hook"


@dataclass
class Case:
    id: str
    policy: Policy
    script: str
    status: int
    err: list[str] = field(default_factory=list)  # substrings of stderr
    out: str | None = None  # exact stdout
    events: list[tuple[str, str, str]] = field(default_factory=list)  # (action, target, decision) present
    absent: list[tuple[str, str, str]] = field(default_factory=list)  # must not be present
    not_out: str = "TOPSECRET"  # never in stdout
    files: dict[str, bool] = field(default_factory=dict)  # path -> exists afterwards
    xfail: str = ""
    network: bool = False  # curl/wget for https://api.example.com/ (a stub resolver; nothing connects)


def refused(name: str, rule: str) -> str:
    return f"{name}: {DENIED} [policy: {rule}]"


CASES: list[Case] = [
    # ---------------------------------------------------------------- commands: allow and deny lists
    Case(
        "allow-list-runs",
        LIST,
        "cat /data/a.txt",
        0,
        out="alpha\n",
        events=[("shell:exec", "cat", "allow"), ("fs:read", "/data/a.txt", "allow")],
    ),
    Case(
        "allow-list-refuses",
        LIST,
        "curl http://x",
        126,
        err=[refused("curl", "commands.allow")],
        events=[("shell:exec", "curl", "deny")],
    ),
    Case(
        "refusal-lists-allowed",
        LIST,
        "python3 -c 1",
        126,
        err=["allowed commands: awk, base64, bash, cat", "(and the shell builtins)"],
    ),
    Case(
        "deny-list",
        NOCAT,
        "cat /data/a.txt",
        126,
        err=[refused("cat", "commands.deny"), "denied commands: cat"],
        out="",
    ),
    Case("deny-list-others-run", NOCAT, "head -1 /data/a.txt", 0, out="alpha\n"),
    Case(
        "deny-wins-over-allow",
        Policy({"allow": ["cat"], "deny": ["cat"]}),
        "cat /data/a.txt",
        126,
        err=[refused("cat", "commands.deny")],
    ),
    Case("status-and-continue", NOCAT, "cat /data/a.txt; echo after $?", 0, out="after 126\n"),
    Case(
        "builtins-implicit", LIST, "cd /data; pwd; echo hi; printf '%s\\n' x; true", 0, out="/data\nhi\nx\n"
    ),
    Case("builtin-denied", TIGHT, "eval ls", 126, err=[refused("eval", "commands.deny")]),
    Case("path-form", NOCAT, "/bin/cat /data/a.txt", 126, err=[refused("/bin/cat", "commands.deny")]),
    Case("usr-bin-form", NOCAT, "/usr/bin/cat /data/a.txt", 126, err=["policy denied"]),
    Case(
        "quoted-name",
        NOCAT,
        "'cat' /data/a.txt; \"c\"at /data/a.txt; \\cat /data/a.txt; c\\at /data/a.txt",
        126,
        out="",
    ),
    Case("ansi-c-name", NOCAT, "$'\\x63at' /data/a.txt", 126, err=[DENIED], out=""),
    Case("brace-name", NOCAT, "{cat,/data/a.txt}", 126, err=[DENIED], out=""),
    Case("variable-name", NOCAT, "c=cat; $c /data/a.txt", 126, err=[DENIED], out=""),
    Case("built-name", NOCAT, "c=ca; ${c}t /data/a.txt", 126, err=[DENIED], out=""),
    Case("ifs-split-name", NOCAT, "IFS=,; x=cat,/data/a.txt; $x", 126, err=[DENIED], out=""),
    Case("array-name", NOCAT, 'a=(cat /data/a.txt); "${a[@]}"', 126, err=[DENIED], out=""),
    Case("printf-v-name", NOCAT, "printf -v c %s cat; $c /data/a.txt", 126, err=[DENIED], out=""),
    Case("read-name", NOCAT, "read c <<< cat; $c /data/a.txt", 126, err=[DENIED], out=""),
    Case("subst-name", NOCAT, "$(echo cat) /data/a.txt", 126, err=[DENIED], out=""),
    Case("eval-built", NOCAT, 'c=ca; eval "${c}t /data/a.txt"', 126, err=[DENIED], out=""),
    Case("eval-nested", NOCAT, "eval eval cat /data/a.txt", 126, err=[DENIED], out=""),
    Case("alias", NOCAT, "shopt -s expand_aliases\nalias c=cat\nc /data/a.txt", 126, err=[DENIED], out=""),
    Case("function-wrapper", NOCAT, 'f() { cat "$@"; }; f /data/a.txt', 126, err=[DENIED], out=""),
    Case("function-shadows-allowed", NOCAT, "ls() { cat /data/a.txt; }; ls", 126, err=[DENIED], out=""),
    Case("function-under-allow-list", LIST, "greet() { echo hi; }; greet", 0, out="hi\n"),
    Case("command-builtin", NOCAT, "command cat /data/a.txt", 126, err=[DENIED], out=""),
    Case("command-p", NOCAT, "command -p cat /data/a.txt", 126, err=[DENIED], out=""),
    Case("builtin-cat", NOCAT, "builtin cat /data/a.txt", 1, err=["not a shell builtin"], out=""),
    Case("builtin-eval", NOCAT, "builtin eval 'cat /data/a.txt'", 126, err=[DENIED], out=""),
    Case("builtin-gated", TIGHT, "builtin eval ls", 126, err=[refused("eval", "commands.deny")]),
    Case("exec-command", NOCAT, "exec cat /data/a.txt", 126, err=[DENIED], out=""),
    Case("env-wrapper", NOCAT, "env cat /data/a.txt", 126, err=[DENIED], out=""),
    Case("env-assign-wrapper", NOCAT, "env X=1 cat /data/a.txt", 126, err=[DENIED], out=""),
    Case("timeout-wrapper", NOCAT, "timeout 5 cat /data/a.txt", 126, err=[DENIED], out=""),
    Case("nice-wrapper", NOCAT, "nice cat /data/a.txt", 126, err=[DENIED], out=""),
    Case("nohup-wrapper", NOCAT, "nohup cat /data/a.txt", 126, err=[DENIED], out=""),
    Case("time-keyword", NOCAT, "time cat /data/a.txt", 126, err=[DENIED], out=""),
    # xargs exits 126 when its command cannot be run, as GNU xargs does
    Case("xargs", NOCAT, "echo /data/a.txt | xargs cat", 126, err=[DENIED], out=""),
    Case("xargs-sh-c", NOCAT, "echo /data/a.txt | xargs sh -c 'cat \"$0\"'", 126, err=[DENIED], out=""),
    Case(
        "xargs-sh-refused",
        NOSHELL,
        "echo x | xargs sh -c 'echo $0'",
        126,
        err=[refused("sh", "commands.allow")],
    ),
    Case("find-exec", NOCAT, "find /data -name a.txt -exec cat {} \\;", 0, err=[DENIED], out=""),
    Case("find-exec-plus", NOCAT, "find /data -name '*.txt' -exec cat {} +", 1, err=[DENIED], out=""),
    Case("find-execdir", NOCAT, "find /data -name a.txt -execdir cat {} \\;", 0, err=[DENIED], out=""),
    Case("awk-system", NOCAT, "awk 'BEGIN { system(\"cat /data/a.txt\") }'", 0, err=[DENIED], out=""),
    Case("awk-pipe", NOCAT, 'awk \'BEGIN { print "x" | "cat" }\'', 0, err=[DENIED], out=""),
    Case(
        "awk-getline-cmd",
        NOCAT,
        "awk 'BEGIN { \"cat /data/a.txt\" | getline x; print x }'",
        0,
        err=[DENIED],
        out="\n",
    ),
    Case("sed-e", NOCAT, "echo x | sed 'e cat /data/a.txt'", 0, err=[DENIED]),
    Case("bash-c", NOCAT, "bash -c 'cat /data/a.txt'", 126, err=[DENIED], out=""),
    Case("sh-c-refused", NOSHELL, "sh -c 'echo hi'", 126, err=[refused("sh", "commands.allow")], out=""),
    Case("bash-script-file", NOCAT, "bash /workspace/run.sh", 126, err=[DENIED], out=""),
    Case(
        "script-by-path",
        LIST,
        "chmod +x /workspace/run.sh; /workspace/run.sh",
        126,
        err=[refused("/workspace/run.sh", "commands.allow")],
    ),
    Case(
        "source-runs-gated",
        NOCAT,
        "echo 'cat /data/a.txt' > /workspace/s.sh; . /workspace/s.sh",
        126,
        err=[DENIED],
        out="",
    ),
    # as in bash, the EXIT trap's last status does not become the script's
    Case("trap-exit", NOCAT, "trap 'cat /data/a.txt' EXIT; echo bye", 0, err=[DENIED], out="bye\n"),
    Case(
        "mapfile-callback",
        NOCAT,
        "mapfile -C 'cat /data/a.txt #' -c 1 arr < /data/a.txt",
        0,
        err=[DENIED],
        out="",
    ),
    # `wait` with no operand returns 0, as in bash
    Case("coproc", NOCAT, "coproc cat /data/a.txt; wait", 0, err=[DENIED], out=""),
    Case("subshell", NOCAT, "(cat /data/a.txt)", 126, err=[DENIED], out=""),
    Case("pipeline", NOCAT, "echo x | cat", 126, err=[DENIED], out=""),
    Case("background", NOCAT, "cat /data/a.txt & wait $!", 126, err=[DENIED], out=""),
    Case("cmdsub-in-args", NOCAT, "echo $(cat /data/a.txt)", 0, err=[DENIED], out="\n"),
    Case("procsub", NOCAT, "wc -l < <(cat /data/a.txt)", 0, err=[DENIED], out="0\n"),
    Case(
        "no-expansion-before-refusal",
        NOCAT,
        "cat $(touch /workspace/pwned) /data/a.txt",
        126,
        err=[DENIED],
        files={"/workspace/pwned": False},
    ),
    Case(
        "no-redirect-before-refusal",
        NOCAT,
        "cat > /workspace/made",
        126,
        err=[DENIED],
        files={"/workspace/made": False},
    ),
    Case("help-probe", NOCAT, "type cat", 1, err=["cat: not found"]),
    Case("command-v-probe", NOCAT, "command -v cat || echo none", 0, out="none\n"),
    Case("help-lists", NOCAT, "help | grep -c 'denied by policy: cat'", 0, out="1\n"),
    # ---------------------------------------------------------------- files: grants
    Case("read-granted", ALL, "cat /data/a.txt /workspace/notes", 0, out="alpha\nn\n"),
    Case(
        "read-ungranted",
        ALL,
        "cat /secret/key",
        1,
        err=["cat: /secret/key: Permission denied"],
        events=[("fs:read", "/secret/key", "deny")],
    ),
    Case("redirect-in-denied", ALL, 'read x < /secret/key; echo "[$x]"', 0, err=[EACCES], out="[]\n"),
    Case("dollar-lt-file-denied", NOCAT, 'x=$(</secret/key); echo "[$x]"', 0, err=[EACCES], out="[]\n"),
    Case("dollar-lt-file-allowed", NOCAT, 'x=$(</data/a.txt); echo "$x"', 0, out="alpha\n"),
    Case(
        "write-ro-grant",
        ALL,
        "echo x > /data/new",
        1,
        err=[EACCES],
        files={"/data/new": False},
        events=[("fs:create", "/data/new", "deny")],
    ),
    Case("append-ro-grant", ALL, "echo x >> /data/a.txt", 1, err=[EACCES]),
    Case(
        "write-rw-grant",
        ALL,
        "echo x > /workspace/new; cat /workspace/new",
        0,
        out="x\n",
        files={"/workspace/new": True},
    ),
    Case("write-ungranted", ALL, "echo x > /tmp/new", 1, err=[EACCES], files={"/tmp/new": False}),
    Case("exec-redirect-read", ALL, "exec 3</secret/key; cat <&3", 1, err=[EACCES]),
    Case("exec-redirect-write", ALL, "exec 4>/data/x", 1, err=[EACCES], files={"/data/x": False}),
    # bash (not in POSIX mode) goes on after a failed `exec` redirection
    Case(
        "exec-stdout-redirect",
        ALL,
        "exec >/data/x; echo hi",
        0,
        err=[EACCES],
        out="hi\n",
        files={"/data/x": False},
    ),
    Case("cd-denied", ALL, "cd /secret", 1, err=["cd: /secret: Permission denied"]),
    Case(
        "cd-then-relative",
        ALL,
        "cd /; cat secret/key",
        1,
        err=[EACCES],
        events=[("fs:read", "/secret/key", "deny")],
    ),
    Case("dotdot", ALL, "cat /data/../secret/key", 1, err=[EACCES]),
    Case(
        "symlink-into-denied",
        ALL,
        "cat /workspace/link",
        1,
        err=[EACCES],
        events=[("fs:read", "/secret/key", "deny")],
    ),
    Case(
        "new-symlink-into-denied", ALL, "ln -s /secret/key /workspace/l2; cat /workspace/l2", 1, err=[EACCES]
    ),
    Case("symlink-dir", ALL, "ln -s /secret /workspace/sd; cat /workspace/sd/key", 1, err=[EACCES]),
    Case(
        "hard-link-out",
        ALL,
        "ln /secret/key /workspace/hl; cat /workspace/hl",
        1,
        err=[EACCES],
        files={"/workspace/hl": False},
        events=[("fs:stat", "/secret/key", "deny")],
    ),
    Case(
        "cp-from-denied", ALL, "cp /secret/key /workspace/k", 1, err=[EACCES], files={"/workspace/k": False}
    ),
    Case("cp-to-ro", ALL, "cp /workspace/notes /data/", 1, err=[EACCES]),
    Case("cp-granted", ALL, "cp /data/a.txt /workspace/c && cat /workspace/c", 0, out="alpha\n"),
    Case("mv-out-of-ro", ALL, "mv /data/a.txt /workspace/", 1, err=[EACCES], files={"/data/a.txt": True}),
    Case("rm-in-ro", ALL, "rm /data/a.txt", 1, err=[EACCES], files={"/data/a.txt": True}),
    Case("rm-in-rw", ALL, "rm /workspace/notes", 0, files={"/workspace/notes": False}),
    Case("mkdir-denied", ALL, "mkdir /secret/d", 1, err=[EACCES]),
    Case("chmod-ro", ALL, "chmod 600 /data/a.txt", 1, err=[EACCES]),
    Case("touch-ro", ALL, "touch /data/a.txt", 1, err=[EACCES]),
    Case("ls-root", ALL, "ls /", 2, err=[EACCES]),
    Case("ls-granted", ALL, "ls /data", 0, out="a.txt\nb.txt\nlib.sh\n"),
    Case("stat-above-grant", ALL, "[ -d / ] && [ -d /data ] && echo ok", 0, out="ok\n"),
    Case(
        "test-denied",
        ALL,
        "[ -f /secret/key ] && echo yes || echo no",
        0,
        out="no\n",
        events=[("fs:stat", "/secret/key", "deny")],
    ),
    Case("glob-denied", ALL, "echo /secret/*", 0, out="/secret/*\n", events=[("fs:list", "/secret", "deny")]),
    Case("glob-granted", ALL, "echo /data/*.txt", 0, out="/data/a.txt /data/b.txt\n"),
    Case("grep-r-root", ALL, "grep -r TOPSECRET / 2>/dev/null; echo $?", 0, out="2\n"),
    Case("find-root", ALL, "find / -name key 2>/dev/null | head -1", 0, out=""),
    Case(
        "find-delete-ro", ALL, "find /data -name a.txt -delete", 1, err=[EACCES], files={"/data/a.txt": True}
    ),
    Case(
        "tar-denied",
        ALL,
        "tar cf /workspace/t.tar /secret",
        2,
        err=["tar: /secret: Cannot stat"],
        events=[("fs:stat", "/secret", "deny")],
    ),
    Case("sed-w-ro", ALL, "sed -n 'w /data/copy' /data/a.txt", 4, err=[EACCES], files={"/data/copy": False}),
    Case("sed-i-ro", ALL, "sed -i s/a/b/ /data/a.txt", 4, err=[EACCES]),
    Case("sort-o-ro", ALL, "sort -o /data/s /data/a.txt", 2, err=[EACCES]),
    Case("tee-ro", ALL, "echo x | tee /data/t", 1, err=[EACCES]),
    Case("awk-print-file-ro", ALL, "awk 'BEGIN { print 1 > \"/data/o\" }'", 2, err=[EACCES]),
    Case("xargs-a-denied", ALL, "xargs -a /secret/key echo", 1, err=[EACCES]),
    Case(
        "source-denied",
        ALL,
        "source /secret/key",
        1,
        err=["/secret/key: Permission denied"],
        events=[("fs:stat", "/secret/key", "deny")],
        absent=[("fs:read", "/secret/key", "allow")],
    ),
    Case("source-granted", ALL, "source /data/lib.sh", 0, out="sourced\n"),
    Case("bash-file-denied", ALL, "bash /secret/key", 126, err=[EACCES]),
    Case("base64-denied", LIST, "base64 /secret/key", 1, err=[EACCES]),
    Case(
        "dev-null", RO, "echo hi > /dev/null; cat /data/a.txt 2>/dev/null >/dev/null; echo ok", 0, out="ok\n"
    ),
    # ---------------------------------------------------------------- modes
    Case(
        "ro-touch",
        RO,
        "touch /workspace/x",
        1,
        err=[EACCES],
        files={"/workspace/x": False},
        events=[("fs:create", "/workspace/x", "deny")],
    ),
    Case("ro-redirect", RO, "echo x > /workspace/notes", 1, err=[EACCES]),
    Case("ro-rm", RO, "rm /workspace/notes", 1, err=[EACCES], files={"/workspace/notes": True}),
    Case("ro-mkdir", RO, "mkdir /workspace/d", 1, err=[EACCES]),
    Case("ro-reads", RO, "cat /workspace/notes /data/a.txt", 0, out="n\nalpha\n"),
    Case(
        "remediation-writes",
        ALL,
        "mkdir -p /workspace/d/e && touch /workspace/d/e/f && ls /workspace/d/e",
        0,
        out="f\n",
    ),
    Case(
        "open-policy",
        OPEN,
        "cat /secret/key | tr A-Z a-z > /tmp/x; cat /tmp/x",
        0,
        out="topsecret\n",
        not_out="TOPSECRET",
    ),
    Case("tight", TIGHT, "ls /data; cat /data/a.txt", 126, out="a.txt\nb.txt\nlib.sh\n"),
    # ---------------------------------------------------------------- decide
    Case(
        "decide-argv",
        DECIDE,
        "ls --force /data",
        126,
        err=["ls: policy denied this command [policy: no-force] (--force is not allowed)"],
    ),
    Case("decide-allows", DECIDE, "ls /data", 0, out="a.txt\nb.txt\nlib.sh\n"),
    Case("decide-sub-xargs", DECIDE, "echo /data/a.txt | xargs wc", 126, err=["wc: policy denied"]),
    Case("decide-sub-find", DECIDE, "find /data -name a.txt -exec wc {} \\;", 0, err=["wc: policy denied"]),
    Case("decide-sub-bash", DECIDE, "bash -c 'wc /data/a.txt'", 126, err=["wc: policy denied"]),
    Case("decide-eval", DECIDE, "eval 'w''c /data/a.txt'", 126, err=["wc: policy denied"]),
    Case("decide-expanded-argv", DECIDE, "x=--force; ls $x /data", 126, err=["[policy: no-force]"]),
    Case(
        "decide-sub-source",
        DECIDE,
        "echo 'wc /data/a.txt' > s.sh; source s.sh",
        126,
        err=["wc: policy denied"],
    ),
    Case(
        "decide-sub-awk", DECIDE, "awk 'BEGIN { system(\"wc /data/a.txt\") }'", 0, err=["wc: policy denied"]
    ),
    Case("decide-sub-awk-pipe", DECIDE, "awk 'BEGIN { print 1 | \"wc\" }'", 0, err=["wc: policy denied"]),
    Case("decide-sub-timeout", DECIDE, "timeout 5 wc /data/a.txt", 126, err=["wc: policy denied"]),
    Case("decide-sub-env", DECIDE, "env wc /data/a.txt", 126, err=["wc: policy denied"]),
    Case("decide-sub-command", DECIDE, "command wc /data/a.txt", 126, err=["wc: policy denied"]),
    Case("decide-sub-builtin", DECIDE, "builtin eval 'wc /data/a.txt'", 126, err=["wc: policy denied"]),
    Case(
        "decide-fs", DECIDE, "cat /data/b.txt", 1, err=[EACCES], events=[("fs:read", "/data/b.txt", "deny")]
    ),
    Case("decide-fs-other", DECIDE, "cat /data/a.txt", 0, out="alpha\n"),
    Case(
        "decide-cmdsub",
        DECIDE,
        'x=$(wc -l /data/a.txt); echo "[$x]"',
        0,
        err=["wc: policy denied"],
        out="[]\n",
    ),
    Case(
        "decide-url",
        DECIDE_NET,
        "curl -sS https://api.example.com/v1/x",
        7,
        err=["curl: (7) Access denied: refused by policy: GET https://api.example.com/v1/x"],
        events=[("http:request", "https://api.example.com/v1/x", "deny")],
        network=True,
    ),
    Case(
        "decide-url-post",
        DECIDE_NET,
        "curl -sS -d x https://api.example.com/v1/y",
        7,
        err=["Access denied"],
        network=True,
    ),
    Case(
        "allow-list-before-decide",
        DECIDE_NET,
        "curl -sS https://other.example.com/",
        7,
        err=["URL not in allow-list"],
        absent=[("http:request", "https://other.example.com/", "deny")],
        network=True,
    ),
    Case(
        "curl-denied-by-name",
        LIST,
        "curl -sS https://api.example.com/v1/x",
        126,
        err=[refused("curl", "commands.allow")],
        network=True,
    ),
    # ---------------------------------------------------------------- audit shape
    Case(
        "audit-order",
        LIST,
        "cat /data/a.txt",
        0,
        out="alpha\n",
        events=[("shell:exec", "cat", "allow"), ("fs:read", "/data/a.txt", "allow")],
        absent=[("shell:exec", "cat", "deny")],
    ),
]
