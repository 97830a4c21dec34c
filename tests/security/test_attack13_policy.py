"""Attack round 13: the policy, the audit log and the static check, read as an attacker.

The run's gate held every way of reaching a refused command or path tried this round (wrappers,
shells, traps, callbacks of awk/sed/lua/node/sqlite3, links, renames, /dev/fd, globs). What fell
was the static check: it said `allowed` for scripts whose run the policy refuses, so an embedder
that approves scripts with `check()` was told a refused command or listing would not happen:

- writes to BASH_CMDS / BASH_ALIASES (the hash table and the aliases as arrays) retarget a name
  like `hash -p` and `alias` do, but were not sensitive assignments;
- `compgen -W WORDS` expands WORDS as shell words (`$(...)` runs), the file actions (-f, -d,
  -A file/directory, -o default/dirnames/plusdirs) list the word's directory, -G globs, -c lists
  PATH's directories, -A hostname reads $HOSTFILE: the check modelled only -C and -F;
- a `case` pattern's arithmetic (`$((v))` with v naming `a[$(cmd)]`) evaluates hidden code, as
  the case word's does, but only the word was looked at.
"""

from __future__ import annotations

import pytest

from sandbash import Bash
from sandbash.check import ALLOWED, check
from sandbash.policy import Action, Policy
from sandbash.vfs.facade import Vfs

GRANTS = ["/data:ro", "/workspace:rw"]
ALLOW = Policy(["cat", "echo", "ls", "eval", "head"], paths=GRANTS, mode="remediation", name="allow13")
VICTIM = "/workspace/victim"


def sandbox(policy: Policy = ALLOW) -> Bash:
    vfs = Vfs()
    view = vfs.view("/")
    for d in ("/data", "/workspace", "/secret"):
        view.mkdir(d, parents=True)
    view.write_bytes("/data/a.txt", b"alpha\n")
    view.write_bytes("/secret/key", b"TOPSECRET\n")
    view.write_bytes(VICTIM, b"precious\n")
    return Bash(fs=vfs, cwd="/workspace", policy=policy)


def refusals(events: list[dict[str, object]]) -> list[tuple[str, str]]:
    return [
        (str(e["action"]), str(e["target"]))
        for e in events
        if e["kind"] == "decision" and e["decision"] == "deny"
    ]


# (script, what the run refuses: a decision's action and target)
CHECK_AGREES = [
    # the hash table as an array: `cat` runs rm
    ("BASH_CMDS[cat]=/bin/rm; cat victim", ("shell:exec", "rm")),
    ("k=cat; BASH_CMDS[$k]=/bin/rm; cat victim", ("shell:exec", "rm")),
    ("printf -v 'BASH_CMDS[cat]' /bin/rm; cat victim", ("shell:exec", "rm")),
    ("read 'BASH_CMDS[cat]' <<< /bin/rm; cat victim", ("shell:exec", "rm")),
    ("f() { BASH_CMDS[cat]=/bin/rm; }; f; cat victim", ("shell:exec", "rm")),
    ("BASH_CMDS[ls]=/usr/bin/rm; ls victim", ("shell:exec", "rm")),
    # the aliases as an array
    ("shopt -s expand_aliases; BASH_ALIASES[ls]=rm; eval 'ls victim'", ("shell:exec", "rm")),
    ("shopt -s expand_aliases; read 'BASH_ALIASES[ls]' <<< rm; eval 'ls victim'", ("shell:exec", "rm")),
    # compgen -W expands its words: a command substitution in them runs
    ("compgen -W '$(rm victim)' x", ("shell:exec", "rm")),
    ("compgen -W '`rm victim`' x", ("shell:exec", "rm")),
    ("compgen -W'$(rm victim)' x", ("shell:exec", "rm")),
    ("compgen -o default -W '$(rm victim)'", ("shell:exec", "rm")),
    ("a=(1); compgen -W '${a[$(rm victim)]}' x", ("shell:exec", "rm")),
    # compgen's file actions list the word's directory
    ("compgen -f /secret/", ("fs:list", "/secret")),
    ("compgen -f /secret/k", ("fs:list", "/secret")),
    ("compgen -d /secret/", ("fs:list", "/secret")),
    ("compgen -fd -- /secret/", ("fs:list", "/secret")),
    ("compgen -A file /secret/", ("fs:list", "/secret")),
    ("compgen -A directory /secret/", ("fs:list", "/secret")),
    ("compgen -o dirnames /secret/", ("fs:list", "/secret")),
    ("compgen -o default /secret/", ("fs:list", "/secret")),
    ("compgen -o plusdirs -W x /secret/", ("fs:list", "/secret")),
    ("x=/secret/; compgen -f $x", ("fs:list", "/secret")),
    ("cd /; compgen -f secret/", ("fs:list", "/secret")),
    ("compgen -G '/secret/*'", ("fs:list", "/secret")),
    ("compgen -G '/sec*/*'", ("fs:list", "/")),
    ("compgen -c", ("fs:list", "/bin")),
    ("compgen -A command ca", ("fs:list", "/bin")),
    ("HOSTFILE=/secret/key; compgen -A hostname", ("fs:read", "/secret/key")),
    # arithmetic in a case pattern evaluates the subscript a variable names
    ("a=(1); v='a[$(rm victim)]'; case 1 in $((v))) ;; esac", ("shell:exec", "rm")),
    ("a=(1); v='a[$(rm victim)]'; case 1 in 2|$((v + 1))) ;; esac", ("shell:exec", "rm")),
    ("a=(1); read v <<< 'a[$(rm victim)]'; case 1 in ${a[v]}) ;; esac", ("shell:exec", "rm")),
]


