"""One line after `bash: NAME: command not found` for programs people (and models) expect on a
Linux box but a sandbox without host programs cannot have: it says so, and names what the
sandbox offers instead. Bash's own line and status 127 are unchanged; this line follows them."""

from __future__ import annotations

from collections.abc import Callable

# (what is missing, a note, the commands that do the same job here); the alternatives are shown only
# when they exist in this sandbox (the policy or the network settings may take them away)
_GROUPS: tuple[tuple[frozenset[str], str, tuple[str, ...]], ...] = (
    (frozenset({"python", "python3", "python2", "ipython", "pip", "pip3", "pipx", "uv", "poetry"}),
     "", ("awk", "jq", "sed", "bc")),
    (frozenset({"node", "nodejs", "npm", "npx", "deno", "bun", "yarn", "pnpm"}),
     "", ("jq", "awk", "sed")),
    (frozenset({"perl", "ruby", "php", "lua", "tclsh"}),
     "", ("sed", "awk", "grep")),
    (frozenset({"git"}),
     "", ("diff", "patch")),
    (frozenset({"vi", "vim", "nvim", "nano", "emacs", "pico", "ed", "code"}),
     "there is no terminal", ("sed", "cat")),
    (frozenset({"most", "pg"}),
     "there is no terminal", ("cat", "head", "tail")),
    (frozenset({"sudo", "su", "doas"}),
     "there is nothing to escalate to", ()),
    (frozenset({"apt", "apt-get", "dpkg", "yum", "dnf", "apk", "brew", "snap", "conda"}),
     "nothing can be installed", ()),
    (frozenset({"gcc", "cc", "g++", "clang", "make", "cmake", "go", "cargo", "rustc", "java", "javac"}),
     "", ()),
    (frozenset({"ssh", "scp", "rsync", "nc", "netcat", "telnet", "ping", "dig", "nslookup", "ftp"}),
     "", ("curl", "wget")),
    (frozenset({"docker", "podman", "kubectl", "systemctl", "service"}),
     "", ()),
    (frozenset({"sqlite3", "psql", "mysql"}),
     "", ("jq", "awk", "sort", "join")),
    (frozenset({"ps", "top", "htop", "pgrep", "pkill", "killall"}),
     "the sandbox has no processes of the host", ()),
)


# built in, but present only when the embedder gave the sandbox a network (the policy refuses, not hides)
_NETWORK = frozenset({"curl", "wget"})


def not_found_hint(name: str, exists: Callable[[str], bool]) -> str | None:
    """The hint line for a missing `name` (None when there is nothing useful to say);
    `exists(command)` tells whether an alternative is available in this sandbox."""
    if name in _NETWORK:
        return (f"sandbash: {name} is not available in this sandbox: the network is off (an operator allows URLs "
                "with sandbash --allow-url PREFIX or Bash(network=NetworkConfig(...)))")
    for names, what, alternatives in _GROUPS:
        if name in names:
            present = [a for a in alternatives if exists(a)]
            text = f"sandbash: {name} is not available in this sandbox (no host programs run here)"
            if what:
                text += f"; {what}"
            if present:
                text += "; use " + ", ".join(present[:-1]) + (" or " if len(present) > 1 else "") + present[-1]
            return text
    return None
