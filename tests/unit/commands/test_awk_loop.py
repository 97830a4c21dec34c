"""awk's record loop as one generated function (`_LOOP`, commands/awk/gen_loop.py).

Programs whose main rules only read the record run a batch of records in one call: fields split
lazily and only as far as the highest one read, NR/FNR counted only when something reads them,
`next` a `continue`. Each case runs through it (or, for the cases that must not, through `_MAIN`)
and must match the real gawk: stdout and status, and stderr for the fatal ones. The inputs are
long enough to span several batches.
"""

from __future__ import annotations

import pytest

from realtools import have, real_command
from sandbash.commands.awk.cli import compile_program
from sandbash.commands.awk.lexer import Source
from sandbash.limits import LimitExceeded, Limits
from sandbash.testing import run_command

needs_gawk = pytest.mark.skipif(not have("gawk"), reason="gawk not installed")

Case = tuple[list[str], str, dict[str, str]]


def case(*args: str, stdin: str = "", files: dict[str, str] | None = None) -> Case:
    return (list(args), stdin, files or {})


# several batches of records: blank lines, empty fields, numbers, numeric strings, odd blanks
LOG = "".join(
    f"{i % 5} k{i % 7} {'' if i % 11 == 0 else 'v' + str(i)}  {i * 0.5} {'0x1A' if i % 13 == 0 else ' 012 '}\n"
    if i % 17
    else "\n"
    for i in range(20000)
)
COLONS = "".join(f"a{i % 3}:{i}::{'x' if i % 2 else ''}:{i % 4}\n" if i % 9 else "\n" for i in range(9000))
TABS = "".join(f"{i}\t{'' if i % 3 else 'x y'}\t{i % 5}\n" for i in range(9000))
ODD = "".join(f"a\v{i}\rb {i % 3}\x0c c\n" for i in range(3000))
SMALL = "1 one\n2 two\n3 three\n"
HEADS = "".join(
    f"k:{h}\n"
    for h in (
        "12 ms",
        "-.5 x",
        "1e3 y",
        "1e x",
        "0x1A z",
        "+ 5",
        ". 5",
        "1_000 x",
        "inf x",
        "+inf x",
        "-nan y",
        " 7 z",
        "3. x",
        "5\tx y",
        "-0 q",
        "1.2.3 x",
        "+3e-2 a b",
        "007 b",
        "12",
        "1e400 big",
        "9" * 30 + " x",
    )
)

