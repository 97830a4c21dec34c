"""Every option of every builtin in issue 14's list has spec cases checked against bash 5.2.

The table below is bash 5.2's own option set for each builtin (the letters of `help -s NAME`; `set`'s
`-o` names). A spec case *covers* an option when its script runs that builtin with that option: the
scripts are parsed with sandbash's parser and every simple command is read, including those inside
functions, command and process substitutions, and the literal text given to `eval` or `bash -c`.
Builtins without options (`eval`, `let`, ...) need at least one case that runs them (key "").

This test cannot tell a good case from a bad one; it keeps the inventory honest: a builtin's option
that no case exercises is reported by name.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

from sandbash.syntax import ast as A
from sandbash.syntax.parser import parse

sys.path.insert(0, str(Path(__file__).parent))

from spec_loader import load_all

# builtin -> (option letters, letters that take a value in the next word when last in a cluster)
OPTIONS: dict[str, tuple[str, str]] = {
    "declare": ("aAfFgiIlnprtux", ""),
    "typeset": ("aAfFgiIlnprtux", ""),
    "local": ("aAfFiIlnprtux", ""),
    "readonly": ("aAfp", ""),
    "export": ("fnp", ""),
    "read": ("ersadinNptu", "adinNptu"),
    "mapfile": ("dnOstuCc", "dnOsuCc"),
    "readarray": ("dnOstuCc", "dnOsuCc"),
    "printf": ("v", "v"),
    "echo": ("neE", ""),
    "set": ("abefhkmnptuvxBCEHPTo", "o"),
    "shopt": ("pqsuo", ""),
    "trap": ("lp", ""),
    "umask": ("pS", ""),
    "ulimit": ("SHabcdefiklmnpqrstuvxPRT", ""),
    "command": ("pVv", ""),
    "type": ("afptP", ""),
    "hash": ("lrpdt", "p"),
    "enable": ("adnpsf", "f"),
    "cd": ("LPe@", ""),
    "pushd": ("n", ""),
    "popd": ("n", ""),
    "dirs": ("clpv", ""),
    "exec": ("cla", "a"),
    "wait": ("fnp", "p"),
    "kill": ("snlL", "sn"),
    "jobs": ("lnprsx", ""),
    "disown": ("har", ""),
    "help": ("dms", ""),
    "compgen": ("abcdefgjksuvoAGWFCXPS", "oAGWFCXPS"),
    "complete": ("abcdefgjksuvprDEIoAGWFCXPS", "oAGWFCXPS"),
    "compopt": ("oDEI", "o"),
    "history": ("cdanrwps", "d"),
    "fc": ("elnrs", "e"),
    "bind": ("lpsvPSVXmfqurx", "mfqurx"),
    "suspend": ("f", ""),
    # no options: at least one case runs them
    "builtin": ("", ""),
    "getopts": ("", ""),
    "caller": ("", ""),
    "let": ("", ""),
    "eval": ("", ""),
    "source": ("", ""),
    ".": ("", ""),
    "times": ("", ""),
    "logout": ("", ""),
}

SET_O_NAMES = [
    "allexport",
    "braceexpand",
    "emacs",
    "errexit",
    "errtrace",
    "functrace",
    "hashall",
    "histexpand",
    "history",
    "ignoreeof",
    "interactive-comments",
    "keyword",
    "monitor",
    "noclobber",
    "noexec",
    "noglob",
    "nolog",
    "notify",
    "nounset",
    "onecmd",
    "physical",
    "pipefail",
    "posix",
    "privileged",
    "verbose",
    "vi",
    "xtrace",
]

# the builtins whose options the table lists, that a case does not exercise yet; each entry goes
# when a case covers it (the test fails if a listed gap is in fact covered, so the list only shrinks)
KNOWN_GAPS: set[str] = set()


def required() -> set[str]:
    need = set()
    for name, (letters, _) in OPTIONS.items():
        need.add(f"{name}")
        need.update(f"{name} -{c}" for c in letters)
    need.update(f"set -o {o}" for o in SET_O_NAMES)
    return need


def _literal(word: A.Word) -> str | None:
    """The word's text when it is one constant string (`-a`, '-a', "-a"), else None."""
    text = word.text
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]
    if any(c in text for c in "$`\\'\"*?[{"):
        return None
    return text


