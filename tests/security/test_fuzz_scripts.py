"""Property test: random scripts from the grammar (valid and invalid) always
end within the deadline, with output within the cap, with a result or a
limit (never another Python exception, nor 'internal error'), nothing left
running, and no host file changed.

The default run is small and derandomized (SANDBASH_FUZZ_EXAMPLES, default
150). The dedicated run (see README.md in this directory):

    SANDBASH_FUZZ_EXAMPLES=10000 .venv/bin/pytest tests/security/test_fuzz_scripts.py
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scriptgen import hostile_scripts
from secharness import FILE_CANARY, assert_ends, assert_no_secrets, plant_canaries, run_isolated, snapshot

from sandbash import Bash, Limits
from sandbash.vfs import MemoryFs, MountFs, OverlayFs, ReadWriteFs
from sandbash.vfs.quota import DiskQuota

# Symptoms of bugs already pinned by strict xfail tests (test ids in brackets):
# a random script that shows one of these is not counted again. Remove an
# entry once its bug is fixed.
# symptoms of known bugs the random scripts may hit (none open: the last, invalid
# UTF-8 in option usage errors, was fixed in 55a9f68)
KNOWN_BUGS: list[re.Pattern[str]] = []

EXAMPLES = int(os.environ.get("SANDBASH_FUZZ_EXAMPLES", "150"))
DEDICATED = "SANDBASH_FUZZ_EXAMPLES" in os.environ

HOST = Path(tempfile.mkdtemp(prefix="sandbash-fuzz-"))
atexit.register(shutil.rmtree, HOST, True)  # only the directory made just above
CANARY = plant_canaries(HOST)
RO = HOST / "ro"
RO.mkdir()
(RO / "r.txt").write_text("read only\n")
(RO / "out").symlink_to(CANARY)
WORK = HOST / "work"

LIMITS = Limits.profile("hardened").with_overrides(
    timeout=1.0,
    max_command_count=500,
    max_loop_iterations=200,
    max_call_depth=20,
    max_output_size=64 * 1024,
    max_substitution_depth=8,
    max_brace_expansion_results=500,
    max_work=2_000_000,
)


def _build() -> Bash:
    fs = MountFs(MemoryFs())
    fs.mount("/work", ReadWriteFs(str(WORK), quota=DiskQuota(1 << 20, 200)))
    fs.mount("/ro", OverlayFs(str(RO), follow_symlinks=True), read_only=True)
    return Bash(fs=fs, cwd="/work", limits=LIMITS)


def _fresh_work() -> None:
    if WORK.exists():
        shutil.rmtree(WORK)  # our own temp tree, recreated for every example
    WORK.mkdir()
    (WORK / "w.txt").write_text("work\n")
    (WORK / "link").symlink_to(CANARY / "secret.txt")


_fresh_work()
BEFORE = {"canary": snapshot(CANARY), "ro": snapshot(RO)}


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    derandomize=not DEDICATED,
    suppress_health_check=list(HealthCheck),
)
@given(script=hostile_scripts(), stdin=st.sampled_from([b"", b"a\nb\n", b"\xff\x00\n", b"1 2 3\n" * 50]))
def test_random_scripts_end_cleanly(script: str, stdin: bytes) -> None:
    _fresh_work()
    out = run_isolated(script, limits=LIMITS, stdin=stdin, build=_build)
    assert_no_secrets(out)
    assert FILE_CANARY not in out.text
    assert snapshot(CANARY) == BEFORE["canary"], "the canary changed"
    assert snapshot(RO) == BEFORE["ro"], "the read-only mount's host directory changed"
    if not any(bug.search(out.error + out.text) for bug in KNOWN_BUGS):
        assert_ends(out, kinds=("result", "limit"))