@pytest.mark.parametrize(("script", "refused"), CHECK_AGREES, ids=[s for s, _ in CHECK_AGREES])
def test_check_never_allows_what_the_run_refuses(script: str, refused: tuple[str, str]) -> None:
    bash = sandbox()
    report = bash.check(script)
    r = bash.exec(script)
    assert refused in refusals(r.events), (r.stderr, refusals(r.events))
    assert report.status != ALLOWED, report.to_text()
    bash.vfs.gate = None
    assert bash.vfs.view("/").read_bytes(VICTIM) == b"precious\n"
    assert "TOPSECRET" not in r.stdout + r.stderr


# the same shapes with nothing refused: the check still allows them
CHECK_STILL_ALLOWS = [
    "compgen -W 'alpha beta' al",
    'compgen -W "alpha beta" -- be',
    "compgen -A alias; compgen -v B; compgen -k",
    "compgen -f /workspace/",
    "compgen -d /data/",
    "compgen -G '/workspace/*'",
    "compgen -o default /data/a",
    "case 1 in $((1))) echo one ;; esac",
    "n=2; case 2 in $((n))) echo two ;; esac",
    "BASH_VERSINFO_COPY=1; echo $BASH_VERSINFO_COPY",
]


@pytest.mark.parametrize("script", CHECK_STILL_ALLOWS)
def test_check_still_allows_harmless_shapes(script: str) -> None:
    bash = sandbox()
    assert bash.check(script).status == ALLOWED, bash.check(script).to_text()
    assert refusals(bash.exec(script).events) == []


def test_check_without_path_grants_allows_listings() -> None:
    """With no grants nothing a listing does is refused: the new effects add no false refusal."""
    policy = Policy(["echo"], name="no-paths")
    for script in ("compgen -f /", "compgen -G '/*'", "compgen -c", "compgen -d ~/"):
        assert check(script, policy).status == ALLOWED, script


# ---------------------------------------------------------------- what held, kept as guards

DENY = Policy(deny=["rm", "curl"], paths=[*GRANTS, "/tmp:rw"], mode="remediation", name="deny13")

# every one of these reaches `rm` (or a refused path) by another road; none may get there
HELD = [
    "\\rm victim",
    "$'\\x72m' victim",
    "exec -a cat rm victim",
    "command -p rm victim",
    "time -p rm victim",
    "coproc rm victim; wait",
    "bash <<< 'rm victim'",
    "printf '#!/usr/bin/env rm\\n' > s; chmod +x s; ./s victim",
    "mapfile -C rm -c 1 a <<< victim",
    "history -s 'rm victim'; fc -s",
    "compgen -C 'rm victim' x",
    "select x in victim; do rm $x; break; done <<< 1",
    "find . -name victim -ok rm {} \\; <<< y",
    'awk \'BEGIN { print "victim" | "xargs rm" }\'',
    "awk 'BEGIN { \"rm victim\" | getline }'",
    "echo victim | sed 's/^/rm /e'",
    'lua -e \'io.popen("rm victim", "w"):close()\'',
    'node -e \'require("child_process").execSync("rm victim")\'',
    "sqlite3 :memory: '.shell rm victim'",
    "sqlite3 :memory: \".output '|rm victim'\" 'select 1'",
]


