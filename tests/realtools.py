"""Helpers for tests that compare with the real tools (bash, GNU coreutils, jq...).

A plain module, not a conftest: `from conftest import ...` would pick whichever
conftest.py pytest loaded last (tests/security has its own)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence

import pytest

import oracle

BASH = shutil.which("bash") or "/bin/bash"
HAVE_BASH = os.path.exists("/bin/bash")
REAL_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": "/home/user", "TZ": "UTC"}


def real_command(
    argv: Sequence[str],
    stdin: bytes = b"",
    files: Mapping[str, bytes | str] | None = None,
    env: Mapping[str, str] | None = None,
) -> tuple[bytes, bytes, int]:
    """Run the real tool in a fresh temporary directory holding `files`, inside the oracle sandbox
    (tests/oracle.py: only that directory is writable)."""
    with tempfile.TemporaryDirectory() as d:
        for path, content in (files or {}).items():
            full = os.path.join(d, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "wb") as f:
                f.write(content.encode() if isinstance(content, str) else content)
        p = oracle.run(
            list(argv), input=stdin, capture_output=True, cwd=d, env=dict(env or REAL_ENV), timeout=30
        )
        return p.stdout, p.stderr, p.returncode


def real_bash(
    script: str, stdin: bytes = b"", files: Mapping[str, bytes | str] | None = None
) -> tuple[bytes, bytes, int]:
    return real_command([BASH, "-c", script], stdin, files)


def have(tool: str) -> bool:
    return shutil.which(tool) is not None


needs_bash = pytest.mark.skipif(not HAVE_BASH, reason="real bash not available")
