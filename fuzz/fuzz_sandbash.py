"""Coverage-guided fuzz target (atheris / libFuzzer) for the parser and the
expansion engine.

The first input byte picks a mode; the rest is the text (UTF-8, invalid
bytes kept as surrogate escapes, as the API does):

- parser: ``Parser(text).parse_all()`` may only raise ``ParseError``;
- script: ``Bash().exec(text)`` with tiny limits may only return a result or
  raise ``ExecutionLimitError`` / ``ExecutionCancelled``, and must never
  report an internal error;
- expansion: the text is placed in word contexts (command arguments, double
  quotes, parameter operators, arithmetic, ``[[ ]]``, ``case`` patterns,
  here-docs) and run the same way.

Anything else raises, which libFuzzer reports as a crash with the input
saved. See fuzz/README.md for the command.
"""

from __future__ import annotations

import os
import sys
import tempfile

import atheris

with atheris.instrument_imports(include=["sandbash"]):
    from sandbash import Bash, ExecutionCancelled, ExecutionLimitError, Limits
    from sandbash.syntax.errors import ParseError
    from sandbash.syntax.parser import Parser

LIMITS = Limits.profile("hardened").with_overrides(
    timeout=0.5,
    max_command_count=200,
    max_loop_iterations=100,
    max_call_depth=16,
    max_output_size=16 * 1024,
    max_substitution_depth=6,
    max_brace_expansion_results=200,
    max_work=500_000,
    max_string_length=64 * 1024,
)

# Word contexts for the expansion mode; {} is the fuzzed text.
CONTEXTS = [
    "echo {}",
    'echo "{}"',
    "x={}; echo ${{x}} ${{#x}} ${{x:1:2}} ${{x/a/b}} ${{x^^}} ${{x@Q}}",
    'x=abc; echo "${{x{}}}"',
    "echo $(( {} ))",
    "[[ {} ]]; echo $?",
    "case abc in {}) echo m;; esac",
    "cat <<EOF\n{}\nEOF",
    "printf '%s\\n' {} | sort",
    'for v in {}; do echo "$v"; done',
    'set -- {}; echo $# "$@"',
    'a=({}); echo ${{#a[@]}} "${{a[@]}}"',
]

SEEDS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seeds")


def _run(script: str) -> None:
    try:
        r = Bash(limits=LIMITS).exec(script)  # a fresh filesystem per input: crashes reproduce
    except (ExecutionLimitError, ExecutionCancelled):
        return
    if b"internal error" in r.stderr_bytes:
        raise RuntimeError("internal error reported: " + r.stderr[-500:])


def TestOneInput(data: bytes) -> None:  # the name atheris looks for
    if not data:
        return
    mode, body = data[0] % 3, data[1:]
    if mode == 0:
        try:
            Parser(body.decode("utf-8", "surrogateescape"), max_tokens=20_000, max_depth=200).parse_all()
        except ParseError:
            pass
    elif mode == 1:
        _run(body.decode("utf-8", "surrogateescape"))
    elif body:
        ctx = CONTEXTS[body[0] % len(CONTEXTS)]
        _run(ctx.format(body[1:].decode("utf-8", "surrogateescape")))


def main() -> None:
    argv = list(sys.argv)
    if not any(not a.startswith("-") for a in argv[1:]):
        # no corpus given: grow one in a temporary directory, seeded from fuzz/seeds
        argv += [tempfile.mkdtemp(prefix="sandbash-corpus-"), SEEDS]
    atheris.Setup(argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