@pytest.mark.parametrize("script", HELD)
def test_refused_command_never_runs(script: str) -> None:
    bash = sandbox(DENY)
    r = bash.exec(script)
    bash.vfs.gate = None
    assert bash.vfs.view("/").read_bytes(VICTIM) == b"precious\n", (r.stdout, r.stderr)
    if "policy denied" in r.stderr:  # a refusal the script saw is in the log, under what runs
        assert ("shell:exec", "rm") in refusals(r.events)


SECRET_READS = [
    'lua -e \'print(io.open("/secret/key"):read("a"))\'',
    "lua -e 'dofile(\"/secret/key\")'",
    'node -e \'console.log(require("fs").readFileSync("/secret/key", "utf8"))\'',
    "sqlite3 -init /secret/key :memory: 'select 1'",
    "sqlite3 :memory: '.read /secret/key'",
    "jq --rawfile a /secret/key -n '$a'",
    "sed 'r /secret/key' victim",
    "awk '{ print }' /secret/key",
    "ln -s /secret s; cat s/key",
    "ln /secret/key h; cat h",
    "cat /proc/self/root/secret/key",
    "exec 3< /secret/key; cat <&3",
    "cd /data; cd ..; cat secret/key",
    "tar cf - /secret | tar xOf -",
]


@pytest.mark.parametrize("script", SECRET_READS)
def test_denied_file_is_never_read(script: str) -> None:
    r = sandbox(DENY).exec(script)
    assert "TOPSECRET" not in r.stdout + r.stderr


EXISTENCE = [
    "[ -e {p} ] && echo yes || echo no",
    "cat {p} 2>&1 | sed 's|{p}|P|'",
    "ls {p} 2>&1 | sed 's|{p}|P|'",
    "mkdir {p} 2>&1 | sed 's|{p}|P|'",
    "ln -s x {p} 2>&1 | sed 's|{p}|P|'",
    "mv victim {p} 2>&1 | sed 's|{p}|P|'",
    "cd {p} 2>&1 | sed 's|{p}|P|'",
    'node -e \'console.log(require("fs").existsSync("{p}"))\'',
]


@pytest.mark.parametrize("shape", EXISTENCE)
def test_denied_tree_hides_what_exists(shape: str) -> None:
    """A name in a tree no grant covers answers the same whether it exists or not."""
    answers = {sandbox(DENY).exec(shape.format(p=p)).stdout for p in ("/secret/key", "/secret/nothing")}
    assert len(answers) == 1, answers


# ---------------------------------------------------------------- a file hidden by `decide`

HIDDEN = ("/workspace/.env", "/workspace/hid")


def hide(action: Action) -> tuple[bool, str] | None:
    """The embedder's rule: .env and everything under hid/ are off limits, whatever the action."""
    path = action.path
    if action.kind.startswith("fs:") and any(path == h or path.startswith(h + "/") for h in HIDDEN):
        return False, "hidden"
    return None


HIDE = Policy(paths=["/workspace:rw", "/tmp:rw"], mode="remediation", decide=hide, name="hide13")


def hidden_sandbox() -> Bash:
    vfs = Vfs()
    view = vfs.view("/")
    for d in ("/workspace/hid/deep", "/workspace/pub/sub", "/tmp"):
        view.mkdir(d, parents=True)
    view.write_bytes("/workspace/.env", b"ENVSECRET\n")
    view.write_bytes("/workspace/hid/deep/k", b"HIDSECRET\n")
    view.write_bytes("/workspace/pub/sub/f", b"public\n")
    return Bash(fs=vfs, cwd="/workspace", policy=HIDE)


# a directory moved in one step carried the hidden names out from under the rule
CARRIED = [
    "mv /workspace /tmp/w; cat /tmp/w/.env /tmp/w/hid/deep/k",
    "cd /; mv workspace tmp/; cat /tmp/workspace/.env",
    "mv -T /workspace /tmp/w2; cat /tmp/w2/.env",
    'node -e \'require("fs").renameSync("/workspace", "/tmp/w3")\'; cat /tmp/w3/.env',
    'lua -e \'os.rename("/workspace", "/tmp/w4")\'; cat /tmp/w4/.env',
    "mkdir /workspace/hid2; mv /workspace /tmp/w5 2>/dev/null; cat /tmp/w5/hid/deep/k",
]


