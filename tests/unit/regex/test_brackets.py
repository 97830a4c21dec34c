"""The one bracket-expression scanner (regex/brackets.py) and the languages that use it:
shell globs, sed and awk regexes, find -regex (emacs syntax). End-to-end rows run in sandbash
and, when installed, in bash, GNU sed, gawk and GNU find."""

from __future__ import annotations

import os
import tempfile

import pytest

import oracle
from sandbash import Bash
from sandbash.regex.brackets import bracket_end


@pytest.mark.parametrize(
    ("text", "kwargs", "end"),
    [
        ("[abc]", {}, 4),
        ("[]a]", {}, 3),
        ("[^]a]", {}, 4),
        ("[!]a]", {"negators": "!^"}, 4),
        ("[!]a]", {}, 2),
        ("[[:digit:]]", {}, 10),
        ("[[:digit:]x]", {}, 11),
        ("[[=a=]]", {}, 6),
        ("[[.-.]]", {}, 6),
        ("[[:dig]", {}, -1),
        ("[[:dig]", {"open_class_fails": False}, 6),
        ("[a\\]b]", {}, 3),
        ("[a\\]b]", {"escapes": True}, 5),
        ("[a\nb]", {}, 4),
        ("[a\nb]", {"newline_ends": True}, -1),
        ("[abc", {}, -1),
        ("[", {}, -1),
    ],
)
def test_scanner(text: str, kwargs: dict[str, object], end: int) -> None:
    assert bracket_end(text, 0, **kwargs) == end  # type: ignore[arg-type]


FILES = {"a]": "", "b": "", "[x": "", "c-d": "", "]": ""}
SCRIPTS = [
    "echo [ab]* | tr ' ' '\\n' | sort",
    "echo []a]* | tr ' ' '\\n' | sort",
    "echo [!]]* | tr ' ' '\\n' | sort",
    "echo [[]* | tr ' ' '\\n' | sort",
    "echo [[:alpha:]]* | tr ' ' '\\n' | sort",
    "echo [[:alp]* | tr ' ' '\\n' | sort",
    "echo '[ab' [ab",
    "case 'a]' in [a\\]]*) echo yes;; *) echo no;; esac",
    "printf 'a/b]c\\n' | sed 's/[/]]/X/g'",
    "printf 'a/b]c\\n' | sed 's/[]/]/X/g'",
    "printf 'ab:c\\n' | sed 's/[[:punct:]]/P/'",
    "printf 'a[:b\\n' | sed 's/[[:]/Q/'",
    "printf 'a]b/c\\n' | awk '{ gsub(/[]\\/]/, \"-\"); print }'",
    "printf 'a1b2\\n' | awk '{ gsub(/[[:digit:]]/, \"#\"); print }'",
    "printf 'x[y\\n' | awk '{ gsub(/[[]/, \"(\"); print }'",
    "find . -regex '.*/[]a]' | sort",
    "find . -regex '.*/[[x]*' | sort",
]


def _real(script: str) -> str | None:
    if not os.path.exists("/bin/bash"):
        return None
    with tempfile.TemporaryDirectory() as tmp:
        for name in FILES:
            open(os.path.join(tmp, name), "w").close()
        r = oracle.run(
            ["bash", "-c", script],
            executable="/bin/bash",
            capture_output=True,
            text=True,
            cwd=tmp,
            check=False,
            env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"},
        )
    return r.stdout + "|" + str(r.returncode)


@pytest.mark.parametrize("script", SCRIPTS)
def test_languages_match_the_real_tools(script: str) -> None:
    real = _real(script)
    if real is None:
        pytest.skip("no bash")
    r = Bash(files={f"/home/user/w/{k}": v for k, v in FILES.items()}, cwd="/home/user/w").exec(script)
    assert r.stdout + "|" + str(r.exit_code) == real
