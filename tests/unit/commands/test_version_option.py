"""`--version` and `--help` given whole win over the longer options they begin (getopt_long's exact
match): `sort --version` beside --version-sort was an ambiguity error; tar answered --version with
its help. A shortened form that several options begin stays ambiguous, as GNU's."""

from __future__ import annotations

import pytest

from sandbash import Bash

# commands whose declared options include one the word `version` or `help` begins
EXACT = [
    "sort --version",
    "ls --version",
    "grep --version",
    "sed --version",
    "cut --version",
    "tar --version",
]


@pytest.mark.parametrize("cmd", EXACT)
def test_exact_version_wins(cmd: str) -> None:
    r = Bash().exec(f"{cmd}; echo st=$?")
    name = cmd.split()[0]
    first = r.stdout.splitlines()[0]
    assert first.startswith(f"{name} (") and first.split()[-1][0].isdigit(), r.stdout + r.stderr
    assert r.stdout.endswith("st=0\n") and r.stderr == ""


@pytest.mark.parametrize(
    ("cmd", "first"),
    [
        ("sort --help", "Usage: sort [OPTION]... [FILE]..."),
        ("tar --help", "Usage: tar [OPTION...] [FILE]..."),
        ("tar --help --version", "Usage: tar [OPTION...] [FILE]..."),  # the first one named answers
        ("tar --version --help", "tar (GNU tar) 1.34\nsandbash "),
    ],
)
def test_help_and_order(cmd: str, first: str) -> None:
    r = Bash().exec(f"{cmd}; echo st=$?")
    assert r.stdout.startswith(first) and r.stdout.endswith("st=0\n"), r.stdout + r.stderr


@pytest.mark.parametrize("word", ["--vers", "--versio"])
def test_shortened_stays_ambiguous(word: str) -> None:
    r = Bash().exec(f"sort {word} </dev/null; echo st=$?")
    assert r.stdout == "st=2\n"
    assert r.stderr.startswith(
        f"sort: option '{word}' is ambiguous; possibilities: '--version-sort' '--version'"
    )


def test_version_sort_prefix_still_sorts() -> None:
    assert Bash().exec("printf 'v10\\nv9\\n' | sort --version-s").stdout == "v9\nv10\n"


@pytest.mark.parametrize(
    ("cmd", "first"),
    [
        ("sed", "sed (GNU sed) 4.9"),
        ("grep", "grep (GNU grep) 3.8"),
        ("sort", "sort (GNU coreutils) 9.1"),
        ("ls", "ls (GNU coreutils) 9.1"),
        ("/bin/echo", "echo (GNU coreutils) 9.1"),
        ("find", "find (GNU findutils) 4.9.0"),
        ("xargs", "xargs (GNU findutils) 4.9.0"),
        ("diff", "diff (GNU diffutils) 3.8"),
        ("tar", "tar (GNU tar) 1.34"),
    ],
)
def test_gnu_commands_name_their_package_first(cmd: str, first: str) -> None:
    """The first line is GNU's (scripts choose GNU's syntax on `--version | grep -q GNU` and read
    the release from it); the second says what runs."""
    r = Bash().exec(f"{cmd} --version; echo st=$?")
    lines = r.stdout.splitlines()
    assert lines[0] == first and lines[1].startswith("sandbash ") and lines[-1] == "st=0", r.stdout + r.stderr


def test_gnu_detection_idiom_takes_the_gnu_branch() -> None:
    script = (
        "printf 'a\\n' > f; if sed --version 2>/dev/null | grep -q GNU; then sed -i 's/a/b/' f;"
        " else sed -i '' 's/a/b/' f; fi; cat f"
    )
    r = Bash().exec(script)
    assert (r.stdout, r.stderr, r.exit_code) == ("b\n", "", 0)