LOOPED = [
    # constant fields as text, numbers, values and truth values
    case('$2 == "k3" { n++ } END { print n, NR }', stdin=LOG),
    case("{ s[$2] += $4 } END { for (k in s) print k, s[k] }", stdin=LOG),
    case("$1 > 2 { c++ } $5 == 12 { d++ } $5 { e++ } !$3 { f++ } END { print c, d, e, f }", stdin=LOG),
    case(
        '$3 == "" { a++ } $3 == 0 { b++ } $9 == 0 { c++ } $9 == "" { d++ } END { print a, b, c, d }',
        stdin=LOG,
    ),
    case('$5 < 13 { a++ } $5 > "013" { b++ } $4 >= 100.5 { c++ } END { print a, b, c }', stdin=LOG),
    case("{ x = $5; if (x == 12) n++; y = $5 + 0 } END { print n, x, y, typeof(x) }", stdin=LOG),
    case("{ print $3, $1 }", stdin=LOG),
    case("{ print $4 }", stdin=LOG),
    case('{ printf "%s|%d|%.2f\\n", $2, $1, $4 }', stdin=LOG),
    case("length($0) > 25 { n++ } { t += length($3) } END { print n, t }", stdin=LOG),
    case("/k4/ { n++ } $2 ~ /k[12]/ { m++ } END { print n, m }", stdin=LOG),
    case('{ a[$2 " " $1]++ } END { for (k in a) print k, a[k] }', stdin=LOG),
    case("{ print }", stdin=LOG),
    case("$0", stdin=LOG),
    case('$0 == "" { e++ } END { print e, $0, $2 }', stdin=LOG),
    case("{ k = $1 $2; u[k] = $0 } END { for (x in u) n++; print n, k }", stdin=LOG),
    # NR and FNR read in the loop, or only at the end
    case("NR % 1000 == 0 { print NR, FNR, $2 }", stdin=LOG),
    case("NR > 19995", stdin=LOG),
    case("{ s += $1 } END { print s, NR, FNR, $0 }", "f", "g", files={"f": LOG, "g": SMALL}),
    case("FNR == 1 { print FILENAME, NR, $2 }", "f", "g", "f", files={"f": LOG, "g": SMALL}),
    case("{ n++ } END { print n, NR }", "f", "NR=100", "g", files={"f": LOG, "g": SMALL}),
    case("{ n += $1 } END { print n, x }", "f", "x=7", "g", files={"f": LOG, "g": SMALL}),
    case("{ print $2 }", "f", "FS=:", "g", "FS=[0-9]", "g", files={"f": SMALL, "g": COLONS[:2000]}),
    # next, exit, ranges
    case('$2 == "k1" { next } { n++ } END { print n }', stdin=LOG),
    case('$2 == "k1" { n++; next } { print $1; exit } END { print n, NR, $0 }', stdin=LOG),
    case("$1 == 3 && ++n == 2500 { exit 3 } END { print NR, FNR, $3 }", stdin=LOG),
    case("$1 == 4 { exit } END { print NR; exit 5 }", "f", "g", files={"f": LOG, "g": SMALL}),
    case("/v100$/, /v110$/ { print NR, $3 }", stdin=LOG),
    case('$2 == "k2", $2 == "k3" { n++ } END { print n }', stdin=LOG),
    # separators: one character, tab, regex, empty records, odd blanks, IGNORECASE
    case("-F:", "{ s[$1] += $2 } END { for (k in s) print k, s[k] }", stdin=COLONS),
    case("-F:", '$4 == "" { a++ } $3 == "" { b++ } $6 == "" { c++ } END { print a, b, c, NR }', stdin=COLONS),
    case("-F:", "{ print $5, $1 }", stdin=COLONS),
    case("-F\t", '{ print $2 "|" $3 }', stdin=TABS),
    case("-F", "[:]+", "{ print $2, $3 }", stdin=COLONS),
    case("-F", "a", "{ print $2 }", stdin=COLONS),
    case("-v", "IGNORECASE=1", "-F", "A", "{ print $2 }", stdin=COLONS),
    case("-v", "IGNORECASE=1", "-F", "a", "{ print $2 }", stdin=COLONS.upper()),
    case("-v", "IGNORECASE=1", "-F", "[a]", "{ print $2 }", stdin=COLONS.upper()),
    case("-v", "IGNORECASE=1", '{ n += split($0, p, "A") } END { print n }', stdin=COLONS),
    case("-v", "IGNORECASE=1", "-v", "RS=", "-F", "A", "{ print $1, $2 }", stdin=COLONS),
    case("{ print $2, $3 }", stdin=ODD),
    case("$2 == 1 { n++ } END { print n }", stdin=ODD),
    case("-v", "RS=\n", "{ print $1 }", stdin=LOG),
    # a field's numeric prefix before a space, and the heads that are not one
    case("-F:", "{ t += $2; print $2 + 0 } END { print t }", stdin=HEADS),
    case("-F:", "{ print ($2 < 5), ($2 == 12) }", stdin=HEADS),
    # number formats and output settings
    case("-v", "CONVFMT=%.2g", "{ a[$4 * 1.01]++ } END { for (k in a) n++; print n }", stdin=LOG),
    case("-v", "OFS=-", "-v", "ORS=|", "{ print $1, $2 }", stdin=SMALL),
    case("-v", "OFMT=%.1f", "{ print $4 / 3 }", stdin=LOG),
    case("-v", "OFMT=%.2e", "-v", "CONVFMT=%.3f", '{ x = $4 / 7; print x, x "" }', stdin=LOG),
    case('{ print $2 > "/dev/stderr" } END { print "done" }', stdin=SMALL),
    case('{ n++ } END { print ENVIRON["NOPE"] "x", n }', stdin=SMALL),
    case("{ split($0, p); t += p[1] } END { print t }", stdin=LOG),
    case("{ if (match($3, /[0-9]+/)) t += RSTART + RLENGTH } END { print t }", stdin=LOG),
    case('{ t += gsub(/k/, "K", x) } END { print t }', stdin=LOG),
    case('{ while (("echo " $1 | getline l) > 0) t += l; close("echo " $1) } END { print t }', stdin=SMALL),
    case(
        '{ while ((getline l < "g") > 0) c++; close("g") } END { print c }',
        "f",
        files={"f": SMALL, "g": SMALL},
    ),
    case('{ print substr($3, 2), toupper($2), index($0, "k") }', stdin=SMALL + LOG[:3000]),
    # `$k == "text"`: records without the text are not split (the text elsewhere, empty, holding FS)
    case(
        '$2 == "k3" { n++ } "k4" == $2 { m++ } $1 == "k3" { o++ } $3 == "" { e++ } $2 == "k3 0" { s++ }'
        " END { print n, m, o, e, s }",
        stdin=LOG,
    ),
    case(
        "-F:",
        '$5 == "x" { n++ } "a1" == $1 { m++ } $4 == "" { e++ } $2 == "1:" { f++ } END { print n, m, e, f }',
        stdin=COLONS,
    ),
    case('{ t += ($2 == "k5") + ("k6" == $2); u = u ($2 == "k1") } END { print t, length(u) }', stdin=LOG),
    case('$2 == "k3" && $1 == "4" { print NR, $0 } $5 == "0x1A" { x++ } END { print x }', stdin=LOG),
    case("-v", "IGNORECASE=1", '$2 == "K3" { n++ } END { print n }', stdin=LOG),
    case('$2 == "2" { print FILENAME, $1 }', "f", "FS=:", "g", files={"f": SMALL, "g": COLONS[:3000]}),
    case("-F", "[:]+", '$2 == "1" { n++ } END { print n }', stdin=COLONS),
    # NF and fields by a computed index: the whole record split, NF its length
    case("{ print $NF, NF }", stdin=SMALL),
    case("{ print $(1 + 1) }", stdin=SMALL),
    case('{ print NF ":" $NF "|" }', stdin=LOG),
    case("{ n += NF; t += length($NF) } END { print n, t, NF, $NF }", stdin=LOG),
    case("{ s = 0; for (i = 1; i <= NF; i++) s += $i; print s }", stdin=LOG),
    case('{ for (i = NF; i > 0; i--) printf "%s.", $i; print "" }', stdin=LOG),
    case("NF > 5 { c++ } !NF { e++ } $NF ~ /2$/ { m++ } END { print c, e, m }", stdin=LOG),
    case('{ print $(NF > 1 ? NF - 1 : 0) "|" $(NF + 3) "|" $(0) "|" $(x) "|" $(1.7) "|" $("3") }', stdin=LOG),
    case("{ x = $NF; y = $(NF) + 0 } END { print x, y, typeof(x), typeof($(NF + 1)) }", stdin=LOG),
    case('{ print ($NF > 3), ($(2) < "k3"), ($NF == 12) }', stdin=LOG),
    case("{ print NF, $1, $NF }", stdin="   \n\t\n" + SMALL + " x \t y \n"),
    case("-F:", '{ print NF, $NF "|" $(NF > 1 ? NF - 1 : 0) }', stdin=COLONS),
    case("-F", "[:]+", "{ print NF, $NF }", stdin=COLONS),
    case("-F\t", "{ n += NF; print $NF }", stdin=TABS),
    case("{ print NF, $NF }", stdin=ODD),
    case("{ n += NF } END { print n, NR }", "f", "FS=:", "g", files={"f": LOG, "g": COLONS}),
]

