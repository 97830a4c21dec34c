"""'NAME/.' looks '.' up inside NAME, so it needs search (x) permission on NAME, as the kernel's
pathname resolution does for a user who is not root: a readable but not searchable directory has
no 'dir/.' (glob `*/.`, test -e, cd), a searchable one does, a file has none (ENOTDIR). Expected
outputs are GNU bash 5.2's, run as an unprivileged user on the host (sandbash's user is uid 1000)."""

from __future__ import annotations

import pytest

from sandbash import Bash

SETUP = "mkdir -m a=r r; mkdir -m a=x s; mkdir d; touch f\n"

CASES = [
    ("glob-dot", "echo */.", "d/. s/.\n"),
    ("glob-dot-slash-and-quoted-dot", "echo */./ */'.'", "d/./ s/./ d/. s/.\n"),
    ("glob-escaped-dot", "p='*/\\.'; echo $p", "d/. s/.\n"),
    ("test-e-unsearchable", "[ -e r/. ] && echo yes || echo no", "no\n"),
    ("test-d-search-only", "[ -d s/. ] && echo yes || echo no", "yes\n"),
    ("test-e-file-dot", "[ -e f/. ] && echo yes || echo no", "no\n"),
    ("test-d-slash-still-fine", "[ -d r/ ] && echo yes || echo no", "yes\n"),
    (
        "cd-unsearchable-dot",
        "cd r/. 2>&1 || echo failed",
        "bash: line 2: cd: r/.: Permission denied\nfailed\n",
    ),
    ("cd-search-only-dot", "(cd s/. && echo ok)", "ok\n"),
    ("ls-d", "ls -d r/ s/. 2>&1", "r/\ns/.\n"),
]


@pytest.mark.parametrize(("name", "script", "want"), CASES, ids=[c[0] for c in CASES])
def test_dot_needs_search_permission(name: str, script: str, want: str) -> None:
    result = Bash().exec(SETUP + script)
    assert result.stdout == want
