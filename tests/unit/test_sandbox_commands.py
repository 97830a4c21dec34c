"""What exists inside the sandbox: /bin and /usr/bin, the discovery builtins that must agree with
them, `help`, and the hint after a missing common tool."""

from __future__ import annotations

import os

import pytest

import oracle
from sandbash import Bash
from sandbash.commands import registry
from sandbash.net import NetworkConfig
from sandbash.policy import Policy

# what a sandbox with no network and no host access lists in /usr/bin
_TABLE = registry.BUILTIN_TABLE
VISIBLE = sorted(
    {"bash", "sh", *(n for n in _TABLE.names() if not _TABLE.needs_network(n) and not _TABLE.needs_host(n))}
)


def listing(bash: Bash, d: str = "/usr/bin") -> list[str]:
    return bash.exec(f"ls {d}").stdout.split()


def discovered(bash: Bash, name: str) -> dict[str, bool]:
    """Whether each way of asking finds `name`."""
    r = bash.exec(
        f"ls /usr/bin/{name} >/dev/null 2>&1; echo ls=$?; test -x /bin/{name}; echo test=$?;"
        f" which {name} >/dev/null; echo which=$?; type -P {name} >/dev/null; echo type=$?;"
        f" command -v {name} >/dev/null; echo v=$?; hash {name} 2>/dev/null; echo hash=$?;"
        f" compgen -c | grep -qx -- '{name}'; echo compgen=$?; help {name} >/dev/null 2>&1; echo help=$?"
    )
    pairs = dict(line.split("=") for line in r.stdout.split())
    return {k: v == "0" for k, v in pairs.items()}


def test_command_dirs_list_the_command_table() -> None:
    bash = Bash()
    names = listing(bash)
    assert names == VISIBLE
    assert listing(bash, "/bin") == names


@pytest.mark.parametrize("name", ["ls", "jq", "grep", "sed", "bash", "["])
def test_every_way_of_asking_agrees_on_a_present_command(name: str) -> None:
    found = discovered(Bash(), name)
    if name in ("[",):  # compgen output is grep'ed as a regex-free line; `help [` is the builtin
        found.pop("compgen")
    assert all(found.values()), found


@pytest.mark.parametrize(
    "script",
    [
        "type -a ls",
        "type -a echo bash",
        "type -ap ls; type -aP ls; type -at ls",
        "ls >/dev/null; type -a ls; type ls",
        "which -a ls; type -ap ls",
        "PATH=/nowhere; type -a ls; echo $?",
        "f() { :; }; type -a f ls | tail -2",
        "PATH=/bin:/usr/bin; type -aP cat; command -v cat",
        # Debian's which: getopts' complaint on stderr, its usage line on stdout, status 2
        "which -s ls; echo $?",
        "which -as ls 2>&1; echo $?",
    ],
)
def test_type_a_lists_every_path_as_bash_does(script: str) -> None:
    if not os.path.exists("/bin/bash") or not os.path.islink("/bin"):
        pytest.skip("needs /bin/bash on a merged-/usr system (/bin -> usr/bin) as the oracle")
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin"}
    expected = oracle.run(
        ["bash", "-c", script],
        executable="/bin/bash",
        capture_output=True,
        text=True,
        env=env,
        cwd="/",
        timeout=60,
    )
    r = Bash(env=env).exec(script)
    assert (r.stdout, r.exit_code) == (expected.stdout, expected.returncode)


@pytest.mark.parametrize(
    ("bash", "name"),
    [
        (Bash(), "curl"),  # no network configured
        (Bash(), "wget"),
        (Bash(policy=Policy(deny=["rm"])), "rm"),
        (Bash(policy=Policy(commands=["cat", "ls", "which", "grep", "test"])), "sed"),
        (Bash(), "ipython"),  # python3, node, sqlite3 and lua are runtimes (commands/runtimes)
    ],
)
def test_a_command_taken_away_appears_nowhere(bash: Bash, name: str) -> None:
    found = discovered(bash, name)
    assert not any(found.values()), found
    assert name not in listing(bash)


def test_network_commands_appear_with_a_network() -> None:
    bash = Bash(network=NetworkConfig(allowed_url_prefixes=("https://example.com/",)))
    assert {"curl", "wget"} <= set(listing(bash))
    assert all(discovered(bash, "curl").values())


def test_policy_refusal_still_names_its_rule_for_a_hidden_command() -> None:
    bash = Bash(policy=Policy(deny=["rm"]))
    for script in ("rm x", "/bin/rm x", "/usr/bin/rm x"):
        r = bash.exec(script)
        assert r.exit_code == 126 and "policy" in r.stderr, script


@pytest.mark.parametrize("path", ["/bin/ls", "/usr/bin/ls", "/usr/bin/sort"])
def test_command_files_run_the_builtin_and_describe_themselves(path: str) -> None:
    bash = Bash(files={"/d/b": "2\n1\n"})
    name = path.rsplit("/", 1)[1]
    r = bash.exec(f"{path} /d; {path} /d/b" if name == "ls" else f"{path} /d/b")
    assert r.exit_code == 0 and r.stdout == ("b\n/d/b\n" if name == "ls" else "1\n2\n")
    text = bash.exec(f"cat {path}").stdout
    assert text.startswith("#!/bin/sh\n") and f"{name}: a command built into sandbash" in text
    r = bash.exec(f"stat -c '%A %U %s' {path}; file {path}")
    assert r.stdout.split("\n")[0] == f"-rwxr-xr-x root {len(text.encode())}"


