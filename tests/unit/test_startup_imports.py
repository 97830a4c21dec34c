"""Start-up: `sandbash -c 'echo hi'` imports only what the script needs (issue 23: at most 50 ms of CPU).
The modules below cost milliseconds each and a plain run needs none of them; each test checks the
stand-in that replaced it gives the same answer."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from types import SimpleNamespace

import pytest

from sandbash.audit import script_hash
from sandbash.cli.app import _defaults, _parse_ours, _parser

# what each costs a plain run when imported (Python 3.11): dataclasses with inspect ~6 ms, hashlib
# (OpenSSL) ~2.5 ms, argparse with gettext and locale ~3 ms, signal.py (its enums) ~0.5 ms
NOT_IMPORTED = ("dataclasses", "inspect", "hashlib", "argparse", "gettext", "locale", "signal")


def test_echo_hi_imports_none_of_the_costly_modules() -> None:
    code = (
        "import sys; from sandbash.cli import main; rc = main(['-c', 'echo hi']); "
        f"print(sorted(m for m in {NOT_IMPORTED!r} if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.splitlines() == ["hi", "[]"]


def test_option_defaults_are_argparse_defaults() -> None:
    ours = _defaults()
    theirs = _parser().parse_args([], namespace=SimpleNamespace())
    assert vars(ours) == vars(theirs)
    ours.mount.append("x")  # lists are fresh for every parse, as argparse's are
    assert _defaults().mount == []


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--limits", "generous"],
        ["--mount", "/a:/b:ro", "--mount", "/c:/d", "--cwd", "/b"],
        ["--json", "--timeout", "2.5", "--limit", "timeout=2m"],
        ["--host", "--host-path", "/var/log:ro", "--allow-url", "https://x/"],
    ],
)
def test_parse_ours_is_argparse_with_or_without_options(argv: list[str]) -> None:
    want = vars(_parser().parse_args(argv, namespace=SimpleNamespace()))
    assert vars(_parse_ours(argv)) == want


@pytest.mark.parametrize("script", ["", "echo hi", "é\udcff" * 50, "x" * 100_000])
def test_script_hash_is_sha256(script: str) -> None:
    digest = hashlib.sha256(script.encode("utf-8", "surrogateescape")).hexdigest()
    assert script_hash(script) == "sha256:" + digest


def test_only_a_process_of_its_own_freezes_the_imported_objects() -> None:
    """main() as the program (no argv) moves the import-time objects out of the collector's way
    (gc.freeze); called with argv, as an embedding program or a test does, it leaves gc alone."""
    code = (
        "import gc, sys; from sandbash.cli import main; before = gc.get_freeze_count(); "
        "main(['-c', 'true']); after_argv = gc.get_freeze_count(); "
        "sys.argv = ['sandbash', '-c', 'true']; main(); "
        "print(before == after_argv == 0, gc.get_freeze_count() > 0, gc.isenabled())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.split() == ["True", "True", "True"]


def test_signal_handlers_are_installed_and_given_back() -> None:
    """The CLI's SIGINT/SIGTERM handlers (through the C module) replace the program's and put them back."""
    import signal

    from sandbash.cli.app import _Stopper

    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    stop = _Stopper()
    stop.install()
    try:
        assert signal.getsignal(signal.SIGINT) == stop._handle
        assert signal.getsignal(signal.SIGTERM) == stop._handle
    finally:
        stop.uninstall()
    assert {s: signal.getsignal(s) for s in before} == before