# programs that must keep the per-record path (and still match gawk)
PER_RECORD = [
    case('{ $2 = "x" } NR % 5000 == 0 { print }', stdin=LOG),
    case("{ $0 = $2 } { print $1 }", stdin=SMALL),
    case("{ NF = 2 } { print }", stdin=SMALL),
    case("{ $NF = 1; print }", stdin=SMALL),
    case("{ $(NF + 2) = NF; print; print NF }", stdin=SMALL),
    case("function f() { return $2 } { print f() }", stdin=SMALL),
    case('{ sub(/o/, "0"); print }', stdin=SMALL),
    case('{ t += gsub(/k/, "K", $2) } END { print t, $0 }', stdin=LOG),
    case('{ getline < "g"; print $1 } END { print NR, $0 }', "f", files={"f": SMALL, "g": SMALL}),
    case("{ getline; print }", stdin=SMALL),
    case("{ for (i = 0; i < 2; i++) if ($1 == 2) next; print }", stdin=SMALL),
]


def _compare(args: list[str], stdin: str, files: dict[str, str], stderr: bool = False) -> None:
    data = stdin.encode("utf-8", "surrogateescape")
    exp_out, exp_err, exp_status = real_command(["gawk", *args], data, files)
    got = run_command(["gawk", *args], stdin=data, files=files)
    assert (got.stdout, got.status) == (exp_out, exp_status), got.stderr.decode(errors="replace")
    if stderr:
        assert got.stderr == exp_err


