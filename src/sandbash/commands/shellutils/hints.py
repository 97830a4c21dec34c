"""One line after `bash: NAME: command not found` for programs people (and models) expect on a
Linux box but a sandbox without host programs cannot have: it says so, and names what the
sandbox offers instead. Bash's own line and status 127 are unchanged; this line follows them.

The embedded runtimes (python3/python in Monty, node/js in QuickJS, lua, sqlite3) are sandbash
commands: they are suggested where they can run (in the table, visible under the policy, their
package installed), and when one of them is itself missing the hint says it is not enabled here,
not that no such program can run."""

from __future__ import annotations

from collections.abc import Callable

from ..runtimes import runtime_notes

# (what is missing, a note, the commands that do the same job here); the alternatives are shown only
# when they exist in this sandbox (the policy, the network settings or a missing package may take
# them away)
_GROUPS: tuple[tuple[frozenset[str], str, tuple[str, ...]], ...] = (
    (frozenset({"python", "python3", "python2", "ipython"}), "", ("python3", "awk", "jq", "sed", "bc")),
    (
        frozenset({"pip", "pip3", "pipx", "uv", "poetry"}),
        "nothing can be installed",
        ("python3", "awk", "jq", "sed", "bc"),
    ),
    (frozenset({"node", "js", "nodejs", "deno", "bun"}), "", ("node", "jq", "awk", "sed")),
    (frozenset({"npm", "npx", "yarn", "pnpm"}), "nothing can be installed", ("node", "jq", "awk", "sed")),
    (
        frozenset({"perl", "ruby", "php", "lua", "lua5.4", "tclsh"}),
        "",
        ("sed", "awk", "grep", "lua", "python3"),
    ),
    (frozenset({"git"}), "", ("diff", "patch")),
    (
        frozenset({"vi", "vim", "nvim", "nano", "emacs", "pico", "code"}),
        "there is no terminal",
        ("sed", "cat"),
    ),
    (frozenset({"most", "pg"}), "there is no terminal", ("cat", "head", "tail")),
    (frozenset({"sudo", "su", "doas"}), "there is nothing to escalate to", ()),
    (
        frozenset({"apt", "apt-get", "dpkg", "yum", "dnf", "apk", "brew", "snap", "conda"}),
        "nothing can be installed",
        (),
    ),
    (
        frozenset({"gcc", "cc", "g++", "clang", "make", "cmake", "go", "cargo", "rustc", "java", "javac"}),
        "",
        (),
    ),
    (
        frozenset({"ssh", "scp", "rsync", "nc", "netcat", "telnet", "ping", "dig", "nslookup", "ftp"}),
        "",
        ("curl", "wget"),
    ),
    (frozenset({"docker", "podman", "kubectl", "systemctl", "service"}), "", ()),
    (frozenset({"sqlite3", "psql", "mysql"}), "", ("sqlite3", "jq", "awk", "sort", "join")),
    (
        frozenset({"ps", "top", "htop", "pgrep", "pkill", "killall"}),
        "the sandbox has no processes of the host",
        (),
    ),
)


# built in, but present only when the embedder gave the sandbox a network (the policy refuses, not hides)
_NETWORK = frozenset({"curl", "wget"})
# every spelling of an embedded runtime -> its runtime (runtimes.NOTES names them by these)
_RUNTIMES = {
    "python": "python3",
    "python3": "python3",
    "node": "node",
    "js": "node",
    "lua": "lua",
    "lua5.4": "lua",
    "sqlite3": "sqlite3",
}


def _runs_here(name: str, exists: Callable[[str], bool]) -> bool:
    """An alternative exists here; a runtime also needs its package installed."""
    runtime = _RUNTIMES.get(name)
    return exists(name) and (runtime is None or bool(runtime_notes([runtime])))


def not_found_hint(name: str, exists: Callable[[str], bool]) -> str | None:
    """The hint line for a missing `name` (None when there is nothing useful to say);
    `exists(command)` tells whether an alternative is available in this sandbox."""
    if name in _NETWORK:
        return (
            f"sandbash: {name} is not available in this sandbox: the network is off (an operator allows URLs "
            "with sandbash --allow-url PREFIX or Bash(network=NetworkConfig(...)))"
        )
    for names, what, alternatives in _GROUPS:
        if name in names:
            present = [a for a in alternatives if a != name and _runs_here(a, exists)]
            if name in _RUNTIMES:  # a sandbash runtime this sandbox was not given (or may not show)
                text = f"sandbash: {name} is not available in this sandbox (its runtime is not enabled here)"
            else:
                text = f"sandbash: {name} is not available in this sandbox (no host programs run here)"
            if what:
                text += f"; {what}"
            if present:
                text += (
                    "; use " + ", ".join(present[:-1]) + (" or " if len(present) > 1 else "") + present[-1]
                )
            return text
    return None