@pytest.mark.parametrize("script", CARRIED)
def test_decided_entries_are_not_moved_out_from_under_decide(script: str) -> None:
    bash = hidden_sandbox()
    r = bash.exec(script)
    assert "SECRET" not in r.stdout + r.stderr, r.stdout
    bash.vfs.gate = None
    assert bash.vfs.view("/").read_bytes("/workspace/.env") == b"ENVSECRET\n"
    assert any(a == "fs:rename" and t.startswith(HIDDEN) for a, t in refusals(r.events)), refusals(r.events)


MOVES_STILL_ALLOWED = [
    ("mv pub /tmp/p && cat /tmp/p/sub/f", "public\n"),
    ("mkdir -p /tmp/x/y && mv /tmp/x /workspace/x && ls /workspace/x", "y\n"),
    ("mv /workspace/pub/sub /workspace/sub2 && cat sub2/f", "public\n"),
]


@pytest.mark.parametrize(("script", "out"), MOVES_STILL_ALLOWED)
def test_moves_without_hidden_entries_still_work(script: str, out: str) -> None:
    r = hidden_sandbox().exec(script)
    assert (r.exit_code, r.stdout, refusals(r.events)) == (0, out, [])


# the check asks `decide` about what a recursive action or a directory's rename reaches there
DECIDED_BELOW = ["mv /workspace /tmp/w", "rm -r /workspace", "cp -r /workspace /tmp/c", "ls -R /workspace"]


@pytest.mark.parametrize("script", DECIDED_BELOW)
def test_check_asks_decide_about_what_lies_below(script: str) -> None:
    bash = hidden_sandbox()
    report = bash.check(script)
    assert report.status != ALLOWED, report.to_text()
    assert refusals(bash.exec(script).events)  # the run refuses too


@pytest.mark.parametrize("script", ["mv pub /tmp/p", "cp -r pub /tmp/c", "ls -R pub", "rm -r pub"])
def test_check_allows_trees_decide_allows(script: str) -> None:
    assert hidden_sandbox().check(script).status == ALLOWED


# ---------------------------------------------------------------- a deny entry naming a path

# `deny = ["/bin/rm"]` refused that one spelling: `rm` and `/usr/bin/rm` ran
DENY_BY_PATH = [
    "rm victim",
    "/usr/bin/rm victim",
    "/usr/local/bin/rm victim",
    "\\rm victim",
    "command rm victim",
    "env rm victim",
    "xargs rm <<< victim",
    "find . -name victim -exec rm {} \\;",
    "hash -p /usr/bin/rm cat; cat victim",
    "bash -c 'rm victim'",
    "awk 'BEGIN { system(\"rm victim\") }'",
]


@pytest.mark.parametrize("entry", ["/bin/rm", "/usr/bin/rm", "/usr/local/sbin/rm", "//usr/bin/rm"])
@pytest.mark.parametrize("script", DENY_BY_PATH)
def test_deny_entry_naming_a_path_refuses_the_program(entry: str, script: str) -> None:
    bash = sandbox(Policy(deny=[entry], paths=GRANTS, mode="remediation", name="deny-path"))
    assert bash.check(script).status != ALLOWED
    r = bash.exec(script)
    bash.vfs.gate = None
    assert bash.vfs.view("/").read_bytes(VICTIM) == b"precious\n", r.stderr
    assert any(a == "shell:exec" and t.rsplit("/", 1)[-1] == "rm" for a, t in refusals(r.events))


@pytest.mark.parametrize(
    "script", ["awk 'BEGIN { print 1 }'", "gawk 'BEGIN { print 1 }'", "mawk 'BEGIN { print 1 }'"]
)
def test_deny_path_entry_covers_every_spelling(script: str) -> None:
    r = sandbox(Policy(deny=["/usr/bin/gawk"], name="deny-gawk")).exec(script)
    assert (r.exit_code, r.stdout) == (126, ""), r.stderr


def test_deny_path_entry_leaves_other_commands_and_the_summary_honest() -> None:
    policy = Policy(["rm", "cat", "touch"], deny=["/bin/rm"], name="both")
    r = sandbox(policy).exec("cat /data/a.txt; rm victim")
    assert r.stdout == "alpha\n"
    assert "allowed commands: cat, touch (and the shell builtins)" in r.stderr