def _program(args: list[str]) -> str:
    words = iter(args)
    for w in words:
        if w in ("-F", "-v"):
            next(words)
        elif not w.startswith("-"):
            return w
    raise AssertionError(args)


def _looped(program: str) -> bool:
    return "def _LOOP(" in compile_program([Source("cmd. line", program)], False).gen.source


@needs_gawk
@pytest.mark.parametrize("args,stdin,files", LOOPED)
def test_the_record_loop_matches_gawk(args: list[str], stdin: str, files: dict[str, str]) -> None:
    assert _looped(_program(args))
    _compare(args, stdin, files)


@needs_gawk
@pytest.mark.parametrize("args,stdin,files", PER_RECORD)
def test_programs_that_change_the_record_keep_the_per_record_path(
    args: list[str], stdin: str, files: dict[str, str]
) -> None:
    assert not _looped(_program(args))
    _compare(args, stdin, files)


FATAL = [
    case("{ x = $1 } $1 == 4 && ++n == 300 { print 1 / (n - n) } END { print x }", stdin=LOG),
    case('$2 == "k6" { n++ } n == 1000 { print 1 / (n - n) }', "f", "g", files={"f": SMALL, "g": LOG}),
    case("{ x = $1 } END { print 1 / (x - x) }", stdin=LOG),
    # a computed index that is negative, NaN, infinite or past a C long, once the loop reaches it
    case("NR == 1000 { print $(NF - 10) } { n++ }", stdin=LOG),
    case("NR == 1000 { print $(log(0)) }", stdin=LOG),
    case("NR == 999 { print $(-log(0)) }", stdin=LOG),
    case("NR == 998 { print $(log(-1)) }", stdin=LOG),
    case("NR == 997 { x = $(1e19) }", stdin=LOG),
    case("NR == 996 { x = $(-1e30) + 1 }", stdin=LOG),
    case("!NF { print $(NF - 1) }", stdin=LOG),
]


@needs_gawk
@pytest.mark.parametrize("args,stdin,files", FATAL)
def test_a_fatal_error_in_the_loop_names_the_record_as_gawk(
    args: list[str], stdin: str, files: dict[str, str]
) -> None:
    assert _looped(_program(args))
    _compare(args, stdin, files, stderr=True)


def test_a_body_nested_too_deep_for_python_keeps_main() -> None:
    deep = "{ " + "if ($1) { " * 17 + "n++" + " }" * 17 + " } END { print n }"
    assert not _looped(deep)
    r = run_command(["awk", deep], stdin=b"1\n0\n1\n")
    assert (r.stdout, r.status) == (b"2\n", 0)


@needs_gawk
@pytest.mark.parametrize("value", ["-1", "-1.5", "log(0)", "-log(0)", "log(-1)", "1e30", "2^63", "-2^63"])
def test_nf_set_out_of_range_is_fatal_as_gawk(value: str) -> None:
    _compare([f"NR == 100 {{ NF = {value} }} {{ print NF }}"], LOG, {}, stderr=True)


@pytest.mark.parametrize(
    "prog",
    ["NR == 500 { print $(2^30) }", "NR == 500 { x = $(NF * 2^25) }", "{ n += NF } NR == 500 { NF = 2^30 }"],
)
def test_a_field_past_the_field_limit_ends_the_run(prog: str) -> None:
    # reading (or making) field 2^30 is max_array_elements, in the loop as per record
    with pytest.raises(LimitExceeded) as info:
        run_command(["awk", prog], stdin=LOG.encode())
    assert info.value.limit == "max_array_elements"


def test_nf_and_computed_fields_split_every_field() -> None:
    for prog in ("{ print $NF }", "{ n += NF }", "{ print $(i + 1), $2 }", "$2 { x = $(NF - 1) }"):
        gen = compile_program([Source("cmd. line", prog)], False).gen
        assert "def _LOOP(" in gen.source, prog
        assert gen.values["_LOOPK"] == -1, prog


