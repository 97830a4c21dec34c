"""How a command run by path (`/usr/bin/printf`, `/bin/ls`) names itself in its messages.

A program sees argv[0] as the shell passed it: the word as typed when it has a slash. Which of its
messages show that word and which the bare name depends on the tool (measured on Debian 12):

- glibc's getopt prints argv[0] in "invalid option"/"unrecognized option"/"requires an argument";
- gnulib's error() prints `program_name`, argv[0] as given: coreutils, grep, sed, findutils,
  diffutils, tar, patch, binutils' strings, xz, lua; gzip, util-linux (err/warnx) and jq print
  their short name there;
- the `Try '... --help'` and `Usage:` lines follow program_name in coreutils, sed, xargs,
  diffutils, patch, strings, xz and lua; grep, tar, gzip and util-linux write the short name.

Tools that are scripts on a real system (egrep, zcat, gunzip) exec the real program under its own
name, so argv[0] counts only while the command still answers to the base name it was run by.
"""

from __future__ import annotations

from .options import COREUTILS as GNU_COREUTILS

# every coreutils program (options.COREUTILS, the --version list) and `[`, coreutils' test by that name
COREUTILS = GNU_COREUTILS | frozenset(["["])

# error() prints argv[0]; so do the Try/Usage lines
_ARGV0_ALL = COREUTILS | frozenset(
    [
        "sed",
        "find",
        "xargs",
        "diff",
        "diff3",
        "sdiff",
        "cmp",
        "patch",
        "strings",
        "xz",
        "unxz",
        "xzcat",
        "lua",
        "lua5.4",
        "getconf",
        "python",
        "python3",
    ]
)
# error() prints argv[0], the Try/Usage lines the short name
_ARGV0_ERRORS = _ARGV0_ALL | frozenset(("grep", "tar"))
# only getopt's own messages print argv[0]
_ARGV0_GETOPT = _ARGV0_ERRORS | frozenset(
    [
        "gzip",
        "column",
        "hexdump",
        "rev",
        "getopt",
        "mesg",
        "hostname",
        "file",
        "bc",
        "envsubst",
        "iconv",
        "man",
        "whatis",
        "sqlite3",
    ]
)


def _shown(name: str, argv0: str, tools: frozenset[str]) -> str:
    if "/" in argv0 and name in tools and argv0.rsplit("/", 1)[-1] == name:
        return argv0
    return name


def error_name(name: str, argv0: str) -> str:
    """The name a tool's error lines start with (`/bin/ls: cannot access ...`)."""
    return _shown(name, argv0, _ARGV0_ERRORS)


def help_name(name: str, argv0: str) -> str:
    """The name in a tool's `Try '... --help'` and `Usage:` lines."""
    return _shown(name, argv0, _ARGV0_ALL)


def getopt_name(name: str, argv0: str) -> str:
    """The name glibc's getopt starts an option error with."""
    return _shown(name, argv0, _ARGV0_GETOPT)