def test_deny_entry_naming_another_path_is_that_path() -> None:
    """A path outside the command directories is a script (or, in box mode, a host program decided
    at its spawn): the entry refuses that file, not every command of the same name."""
    bash = sandbox(Policy(deny=["/workspace/bin/rm"], paths=GRANTS, mode="remediation", name="deny-script"))
    r = bash.exec("mkdir -p bin; printf 'echo fake' > bin/rm; chmod +x bin/rm; ./bin/rm; rm victim; echo $?")
    assert r.stdout == "0\n", r.stderr
    assert "./bin/rm: policy denied" in r.stderr


SCRIPT = "mkdir -p /workspace/bin; printf 'echo RAN' > /workspace/bin/tool; chmod +x /workspace/bin/tool; "
# a script refused by its path ran when spelled another way: the rule compared the words typed
SCRIPT_SPELLINGS = [
    "./bin/tool",
    "bin/tool",
    "cd bin; ./tool",
    "/workspace/bin/../bin/tool",
    "//workspace/bin/tool",
    "PATH=/workspace/bin:$PATH; tool",
    "PATH=bin; tool",
    "hash -p /workspace/bin/tool ls; ls",
    "ln -s bin/tool t; ./t",
    "ln -s bin b2; b2/tool",
    "env ./bin/tool",
    "xargs ./bin/tool < /dev/null",
    "find bin -name tool -exec {} \\;",
]


@pytest.mark.parametrize("entry", ["/workspace/bin/tool", "/workspace/./bin//tool"])
@pytest.mark.parametrize("how", SCRIPT_SPELLINGS)
def test_script_denied_by_path_is_refused_however_spelled(entry: str, how: str) -> None:
    bash = sandbox(Policy(deny=[entry], paths=GRANTS, mode="remediation", name="deny-tool"))
    r = bash.exec(SCRIPT + how)
    assert "RAN" not in r.stdout, (how, r.stderr)
    assert ("shell:exec", "/workspace/bin/tool") in refusals(r.events)


@pytest.mark.parametrize("how", SCRIPT_SPELLINGS)
def test_decide_sees_a_scripts_canonical_path(how: str) -> None:
    """`decide` is shown the file that runs, so a rule on its path holds for every spelling."""

    def no_tool(action: Action) -> bool | None:
        return False if action.kind == "shell:exec" and action.target == "/workspace/bin/tool" else None

    policy = Policy(paths=GRANTS, mode="remediation", decide=no_tool, name="decide-tool")
    r = sandbox(policy).exec(SCRIPT + how)
    assert "RAN" not in r.stdout, (how, r.stderr)
    assert "[policy: decide]" in r.stderr


def test_tar_names_a_refused_path_as_refused() -> None:
    """tar's stat of a name the policy refuses reports the refusal and its rule (it said `Cannot
    stat: No such file or directory`, as for a name that is not there: sec-policy13's left list)."""
    from sandbash import Bash
    from sandbash.policy import Policy

    bash = Bash(files={"/secret/x": "s", "/data/a": "1"}, policy=Policy(paths=["/data:ro", "/tmp:rw"]))
    r = bash.exec("tar cf /tmp/t.tar /secret/x /data/a; echo $?")
    assert "tar: /secret/x: Cannot stat: Permission denied [policy: paths.no-grant]\n" in r.stderr
    assert r.stdout == "2\n"
    r = bash.exec("cd /tmp && tar cf t2.tar missing; echo $?")
    assert r.stderr.startswith("tar: missing: Cannot stat: No such file or directory\n")


@pytest.mark.parametrize(
    ("script", "message"),
    [
        ("gzip -c /secret/x", "gzip: /secret/x: Permission denied [policy: paths.no-grant]\n"),
        ("gunzip -c /secret/x", "gzip: /secret/x: Permission denied [policy: paths.no-grant]\n"),
        (
            "bzip2 -c /secret/x",
            "bzip2: Can't open input file /secret/x: Permission denied [policy: paths.no-grant].\n",
        ),
        ("cd /tmp; gzip -c missing", "gzip: missing: No such file or directory\n"),
    ],
)
def test_compressors_name_a_refused_path_as_refused(script: str, message: str) -> None:
    """gzip/gunzip/bzip2 said `No such file or directory` for a name the policy refuses."""
    from sandbash import Bash
    from sandbash.policy import Policy

    bash = Bash(files={"/secret/x": "s"}, policy=Policy(paths=["/tmp:rw"]))
    r = bash.exec(script)
    assert (r.stderr, r.exit_code) == (message, 1)
