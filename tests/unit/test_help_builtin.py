"""`help` as bash answers it: an exact name first, then globs and name prefixes over builtins and reserved
words (`help -d re`, `help -s 'c*'`), the -d/-s/-m forms, its option errors. Topic names, headers, errors
and statuses are checked against /bin/bash; the descriptions are our own words."""

from __future__ import annotations

import os
import subprocess

import pytest

from oracle import run as oracle_run
from sandbash import Bash
from sandbash.builtins import BUILTINS
from sandbash.builtins.help import DESCRIPTION, KEYWORD_USAGE

needs_bash = pytest.mark.skipif(not os.path.exists("/bin/bash"), reason="needs /bin/bash as the oracle")


def oracle(script: str) -> subprocess.CompletedProcess[str]:
    return oracle_run(
        ["bash", "-c", script], executable="/bin/bash", capture_output=True, text=True, timeout=60
    )


def _names(text: str, form: str) -> list[str]:
    sep = " - " if form == "-d" else ": "
    return [line.split(sep, 1)[0] for line in text.splitlines() if sep in line and not line.startswith(" ")]


@needs_bash
@pytest.mark.parametrize("form", ["-d", "-s"])
@pytest.mark.parametrize(
    "patterns",
    [
        ["re"],
        ["read"],
        ["c*"],
        ["e"],
        ["w*"],
        ["p"],
        ["u"],
        ["s"],
        ["t"],
        ["cd", "pwd"],
        ["nosuch", "re"],
        ["["],
        ["if"],
        ["for"],
        ["for (("],
        ["[[ ... ]]"],
        ["?d"],
        ["*ay"],
        ["nosuch"],
        ["--", "-d"],
    ],
)
def test_help_finds_the_topics_bash_finds(form: str, patterns: list[str]) -> None:
    script = f"help {form} " + " ".join(f"'{p}'" for p in patterns)
    expected = oracle(script)
    r = Bash().exec(script)
    assert (r.exit_code, r.stderr) == (expected.returncode, expected.stderr)
    assert _names(r.stdout, form) == _names(expected.stdout, form)
    headers = [line for line in r.stdout.splitlines() if line.startswith("Shell commands matching")]
    assert headers == [
        line for line in expected.stdout.splitlines() if line.startswith("Shell commands matching")
    ]


@needs_bash
@pytest.mark.parametrize("script", ["help -x", "help -dz cd", "help -s"])
def test_help_option_errors_are_bashs(script: str) -> None:
    expected = oracle(script)
    r = Bash().exec(script)
    if script == "help -s":  # the listing itself is ours: only the status is compared
        assert r.exit_code == expected.returncode == 0
        return
    assert (r.stdout, r.stderr, r.exit_code) == (expected.stdout, expected.stderr, expected.returncode)


def test_every_topic_has_a_description_in_every_form() -> None:
    bash = Bash()
    for name in [*sorted(BUILTINS), *KEYWORD_USAGE]:
        assert DESCRIPTION.get(name), name
        r = bash.exec(f"help -d '{name}'; help -m '{name}'; help '{name}'")
        assert r.exit_code == 0, (name, r.stderr)
        lines = [
            line for line in r.stdout.splitlines() if line and not line.startswith("Shell commands matching")
        ]  # bash's header for '[[ ... ]]'
        assert lines[0] == f"{name} - {DESCRIPTION[name]}"
        assert lines[1:3] == ["NAME", f"    {name} - {DESCRIPTION[name]}"]  # -m: a manual page
        assert lines[-1] == f"    {DESCRIPTION[name]}"


def test_help_for_a_command_shows_its_options() -> None:
    r = Bash().exec("help -s grep")
    assert r.exit_code == 0 and r.stdout.startswith("Usage: grep ")