@pytest.mark.parametrize(
    "script",
    [
        "touch /usr/bin/x",
        "rm /bin/ls",
        "echo hi > /bin/ls",
        "mkdir /usr/bin/d",
        "mv /bin/ls /tmp/",
        "chmod 777 /bin/ls",
        "ln -s /tmp /usr/bin/t",
    ],
)
def test_command_dirs_are_read_only(script: str) -> None:
    bash = Bash()
    r = bash.exec(script)
    assert r.exit_code != 0 and r.stderr
    assert bash.exec("cat /bin/ls | head -1").stdout == "#!/bin/sh\n"


def test_command_dirs_are_not_mounts() -> None:
    r = Bash().exec("mount; df /usr/bin | tail -1")
    assert "/usr/bin" not in r.stdout and " /bin" not in r.stdout
    assert r.stdout.rstrip().endswith(" /")


def test_scripts_in_other_path_dirs_still_run_and_list() -> None:
    bash = Bash(files={"/usr/local/bin/tool": "#!/bin/bash\necho tool ran\n"})
    bash.fs.chmod("/usr/local/bin/tool", 0o755)
    r = bash.exec("tool; which tool; compgen -c tool; type -t tool")
    assert r.stdout == "tool ran\n/usr/local/bin/tool\ntool\nfile\n"


def test_help_lists_builtins_then_commands() -> None:
    r = Bash(policy=Policy(deny=["rm"])).exec("help")
    assert r.exit_code == 0
    text = r.stdout
    assert "cd [-L|[-P [-e]] [-@]] [dir]" in text  # a builtin's usage
    assert "`help COMMAND'" in text
    commands = text.split("Commands (in /usr/bin)", 1)[1]
    assert " jq " in commands and " rm " not in commands.split("Commands denied by policy")[0]
    assert "Commands denied by policy: rm" in text


@pytest.mark.parametrize("name", VISIBLE)
def test_help_works_for_every_command(name: str) -> None:
    r = Bash().exec(f"help {name}")
    assert r.exit_code == 0, (name, r.stderr)
    assert r.stdout.strip() and "no help topics" not in r.stderr


def test_help_for_an_unknown_or_hidden_name_is_bashs_error() -> None:
    r = Bash(policy=Policy(deny=["rm"])).exec("help nope; help rm")
    assert r.exit_code == 1
    assert r.stderr.splitlines() == [
        f"bash: line 1: help: no help topics match `{n}'.  Try `help help' or `man -k {n}' or `info {n}'."
        for n in ("nope", "rm")
    ]


@pytest.mark.parametrize(
    ("name", "alternatives"),
    [
        ("ipython", ["awk", "jq"]),
        ("python2", ["awk"]),
        ("pip", ["awk"]),
        ("deno", ["jq"]),
        ("npm", ["jq"]),
        ("perl", ["sed", "awk"]),
        ("git", ["diff", "patch"]),
        ("vim", ["sed"]),
        ("most", ["cat"]),
        ("sudo", []),
        ("apt-get", []),
        ("gcc", []),
        ("ssh", []),
        ("psql", ["jq"]),
    ],
)
def test_missing_common_tool_gets_one_hint_line(name: str, alternatives: list[str]) -> None:
    r = Bash().exec(f"{name} --version")
    assert r.exit_code == 127
    first, hint = r.stderr.splitlines()
    assert first == f"bash: line 1: {name}: command not found"
    assert hint.startswith(f"sandbash: {name} is not available in this sandbox")
    for alt in alternatives:
        assert alt in hint


def test_hint_names_only_alternatives_that_exist() -> None:
    r = Bash(policy=Policy(deny=["awk", "jq"])).exec("ipython")
    hint = r.stderr.splitlines()[1]
    assert "awk" not in hint and "jq" not in hint and "sed" in hint
    r = Bash().exec("ssh host")
    assert "curl" not in r.stderr  # no network here
    r = Bash(network=NetworkConfig(allowed_url_prefixes=("https://example.com/",))).exec("ssh host")
    assert "curl" in r.stderr


@pytest.mark.parametrize("name", ["curl", "wget"])
def test_network_commands_say_the_network_is_off(name: str) -> None:
    r = Bash().exec(f"{name} -s https://example.com/")
    assert r.exit_code == 127
    first, hint = r.stderr.splitlines()
    assert first == f"bash: line 1: {name}: command not found"
    assert hint.startswith(f"sandbash: {name} is not available in this sandbox: the network is off")
    assert "--allow-url" in hint


def test_an_unknown_command_keeps_bashs_single_line() -> None:
    r = Bash().exec("nosuchtool; command_not_found_handle() { echo handled $1; }; ipython")
    assert r.stderr == "bash: line 1: nosuchtool: command not found\n"
    assert r.stdout == "handled ipython\n"
