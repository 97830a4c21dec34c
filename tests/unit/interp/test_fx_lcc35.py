"""The C/POSIX locale on the compiled paths: patterns and case changes of a non-ASCII value work on
bytes while LC_ALL/LC_CTYPE/LANG name C or POSIX, as bash does, and the generated and cached
forms (case tests, [[ == ]] sites, fast parameter plans, generated bodies) follow the locale when
it changes in the middle of a hot loop. Each script is run walked and compiled."""

from __future__ import annotations

import pytest

from .walking import run_walked

# one iteration's tests of x=μé: in UTF-8 two characters, in C four bytes (a length stands for
# a result that is no UTF-8)
_BODY = r"""
  case $x in ??) o+=2 ;; ????) o+=4 ;; *) o+=x ;; esac
  case $x in [μ]*) o+=b ;; *) o+=n ;; esac
  case $x in $p) o+=v ;; *) o+=w ;; esac
  [[ $x == ?? ]] && o+=t || o+=f
  [[ $x == "μ"? ]] && o+=q || o+=r
  [[ $x == $p ]] && o+=V || o+=W
  y=${x%?}; o+=${#y}
  y=${x#?}; o+=${#y}
  o+=${x//?/.}
  o+=${x^^}
  y=${x/#?/-}; o+=${#y}
  declare -u u=$x; o+=$u
  o+=' '
"""
_ONE = {"C.UTF-8": "2bwtqW11..ΜÉ2ΜÉ ", "C": "4bvfrV33....μé4μé "}
_ONE["POSIX"] = _ONE["C"]


def _want(flip_at: int, n: int, first: str, then: str) -> str:
    return "".join(_ONE[first] if i < flip_at else _ONE[then] for i in range(n)) + "\n"


@pytest.mark.parametrize("walker", [False, True])
@pytest.mark.parametrize(("first", "then"), [("C.UTF-8", "C"), ("POSIX", "C.UTF-8")])
def test_a_hot_loop_follows_the_locale_as_it_changes(walker: bool, first: str, then: str) -> None:
    script = (
        f"x=μé p='???*' o=\nLC_ALL={first}\n"
        f"for ((i = 0; i < 300; i++)); do\n  (( i == 150 )) && LC_ALL={then}\n{_BODY}done\n"
        'echo "$o"\n'
    )
    assert run_walked(script, walker) == (_want(150, 300, first, then), "", 0)


@pytest.mark.parametrize("walker", [False, True])
def test_a_hot_function_follows_its_callers_locale(walker: bool) -> None:
    # a function called often enough to be generated, under `LC_ALL=C f` and `local LC_ALL`
    script = (
        "x=μé p='???*' LC_ALL=C.UTF-8\n"
        f"f() {{\n{_BODY}}}\n"
        "g() { local LC_ALL=C; f; }\n"
        'o=; for ((i = 0; i < 200; i++)); do f; done; echo "$o"\n'
        'o=; for ((i = 0; i < 200; i++)); do LC_ALL=C f; done; echo "$o"\n'
        'o=; for ((i = 0; i < 200; i++)); do g; done; echo "$o"\n'
        'o=; f; echo "$o"\n'
    )
    utf8, c = _ONE["C.UTF-8"], _ONE["C"]
    want = f"{utf8 * 200}\n{c * 200}\n{c * 200}\n{utf8}\n"
    assert run_walked(script, walker) == (want, "", 0)


@pytest.mark.parametrize("walker", [False, True])
@pytest.mark.parametrize(
    ("setting", "bytewise"),
    [
        ("LANG=C; unset LC_ALL LC_CTYPE", True),
        ("LANG=C LC_CTYPE=C.UTF-8; unset LC_ALL", False),
        ("LANG=C.UTF-8 LC_CTYPE=POSIX; unset LC_ALL", True),
        ("LC_CTYPE=C.UTF-8 LC_ALL=C", True),
        ("LC_CTYPE=C LC_ALL=C.UTF-8", False),
        ("unset LC_ALL LC_CTYPE LANG", True),
    ],
)
def test_lc_all_then_lc_ctype_then_lang_decide(walker: bool, setting: str, bytewise: bool) -> None:
    script = f"x=μé p='???*' o=\n{setting}\nfor i in 1 2 3; do\n{_BODY}done\necho \"$o\"\n"
    want = _ONE["C" if bytewise else "C.UTF-8"] * 3 + "\n"
    assert run_walked(script, walker) == (want, "", 0)