def _uses(words: list[str]) -> Iterator[str]:
    """What one command's words exercise: the builtin itself and each option letter it is given."""
    while words and words[0] in ("builtin", "command") and len(words) > 1 and words[1] in OPTIONS:
        yield words[0]
        words = words[1:]
    if not words or words[0] not in OPTIONS:
        return
    name = words[0]
    letters, valued = OPTIONS[name]
    yield name
    i = 1
    while i < len(words):
        word = words[i]
        if word == "--" or len(word) < 2 or word[0] not in "-+":
            return
        if name == "kill" and word[1:] not in ("s", "n", "l", "L"):
            return  # -TERM, -9: a signal, not options
        if name in ("pushd", "popd", "dirs") and word[1:].isdigit():
            return
        for j, c in enumerate(word[1:]):
            if c not in letters:
                continue
            yield f"{name} -{c}"
            if c in valued and j == len(word) - 2:
                if name == "set" and c == "o" and i + 1 < len(words):
                    yield f"set -o {words[i + 1]}"
                i += 1
                break
        i += 1


def _commands(node: object) -> Iterator[list[str]]:
    """Every simple command under `node`, as its constant words (a non-constant word ends the list)."""
    if isinstance(node, A.SimpleCommand):
        words: list[str] = []
        for w in node.words:
            text = _literal(w)
            if text is None:
                break
            words.append(text)
        yield words
        if words and (words[0] == "eval" or (words[0] in ("bash", "sh") and "-c" in words)):
            for w in node.words[1:]:
                if (text := _literal(w)) is not None and " " in text:
                    yield from _script_commands(text)
    if isinstance(node, (tuple, list)):
        for item in node:
            yield from _commands(item)
    elif type(node).__module__ == A.__name__:  # a syntax-tree node (slotted, see syntax/nodeclass.py)
        for name in getattr(type(node), "__slots__", ()):
            value = getattr(node, name)
            if isinstance(value, (tuple, list)) or type(value).__module__ == A.__name__:
                yield from _commands(value)


def _script_commands(script: str) -> Iterator[list[str]]:
    try:
        tree = parse(script, extglob=True)
    except Exception:  # a case may hold a deliberate syntax error: read it line by line
        for line in script.splitlines():
            try:
                tree = parse(line, extglob=True)
            except Exception:
                continue
            yield from _commands(tree)
        return
    yield from _commands(tree)


def covered() -> dict[str, list[str]]:
    """Each exercised use -> the cases that exercise it."""
    found: dict[str, list[str]] = {}
    for case in load_all():
        for words in _script_commands(case.script):
            for use in _uses(words):
                found.setdefault(use, []).append(f"{case.file}/{case.name}")
    return found


def test_every_builtin_option_has_a_case() -> None:
    found = covered()
    missing = sorted(required() - found.keys() - KNOWN_GAPS)
    assert not missing, f"{len(missing)} builtin options no spec case runs: {', '.join(missing)}"


def test_known_gaps_are_still_gaps() -> None:
    found = covered()
    closed = sorted(KNOWN_GAPS & found.keys())
    assert not closed, f"covered now, remove from KNOWN_GAPS: {', '.join(closed)}"


if __name__ == "__main__":  # list the gaps: python tests/spec/test_option_coverage.py
    found = covered()
    gaps = sorted(required() - found.keys())
    print(f"{len(required()) - len(gaps)}/{len(required())} covered; missing {len(gaps)}:")
    for gap in gaps:
        print(" ", gap)