def test_a_csv_field_is_compared_as_read_not_as_a_piece_of_the_record() -> None:
    # --csv (gawk 5.3, no oracle here): field 2 of `1,"a""b"` is a"b, which the record does not hold
    prog = '$2 == "a\\"b" { n++ } "x,y" == $1 { m++ } $2 == "\\"" { q++ } END { print n, m, q, NR }'
    assert _looped(prog)
    r = run_command(["awk", "--csv", prog], stdin=b'1,"a""b"\n"x,y",2\n3,""""\n' * 5000)
    assert (r.stdout, r.status) == (b"5000 5000 5000 15000\n", 0)


def test_only_the_fields_read_are_split() -> None:
    # `$2` splits at most three pieces: the rest of a long record stays one string
    gen = compile_program([Source("cmd. line", '$2 == "x" { print $1 }')], False).gen
    assert gen.values["_LOOPK"] == 2


@pytest.mark.parametrize(
    "prog,limit",
    [
        ("{ while (1) x++ }", "timeout"),
        ("{ s = s s $0 }", "max_string_length"),
        ("{ a[$1 NR] = $0 }", "max_array_elements"),
        ('{ print $0 $0 $0 | "cat" }', "max_output_size"),
    ],
)
def test_the_loop_still_hits_the_limits(prog: str, limit: str) -> None:
    assert _looped(prog)
    stdin = "".join(f"r{i} {'x' * 50}\n" for i in range(200000)).encode()
    limits = Limits(
        timeout=1.0 if limit == "timeout" else 20.0, max_array_elements=1000, max_output_size=1 << 20
    )
    with pytest.raises(LimitExceeded) as info:
        run_command(["awk", prog], stdin=stdin, limits=limits)
    assert info.value.limit == limit


def test_a_number_before_a_space_reads_as_its_whole_prefix() -> None:
    # str2num's head path (a decimal head, then a space) gives what float() of the whole string, then
    # the numeric-prefix scan when that fails, gives
    from itertools import product

    from sandbash.commands.awk.values import _slow_str2num, str2num

    def reference(s: str) -> float:
        try:
            v = float(s)
        except ValueError:
            return _slow_str2num(s)
        return v if v - v == 0.0 and "_" not in s else _slow_str2num(s)

    pieces = ["", "1", "12", "-", "+", ".", "e", "5", "0x", "inf", "_", "\t", "\xa0", "x", "e-", "0"]
    seen = 0
    for a, b, c, tail in product(pieces, pieces, pieces, [" ", " x", "  7", " \t1"]):
        s = a + b + c + tail
        x, y = str2num(s), reference(s)
        assert x == y or (x != x and y != y), s
        seen += 1
    assert seen == 16**3 * 4


# FS of several characters that is plain text as a regex (one str.split a record, in the loop and
# per record) and the blanks str.split() takes that awk does not (looked for a chunk at a time in
# ASCII input): records spanning batches, overlapping separators, FS changed mid-input, IGNORECASE
MS = "".join(
    f"t{i} ms={i % 97}ms=x aaa{i}aaaa ::{i}:: , {i % 3}, \n" if i % 23 else "ms=\n" for i in range(12000)
)
LATE_ODD = "".join(f"w{i} v {i % 4}\n" for i in range(40000)) + "x\fy z\n" + "p\x1cq r\n" + "a\u00a0b c\n"
PLAIN_FS = [
    case("-F", "ms=", "{ s += $2; n += NF } END { print s, n }", stdin=MS),
    case("-F", "aa", "{ print NF, $2, $NF }", stdin=MS),
    case("-F", ", ", "{ print $2 }", stdin=MS),
    case("-F", "::", '{ print $2 "|" $3 }', stdin=MS),
    case("-v", "IGNORECASE=1", "-F", "MS=", "{ print $2 }", stdin=MS),
    case("-v", "IGNORECASE=1", "-F", "A", "{ print $2 }", stdin=MS),
    case('NR == 5000 { FS = "ms=" } { print $1 }', stdin=MS),
    case('{ n += split($0, a, "aa"); m += split($0, b, ", ") } END { print n, m, a[2], b[3] }', stdin=MS),
    case("{ print NF, $2 }", stdin=LATE_ODD),
    case("{ n += NF } END { print n }", stdin="x\ry z\n" + LATE_ODD),
]


@needs_gawk
@pytest.mark.parametrize("args,stdin,files", PLAIN_FS)
def test_plain_text_separators_and_odd_blanks_match_gawk(
    args: list[str], stdin: str, files: dict[str, str]
) -> None:
    _compare(args, stdin, files)
