"""awk: the language, compared with the real gawk (skipped when it is absent).

Each case is (program and arguments, stdin, files); stdout and the exit
status must match gawk's. Cases whose output order gawk leaves to its hash
tables use for-in anyway: our order reproduces gawk's for these sizes.
"""

from __future__ import annotations

import pytest

from realtools import have, real_command
from sandbash.testing import run_command

needs_gawk = pytest.mark.skipif(not have("gawk"), reason="gawk not installed")

Case = tuple[list[str], str, dict[str, str]]


def case(*args: str, stdin: str = "", files: dict[str, str] | None = None) -> Case:
    return (list(args), stdin, files or {})


NUMBERS = "1 10 x\n2 20 y\n3 30 z\n"
CSVISH = "alice,30,NY\nbob,25,LA\ncarol,35,NY\n"

BASICS = [
    case("{print $3}", stdin="a b c\nd e f\n"),
    case("{print $1, $NF}", stdin="one two three\nfour\n\n"),
    case('{print NR ": " $0}', stdin="a\nb\n"),
    case("END {print NR}", stdin="a\nb\nc"),
    case("{ print $(NF-1) }", stdin="a b c\n"),
    case("{ s += $2 } END { print s, s / NR }", stdin=NUMBERS),
    case("-F,", "{s[$3]+=$2} END{for(k in s) print k, s[k]}", stdin=CSVISH),
    case("-F,", "$2 > 28 { print $1 }", stdin=CSVISH),
    case(
        "NR==FNR{a[$1]=$2; next} $1 in a {print $0, a[$1]}",
        "f1",
        "f2",
        files={"f1": "x 1\ny 2\n", "f2": "x a\nz b\ny c\n"},
    ),
    case('{printf "%-10s %5.2f\\n", $1, $2}', stdin="apple 1.5\nbanana 22.333\n"),
    case("/b/", stdin="abc\nxyz\nbcd\n"),
    case("!/b/", stdin="abc\nxyz\nbcd\n"),
    case("/start/,/end/", stdin="a\nstart\nb\nend\nc\nstart\nd\n"),
    case("NR==2,NR==3 { print NR }", stdin="a\nb\nc\nd\n"),
    case("NR % 2", stdin="1\n2\n3\n4\n5\n"),
    case("length > 3", stdin="ab\nabcd\nabcdef\n"),
    case("{ print length }", stdin="hello\n\n"),
    case("BEGIN { print length() }"),
    case("END { print $0, NF }", stdin="a b\nc d e\n"),
    case("{ print x }", "x=1", "f1", "x=2", "f1", files={"f1": "line\n"}),
    case("-v", "x=5", "-v", "y=a\\tb", "BEGIN { print x + 1, y }"),
    case("--assign=x=3", "BEGIN { print x }"),
    case("-f", "prog.awk", "data", files={"prog.awk": "{ print $2 }\n", "data": "1 2 3\n"}),
    case(
        "-f",
        "a.awk",
        "-f",
        "b.awk",
        files={"a.awk": "function f(x) { return x * 2 }\n", "b.awk": "BEGIN { print f(21) }\n"},
    ),
    case("-e", "BEGIN { x = 1 }", "-e", "BEGIN { print x + 1 }"),
    case("--", 'BEGIN { print "dashdash" }'),
    case("{ print }", "-", stdin="from stdin\n"),
    case('BEGIN { printf "a" } END { print "b" }', stdin="x\n"),
    case("BEGIN { print ARGC; for (i = 0; i < ARGC; i++) print i, ARGV[i] }", "a", "b c"),
    case('BEGIN { ARGV[1] = "f2" } { print }', "f1", files={"f1": "one\n", "f2": "two\n"}),
    case('BEGIN { ARGV[1] = "" } { print }', "f1", stdin="stdin\n", files={"f1": "one\n"}),
    case("{ print FILENAME, FNR, NR }", "f1", "f2", files={"f1": "a\nb\n", "f2": "c\n"}),
    case("{ print FILENAME }", stdin="x\n"),
    case("{ print }", "dir", "f1", files={"f1": "one\n", "dir/x": "x\n"}),
]

EXPRESSIONS = [
    case("BEGIN { print 1e300, 1e30, 2^53+1, -0, 1/3, 100000000000000000000000, 0.1+0.2 }"),
    case('BEGIN { print 1 " " -1; print 1 - -1; print !1 == 2; print -2^2, 2^-1, 2^3^2 }'),
    case("BEGIN { x = 5; print x++ + ++x, x--, --x, x }"),
    case("BEGIN { print -3 % 2, 7 % -3, 2 ^ 10, 2 ** 3, 5.5 % 2 }"),
    case("BEGIN { x = 2; x ^= 3; x **= 2; x %= 10; x /= 4; x *= 3; x -= 1; x += 0.5; print x }"),
    case("BEGIN { print 011, 0x11, 1e3, .5e1, 1., 08 }"),
    case('BEGIN { x = 0; print 1 !x; print 1 " " !x }'),
    case('BEGIN { print 1==1.0, "a" < "b", 2 < 10, "2" < "10", "abc" ~ "b" }'),
    case('BEGIN { x = "10"; y = 9; print (x < y), (x+0 < y) }'),
    case("{ print ($1 < $2), ($1 == $2) }", stdin="10 9\nabc abd\n10 10.0\n1e2 100\n0x10 16\n"),
    case('{ print ($1 == 0), ($1 == ""), ($2 == 0) }', stdin="0.0\n\n +0 \n"),
    case('BEGIN { x; print x == 0, x == "", length(x), x + 0, "[" x "]" }'),
    case('BEGIN { a = "x"; b = a++; print a, b }'),
    case('BEGIN { print (1 < 2) (2 < 1), 1 < 2 ? "y" : "n" }'),
    case('BEGIN { x = 1 ? 2 ? "a" : "b" : "c"; print x }'),
    case('BEGIN { print 1 && 0, 1 || 0, !"", !"a", !0, !"0" }'),
    case("{ print !$1 }", stdin="0\n0.0\na\n\n"),
    case("BEGIN { print 100000 * 100000, 2^31, 2^63, 2^64, 1e16, 123456789012 }"),
    case("BEGIN { print 0.000001, 1e-7, 123456.7, 1234567.8, 3.0, -2.50 }"),
    case('BEGIN { CONVFMT = "%.2f"; a = 3.14159; b = a ""; print b; OFMT = "%.1f"; print a, a "" }'),
    case('BEGIN { CONVFMT = "%d"; x[1.5] = 1; for (k in x) print k }'),
    case(
        'BEGIN { print substr("hello", 1.5), substr("hello", 2.5, 1.5), substr("hello", 0, 2), '
        'substr("hello", -1, 3), substr("hello", 2), substr("hello", 9), substr("", 1) }'
    ),
    case('BEGIN { print index("foobar", "bar"), index("foo", ""), index("", "a") }'),
    case('BEGIN { print length(12345), length(1/3), length("héllo") }'),
    case('BEGIN { print toupper("abcé"), tolower("ÀB"), toupper(substr("abc", 2)) }'),
    case('BEGIN { print int(3.9), int(-3.9), int("12abc"), int("x") }'),
    case('BEGIN { printf "%.4f %.4f %.4f %.4f %.4f\\n", sin(1), cos(1), atan2(1, 2), exp(1), log(10) }'),
    case("BEGIN { print sqrt(16), exp(0), log(1) }"),
    case('BEGIN { print "a" > "/dev/stderr" }'),
    case('BEGIN { x = "A"; y = x x x; print y, length(y) }'),
    case('BEGIN { $0 = "a b c"; print NF, $2 }'),
    case('BEGIN { $3 = "x"; print; print NF }'),
    case("{ print $1 + $2, $1 $2, $1 - -$2 }", stdin="3 4\n"),
    case('{ print ($1 > 5) ? "big" : "small" }', stdin="3\n7\n"),
    case('BEGIN { print 1 " " 2, 1 2, 1+2 "x" }'),
    case('BEGIN { print "a\\qb", "\\x41\\x4a2", "\\101\\0619", "tab\\there", "q\\"q" }'),
    case('BEGIN { print "multi\\\nline" }'),
    case('BEGIN { print length("a" "bc") }'),
    case("BEGIN { print 2 - 1 - 1, 2 / 2 / 2, 2 ^ 3 ^ 0 }"),
    # evaluation order: a compound assignment's right side comes first, ~ is left to right
    case(
        "BEGIN { x = 5; x -= (x = 2); print x; a[1] = 5; a[1] -= (a[1] = 2); print a[1]; i = 1; b[i] = 10; "
        "b[i++] += i; print b[1], b[2], i; y = 5; z = y + (y = 2); print z }"
    ),
    case('BEGIN { print (s ~ (s = "a")), s }'),
    case("BEGIN { print 2^0.5, (-8)^(1/3), 2^-2, 0^0, 0^-1, log(-1), -log(0), sin(-log(0)) }"),
    # NaN is unequal to everything; inf and nan compare with strings as ""
    case(
        "BEGIN { n = log(-1); print (n == n), (n < 1), (n > 1), (n != n), (n != 1); y = -log(0); "
        'print ("a" > y), ("" < y), ("+inf" == y), (y == y) }'
    ),
    case("{ print ($1 < 1), ($1 > 1), ($1 == $1), ($3 == $3 + 0) }", stdin="-nan +nan +inf\n"),
    case("{ print toupper($0), tolower($0), length($0) }", stdin="a\udcffb\n"),
    case('BEGIN { print "+inf" + 0, " +inf " + 0, "+inf1" + 0, "inf" + 0, "-nan" + 0, "+INF" + 0 }'),
    case('BEGIN { print ("a" "b") == "ab", "a" "b" == "ab" }'),
    case('BEGIN { n = split("3 1 2", a); print a[1] < a[2], a[2] < a[3] }'),
]

CONTROL = [
    case('BEGIN { while (i < 5) { i++; if (i == 3) continue; printf "%d ", i }; print "" }'),
    case('BEGIN { for (i = 0; i < 5; i++) { if (i == 3) continue; printf "%d ", i }; print "" }'),
    case("BEGIN { for (i = 0; i < 10; i++) { if (i == 3) break }; print i }"),
    case("BEGIN { for (;;) { if (++n > 4) break }; print n }"),
    case("BEGIN { do { i++ } while (i < 10); print i }"),
    case("BEGIN { do { i++; if (i < 5) continue; break } while (1); print i }"),
    case("BEGIN { i = 5; do i--; while (i > 0); print i }"),
    case('BEGIN { if (1) print "a"; else print "b" }'),
    case('BEGIN { if (0)\nprint "a"\nelse\nprint "b" }'),
    case("BEGIN { if (0) { print 1 } else if (1) { print 2 } else { print 3 } }"),
    case("BEGIN { x = 1 ? 2 :\n3; print x }"),
    case("BEGIN { print 1,\n2 }"),
    case("BEGIN { x = 1 &&\n0; print x }"),
    case('{ if ($1 == "skip") next; print }', stdin="a\nskip\nb\n"),
    case(
        "NR == 2 { nextfile } { print FILENAME, $0 }", "f1", "f2", files={"f1": "1\n2\n3\n", "f2": "4\n5\n"}
    ),
    case('BEGIN { exit 3 } END { print "end" }'),
    case("{ exit } END { print NR }", stdin="a\nb\n"),
    case("BEGIN { exit 1 } END { exit }"),
    case('END { exit 4; print "no" }', stdin=""),
    case("BEGIN { exit -1 }"),
    case("{ print; exit 2 }", stdin="a\nb\n"),
    case(
        'BEGIN { switch (3) { case 1: print "one"; break; case 3: print "three"; case 4: print "four"; '
        'break; default: print "def" } }'
    ),
    case("BEGIN { for (i = 0; i < 3; i++) switch (i) { case 1: continue; default: print i } }"),
    case(
        '{ switch ($1) { case /^[0-9]+$/: print "num"; break; case "x": print "x"; break; '
        'default: print "other" } }',
        stdin="12\nx\ny\n",
    ),
    case("BEGIN { while (1) { if (++n == 3) break }; print n }"),
    case(
        "BEGIN { for (i = 0; i < 3; i++) for (j = 0; j < 3; j++) { if (j == 1) continue; if (i == 2) break; "
        'printf "%d%d ", i, j }; print "" }'
    ),
    case("{ while ((getline line) > 0) n++ } END { print n, NR }", stdin="a\nb\nc\n"),
]

FUNCTIONS = [
    case("function f(n) { return n <= 1 ? 1 : n * f(n-1) } BEGIN { print f(10), f(20) }"),
    case("function fib(n) { return n < 2 ? n : fib(n-1) + fib(n-2) } BEGIN { print fib(20) }"),
    case(
        "function fill(a, n,  i) { for (i = 1; i <= n; i++) a[i] = i*i } "
        'BEGIN { fill(sq, 5); for (i = 1; i <= 5; i++) printf "%d ", sq[i]; print "" }'
    ),
    case('function g(a) { a["k"] = 1 } function f(a) { g(a) } BEGIN { f(x); print length(x), x["k"] }'),
    case("function f(x) { x = 5; return x } BEGIN { y = 1; f(y); print y, f(y) }"),
    case("function f(a, b) { return a + b } BEGIN { print f(1), f(1, 2) }"),
    case('function f() { } BEGIN { x = f(); print "[" x "]", length(x) }'),
    case('function f(s) { return s s } BEGIN { print f(f("ab")) }'),
    case(
        "function max(a, b) { return a > b ? a : b } { m = max(m, $1) } END { print m }", stdin="3\n10\n7\n"
    ),
    case("function f(arr, k) { return k in arr } BEGIN { a[1]; print f(a, 1), f(a, 2) }"),
    case("function clear(a) { delete a } BEGIN { x[1]; x[2]; clear(x); print length(x) }"),
    case("function len(a) { return length(a) } BEGIN { z[1]; z[2]; print len(z) }"),
    case("function f(n) { if (n > 0) { print n; f(n - 1) } } BEGIN { f(3) }"),
    case('function f(a) { a[1] = "x" } BEGIN { f(arr); for (k in arr) print k, arr[k] }'),
    case("function loc(  t) { t = t + 1; return t } BEGIN { print loc(), loc() }"),
    case("func f(x) { return x * 2 } BEGIN { print f(4) }"),
    case("function f(x) { return x + 1 }\nBEGIN { print f(1) }"),
    case("function f(x)\n{ return x + 1 }\nBEGIN { print f(1) }"),
    case('function f(x) { next } { f(1); print "no" } END { print NR }', stdin="a\nb\n"),
    case('function f() { exit 5 } BEGIN { f(); print "no" }'),
    case('function f(x) { return } BEGIN { print f(1) "|" }'),
    case(
        'function get(a, k) { return a[k] } BEGIN { x["a"] = 1; print get(x, "a"), get(x, "b"), length(x) }'
    ),
]

ARRAYS = [
    case("BEGIN { x[1]=1; x[2]=2; delete x[1]; for (k in x) print k; print length(x) }"),
    case(
        "BEGIN { a[1,2] = 3; for (k in a) { split(k, p, SUBSEP); print p[1], p[2] }; "
        'if ((1,2) in a) print "yes"; if (!((2,1) in a)) print "no" }'
    ),
    case("BEGIN { a[1]; a[2]; delete a; print length(a) }"),
    case('BEGIN { x["a"]; if ("a" in x) print "in"; if (!("b" in x)) print "notin"; print length(x) }'),
    case('BEGIN { if (x["a"] == "") print length(x) }'),
    case('BEGIN { a[01] = 1; a["1"]++; a[0.1+0.2]; for (k in a) print k, a[k] }'),
    case(
        "{ for (i = 1; i <= NF; i++) c[$i]++ } END { for (w in c) print w, c[w] }",
        stdin="the quick brown fox jumps over the lazy dog the end\n",
    ),
    case("{ c[$1]++ } END { for (k in c) print k, c[k] }", stdin="b\na\nc\nb\n10\n2\n1\n"),
    case('BEGIN { for (i = 12; i >= 1; i--) a[i] = i; for (k in a) printf "%s ", k; print "" }'),
    case(
        'BEGIN { split("z y x w v u t s r q p o n m l k j i h g f e d c b a", w); '
        'for (i in w) c[w[i]] = i; for (k in c) printf "%s ", k; print "" }'
    ),
    case('BEGIN { a["x"]; a[1]; a["y"]; a[0]; a["01"]; for (k in a) print k }'),
    case('BEGIN { n = split("a:b:c", arr, ":"); for (i = n; i > 0; i--) printf "%s ", arr[i]; print "" }'),
    case('BEGIN { n = split("", e); print n, length(e) }'),
    case('BEGIN { n = split("abc", c, ""); print n, c[1], c[3] }'),
    case('BEGIN { n = split("  a  b ", arr); print n, "[" arr[1] "]", "[" arr[2] "]" }'),
    case('BEGIN { n = split("a1b22c", arr, /[0-9]+/); print n, arr[1], arr[2], arr[3] }'),
    case('BEGIN { n = split(":a:", arr, ":"); print n, "[" arr[1] "]" }'),
    case('BEGIN { n = split(" a  b ", arr, " ", seps); print n, "[" seps[0] "][" seps[1] "][" seps[2] "]" }'),
    case('BEGIN { split("a:b", arr, ":", seps); print seps[1] }'),
    case('BEGIN { FS = "," } { n = split($0, a); print n, a[2] }', stdin="x,y,z\n"),
    case(
        'BEGIN { a["x"] = 3; a["y"] = 1; a["z"] = 2; n = asort(a, b); for (i = 1; i <= n; i++) print b[i]; '
        "n = asorti(a, c); for (i = 1; i <= n; i++) print c[i] }"
    ),
    case(
        'BEGIN { a[1] = "b"; a[2] = "a"; a[3] = 10; a[4] = 9; n = asort(a); for (i = 1; i <= n; i++) '
        'printf "%s ", a[i]; print "" }'
    ),
    case(
        'BEGIN { d["x"] = 3; d["y"] = 1; d["z"] = 2; asort(d, e, "@val_num_desc"); print e[1], e[2], e[3] }'
    ),
    case(
        'BEGIN { a["x"] = 2; a["y"] = 10; a["z"] = "abc"; a["w"] = 2; a[10] = 1; a[9] = 1; '
        'PROCINFO["sorted_in"] = "@val_num_asc"; for (k in a) printf "%s ", k; print ""; '
        'PROCINFO["sorted_in"] = "@ind_num_asc"; for (k in a) printf "%s ", k; print ""; '
        'PROCINFO["sorted_in"] = "@val_str_desc"; for (k in a) printf "%s ", k; print ""; '
        'PROCINFO["sorted_in"] = "@val_type_asc"; for (k in a) printf "%s ", k; print ""; '
        'PROCINFO["sorted_in"] = "@ind_str_desc"; for (k in a) printf "%s ", k; print "" }'
    ),
    case(
        'function cmp(i1, v1, i2, v2) { return v1 - v2 } BEGIN { a["a"] = 3; a["b"] = 1; a["c"] = 2; '
        'PROCINFO["sorted_in"] = "cmp"; for (k in a) print k }'
    ),
    case('BEGIN { a["k"] = 1; for (k in a) delete a[k]; print length(a) }'),
    case("BEGIN { a[1]; for (k in a) { a[k+1]; if (++n > 5) break }; print n <= 6 }"),
    case('BEGIN { ENVIRON["X"] = 1; print ("HOME" in ENVIRON), ENVIRON["HOME"] }'),
    case('BEGIN { x[1]; print isarray(x), typeof(x), typeof(x[1]), typeof(y), typeof(1), typeof("s") }'),
    case("{ print typeof($1), typeof($2), typeof($3) }", stdin="12 ab\n"),
    case('BEGIN { print strftime("%Y-%m-%d %H:%M:%S %a %b %e %j %Z", 0, 1), strftime("%H:%M", 3600, 1) }'),
    case(
        'BEGIN { print strftime("%Y-%m-%d %H:%M:%S", 1700000000), strftime("%-d/%-m %_H|%^a|%%|%q", 3888000) }'
    ),
    case(
        'BEGIN { print mktime("2020 01 01 00 00 00"), mktime("2020 13 01 00 00 00"), '
        'mktime("2020 01 32 25 61 61"), mktime("garbage") }'
    ),
    case("BEGIN { print length(ARGV), ARGV[0] }", "x"),
    # gawk lists by storage: the first index picks integer, cint or string storage
    case("BEGIN { a[-275]; a[-20]; a[-158]; a[-73]; a[1]; for (k in a) print k }"),
    case("BEGIN { a[0]; a[-1]; for (k in a) print k; b[-1]; b[0]; for (k in b) print k }"),
    case('BEGIN { for (i = -50; i < 50; i += 3) a[i]; for (k in a) printf "%s ", k; print "" }'),
    case('BEGIN { a[5]; a["x"]; a[-3]; a["y"]; a[2]; for (k in a) printf "%s ", k; print "" }'),
    case('BEGIN { for (i = 0; i < 200; i++) a["k" i]; for (k in a) printf "%s ", k; print "" }'),
]

STRINGS = [
    # byte escapes in constants join into characters across a concatenation, as gawk joins bytes
    case('BEGIN { x = "\\303" "\\251"; print length(x); print x; printf "%c|\\n", x }'),
    case('BEGIN { x = "\\303"; y = x "\\251"; print length(y), y }'),
    case('BEGIN { y = "\\342\\202" "\\254"; print length(y), y, index(y, "\u20ac") }'),
    case('BEGIN { y = "\\342" "\\202" "\\254"; print length(y), y }'),
    case('BEGIN { y = "a\\303" "\\251b" "\\303"; print length(y) }'),
    case('BEGIN { print length("\\303" "\\303"), length("\\303" 1), length("\\303" "\\251" "x") }'),
    case('{ gsub(/o/, "0"); print }', stdin="foo boo\n"),
    case('{ sub(/a/, "[&]"); print; gsub(/[aeiou]/, "\\\\&"); print }', stdin="banana\n"),
    case('BEGIN { s = "aaa"; print gsub(/x*/, "-", s), s }'),
    case('BEGIN { s = "abc"; gsub(/b*/, "X", s); print s }'),
    case('BEGIN { s = "hello"; gsub(/l/, "[&]", s); print s }'),
    case('BEGIN { s = "a.b"; gsub(".", "\\\\\\\\&", s); print s }'),
    case(
        'BEGIN { s = "abc"; t = s; sub(/b/, "\\\\\\\\\\\\&", t); print t; t = s; sub(/b/, "\\\\\\\\&", t); '
        'print t; t = s; sub(/b/, "\\\\&", t); print t; t = s; sub(/b/, "\\\\q", t); print t; t = s; '
        'sub(/b/, "\\\\\\\\", t); print t }'
    ),
    case('BEGIN { s = "aaa"; n = gsub(/a/, "&&", s); print n, s }'),
    case('BEGIN { s = "x"; n = sub(/y/, "z", s); print n, s }'),
    case('{ n = gsub(/[0-9]+/, "#"); print n, $0, NF }', stdin="a1 b22 c\n"),
    case('{ sub(/ +/, "", $2); print; print NF }', stdin="a b c\n"),
    case('{ gsub(/a/, "b", $1); print }', stdin="aaa aaa\n"),
    case('BEGIN { print gensub(/(a)(b)/, "<\\\\2\\\\1>", "g", "abab") }'),
    case(
        'BEGIN { print gensub(/(b)(c)/, "[\\\\2\\\\1\\\\0&\\\\\\\\]", "g", "abcbc"); '
        'print gensub(/b/, "X", 2, "abcbcb"); print gensub(/o/, "0", "G", "foo") }'
    ),
    case('{ print gensub(/([a-z]+)([0-9]+)/, "\\\\2\\\\1", "g") }', stdin="abc123 de45\n"),
    case('BEGIN { x = "aaa"; y = gensub(/a/, "b", 1, x); print x, y }'),
    case(
        'BEGIN { s = "hello world"; print match(s, /o w/), RSTART, RLENGTH; print match(s, /z/), RSTART, '
        "RLENGTH }"
    ),
    case(
        'BEGIN { print match("foobar", /o+(b)/, m), RSTART, RLENGTH, m[0], m[1], m[1, "start"], '
        'm[1, "length"] }'
    ),
    case('BEGIN { print match("abcd", /a|ab/), RLENGTH }'),
    case("{ if (match($0, /[0-9]+/)) print substr($0, RSTART, RLENGTH) }", stdin="abc 123 def\nnone\n"),
    case('BEGIN { print sprintf("%03d|%-4s|%x", 7, "ab", 255), sprintf("plain") }'),
    case('BEGIN { s = sprintf("%c", 0); print length(s) }'),
    case(
        'BEGIN { s = "héllo wörld"; print length(s), substr(s, 2, 3), index(s, "w"), toupper(s); '
        "print match(s, /ö/), RSTART, RLENGTH }"
    ),
    case("{ n = split($0, a, /é/); print n, a[1], a[2] }", stdin="aébéc\n"),
    case('{ gsub(/é/, "E"); print }', stdin="aébéc\n"),
    case(
        'BEGIN { print strtonum("0x1A"), strtonum("017"), strtonum("1e3"), strtonum(" 12abc"), '
        'strtonum("0x"), strtonum(12) }'
    ),
    case(
        "BEGIN { print and(12, 10), or(12, 10), xor(12, 10), lshift(1, 4), rshift(16, 2), compl(0), compl(5), "
        "and(3.9, 2), lshift(1, 60), and(12, 10, 8) }"
    ),
    case(
        'BEGIN { print substr("hello", 1.9, 2), substr("hello", 0.5, 2), substr("hello", 1, 1.6), '
        'substr("hello", 2, 1e10), substr("hello", "x") }'
    ),
    case('BEGIN { IGNORECASE = 1; print ("ABC" ~ /b/), index("ABC", "b"), ("A" == "a"), ("A" < "b") }'),
    case(
        'BEGIN { IGNORECASE = 1 } /abc/ { print "m:" $0 } { n = split($0, a, /b/); print n }',
        stdin="xABCx\nabc\nAbC\n",
    ),
    case("-v", "IGNORECASE=1", "/abc/", stdin="ABC\nx\n"),
]

# patterns that are plain text are matched without the regex engine (awk/regex.py): every way a
# program uses one (groups, separators, replacement, a dynamic pattern, an empty one, IGNORECASE)
LITERAL_PATTERNS = [
    case('{ print match($0, "ba", m), RSTART, RLENGTH, m[0], length(m) }', stdin="foo bar baz\nnone\n"),
    case("{ print match($0, /zz/, m), RSTART, RLENGTH, length(m) }", stdin="zazz\nnone\n"),
    case('{ n = split($0, a, "::", seps); print n, a[1], a[n], seps[1] }', stdin="a::b::c\nplain\n"),
    case('{ print gensub("o", "[&]", "g"), gensub("o", "<\\\\0>", 2) }', stdin="foo boo\nx\n"),
    case('{ n = gsub("ab", "X"); print n, $0 }', stdin="abcabab\nnone\n"),
    case('{ sub("é", "e"); print }', stdin="café é\n"),
    case('{ n = patsplit($0, p, "ab", s); print n, p[1], s[0], s[1] }', stdin="xabyabz\nq\n"),
    case("-F", "ab", "{ print NF, $2 }", stdin="1ab2ab3\nnone\n"),
    case('BEGIN { RS = "--" } { print NR ": " $0 }', stdin="a--b--c"),
    case('{ r = "o b"; print ($0 ~ r), ($0 !~ r) }', stdin="foo bar\nfoobar\n"),
    case("// { c++ } END { print c }", stdin="a\n\nb\n"),
    case('{ n = gsub("", "-"); print n, $0 }', stdin="abc\n\n"),
    case('{ n = split($0, a, ""); print n, a[1], a[n] }', stdin="xyz\n"),
    case(
        'BEGIN { IGNORECASE = 1 } /FOO/ { print "hit", $0 } { print match($0, "Bar") }',
        stdin="foo bar\nBAR\n",
    ),
    case(
        '/x/ { print "lit" } /x+y/ { print "re" } { print gensub(/(x)(y)/, "\\\\2\\\\1", "g") }',
        stdin="xy xxy\nx\n",
    ),
]

PRINTF = [
    case(
        'BEGIN { printf "%c%c%d%i%o%x%X%u%e%E%f%g%G%s%%\\n", 65, "hi", 42.9, -3, 8, 255, 255, 7, 12345.678, '
        '0.00012, 3.14159, 1e-5, 1e10, "str" }'
    ),
    case('BEGIN { printf "%5d|%-5d|%05d|%+d|% d|%.3d|%.0d|\\n", 42, 42, 42, 42, 42, 42, 0 }'),
    case('BEGIN { printf "%*d|%-*s|%.*f\\n", 6, 42, 4, "ab", 2, 3.14159 }'),
    case('BEGIN { printf "%*d|\\n", -6, 42 }'),
    # C length modifiers are ignored, each at most once: a repeated one (or q) leaves the text as written
    case(
        'BEGIN { printf "%ld %hd %Lf %jd %zd %td %lhd %jzd|%lld %hhd %5.2lld %qd %lls|%d\\n", 1, 2, 3, 4, 5, 6, 7, 8, 9 }'
    ),
    case(
        'BEGIN { printf "[%z] [%5%] [%-5d] [%05s] [% d] [%+.3e] [%.0e] [%#.3g] [%c] [%.2c]\\n", 1, 2, 3, '
        '"ab", 5, 12345.678, 5, 1, "", "xyz" }'
    ),
    case('BEGIN { printf "%d %d %o %X %u\\n", "3abc", -3.9, -1, 3000000000, 2^64 }'),
    case('BEGIN { printf "%x %x %d %d\\n", -1, 2^70, 2^70, "0x1A" }'),
    case('BEGIN { printf "%#o %#x %#x %#5x %#05x %-#6o|\\n", 8, 0, 255, 255, 255, 8 }'),
    case('BEGIN { printf "%a %A %.2a\\n", 1, 255.5, 3.14159 }'),
    case('BEGIN { printf "%d %d %5.1f|%-6d|%6s|%e\\n", log(0), -log(0), -log(0), log(0), -log(0), log(0) }'),
    case('BEGIN { printf "%.3s|%10.4f|%-8.2e|%G\\n", "abcdef", 3.14159265, 12345.6789, 0.0000123 }'),
    case('BEGIN { printf "%c%c%c|%.3c|%5c|%-3c|\\n", 0x263A, 256, 65.9, "hello", "x", 66 }'),
    case('BEGIN { printf "%s %s %s\\n", "a", "b", "c", "d" }'),
    case('BEGIN { printf("%d-%d\\n", 1, 2) }'),
    case('BEGIN { printf "%i %5.2s\\n", 3.99, "hello" }'),
    case('BEGIN { printf "%1$s %1$s %2$d\\n", "a", 5 }'),
    case('BEGIN { CONVFMT = "%.2f"; OFMT = "%.3f"; printf "%s %s %d\\n", 3.14159265, 17, "1e3" }'),
    case('BEGIN { x = sprintf("%d%%", 50); print x }'),
    case('BEGIN { printf "%s\\n", 1e6; printf "%d|%.3d|%+d\\n", 1e6, 5, 0 }'),
    case('BEGIN { printf "%5s|%-5s|%.1s\\n", 1.5, 2, 3.5 }'),
    case('{ printf "%-8s|%8.3f|%04d\\n", $1, $2, $3 }', stdin="a 1.23456 7\nlonger_name 22 123\n"),
    case('BEGIN { printf "no newline" }'),
    case('BEGIN { printf "%s" }'),
    case(
        'BEGIN { printf "[% #.1i][% #.3X][% +.10u][% +1.1o][%#.10o][%#o][% .0x][% .0i][%#5.0x]\\n", '
        '3.14159, "abc", 1, 2^64, 255, 0.5, 1e-5, 1e-5, 0 }'
    ),
    case('BEGIN { printf "[%5c][%-3c][%c][%c][%c][%c]\\n", 255, "é", "", -997, 123456789, 1e10 }'),
    case('BEGIN { printf("%2.1d---%02.1d\\n", 2, 2) }'),
    case('BEGIN { OFS = "-"; ORS = "|\\n"; print "a", "b"; print 1.5 }'),
    case('BEGIN { OFMT = "%.2f"; print 3.14159, 10, 1e20; x = 2.5; print x }'),
]

FIELD_TEXT = "10 ERROR x\n10.0 error y\n 1e1 ERROR\n\nq\n0x1A ERRORS 3\n"
FIELDS = [
    # a constant field compared with a string: the field's text as it is (_fcs)
    case('$2 == "ERROR" { n++ } END { print n + 0 }', stdin=FIELD_TEXT),
    case('"ERROR" != $2 { print NR }', stdin=FIELD_TEXT),
    case('$1 == "10" { print NR ": " $0 }', stdin=FIELD_TEXT),
    case('$1 < "2" { print NR }', stdin=FIELD_TEXT),
    case('$3 >= "x" { print NR }', stdin=FIELD_TEXT),
    case('$9 == "" { n++ } END { print n }', stdin=FIELD_TEXT),
    case('{ $2 = 10; print ($2 == "10"), ($2 == "10.0") }', stdin=FIELD_TEXT),
    case('{ $2 = 0.1 + 0.2; print ($2 == "0.3"), ($2 == 0.3) }', stdin=FIELD_TEXT),
    case('BEGIN { CONVFMT = "%.2g" } { $3 = 3.14159; print ($3 == "3.1") }', stdin=FIELD_TEXT),
    case('{ $0 = "a ERROR"; print ($2 == "ERROR") }', stdin=FIELD_TEXT),
    case('{ NF = 1; print ($2 == "") }', stdin=FIELD_TEXT),
    case('BEGIN { IGNORECASE = 1 } $2 == "error" { print NR }', stdin=FIELD_TEXT),
    case("-v", "IGNORECASE=1", '$2 != "ERROR" { print NR }', stdin=FIELD_TEXT),
    case("-F", ",", '$2 == "b" { print $1 }', stdin="a,b\nc,d\nb,b\n"),
    case('{ $2 = "X"; print; print NF }', stdin="a b c\n"),
    case("{ NF = 2; print }", stdin="a b c d\n"),
    case('{ NF = 5; print $0 "|" }', stdin="a b c\n"),
    case(
        '{ $5 = "e"; print; print NF; NF = 2; print; $0 = "x  y"; print $2, NF; $3 = ""; print; print NF }',
        stdin="a b c\n",
    ),
    case('{ $3 = ""; print; print NF }', stdin="a b c d\n"),
    case('{ $0 = "x y"; print $2, NF }', stdin="a b c\n"),
    case('BEGIN { OFS = "-" } { $1 = $1; print }', stdin="a b c\n"),
    case('BEGIN { OFS = "-"; $0 = "a b c"; $1 = $1; print; NF = 2; print }'),
    case('{ $1 = $1; print "[" $0 "]" }', stdin="  a   b  \n"),
    case("{ print NF; print $1 }", stdin="  leading and trailing  \n"),
    case("{ print NF }", stdin="a\rb c\n"),
    case("{ print NF, $2 }", stdin="a\tb\t\tc\n"),
    case('{ NF++; $NF = "new"; print }', stdin="a b\n"),
    case('{ $(NF+2) = "z"; print; print NF }', stdin="a\n"),
    case('{ $2 = 3.14159; CONVFMT = "%.2f"; $3 = 2.71828; print; print $2 }', stdin="a b c\n"),
    case('{ print $0; $0 = "new record"; print $1, NF }', stdin="old\n"),
    # $0 from input is a strnum; assigned a string or rebuilt from fields, it is a string
    case(
        '{ if ($0) print "T"; else print "F"; $1 = "0"; if ($0) print "T2"; print ($0 == 0) }',
        stdin=" 0\n0.0\nx\n",
    ),
    case('BEGIN { $0 = "5.0"; print ($0 == 5), ($1 == 5) }'),
    case("{ i = 1; print $i, $(i+1), $++i, i }", stdin="a b c\n"),
    case("{ print $NF; NF--; print $NF }", stdin="a b c\n"),
    case('BEGIN { FS = "" } { print $1, $3, NF }', stdin="abcd\n"),
    case('BEGIN { FS = "[:,]" } { print $2, NF }', stdin="a:b,c\n"),
    case('BEGIN { FS = ":" } { print $2, NF }', stdin="a:b:c\n::\n\n"),
    case('BEGIN { FS = "\\\\|" } { print $2 }', stdin="a|b|c\n"),
    case('BEGIN { FS = "|" } { print $2 }', stdin="a|b|c\n"),
    case('BEGIN { FS = "." } { print $2 }', stdin="a.b.c\n"),
    case('BEGIN { FS = "\\t" } { print $2 }', stdin="a\tb c\td\n"),
    case("-F", "\\t", "{ print $2 }", stdin="a\tb c\td\n"),
    case("-F", "t", "{ print $2 }", stdin="atb\n"),
    case("-F", "", "{ print $2 }", stdin="abc\n"),
    case("-F", "[ab]+", '{ print $1 "|" $2 "|" $3 }', stdin="xabyaz\n"),
    case("-F", ":", "-v", "OFS=:", '{ $2 = "X" } 1', stdin="a:b:c\n"),
    case('{ FS = ":"; print $1 }', stdin="a:b c\nd:e f\n"),
    case('{ FS = ","; $0 = $0; print $2 }', stdin="a,b\n"),
    case('BEGIN { FIELDWIDTHS = "2 3 *" } { print $1 "|" $2 "|" $3 }', stdin="abcdefghij\n"),
    case('BEGIN { FIELDWIDTHS = "1:2 2" } { print $1 "|" $2 "|" NF }', stdin="abcdefg\n"),
    case(
        'BEGIN { FPAT = "([^,]*)|(\\"[^\\"]+\\")" } { print NF; for (i = 1; i <= NF; i++) print i, $i }',
        stdin='a,"b,c",,d\n',
    ),
    case('BEGIN { FPAT = "[0-9]+" } { print NF, $1, $2 }', stdin="ab12cd345ef\n"),
    case('BEGIN { n = patsplit("ab12cd345ef", a, /[0-9]+/, s); print n, a[1], a[2], s[0], s[1], s[2] }'),
    case('BEGIN { RS = "" } { print NR ": " $0; print NF }', stdin="a b\nc\n\n\nd e\nf\n"),
    case('BEGIN { RS = ""; FS = ":" } { print NF, $2 }', stdin="a:b\nc:d\n\ne\n"),
    case('BEGIN { RS = "" } { print NR, $0 } END { print NR }', stdin="\n\n\na\n\n\nb\n\n"),
    case('BEGIN { RS = ";" } { print NR, $0 }', stdin="a;b;c\n"),
    case('BEGIN { RS = "[0-9]+" } { print NR ":" $0 ":" RT }', stdin="a1b22c333d\n"),
    case('BEGIN { RS = "ab|cd" } { print $0 "|" RT }', stdin="xxabyycdzz"),
    case('{ print $0 "|" RT "|" }', stdin="a\nb"),
    case('NR == 2 { RS = ";" } { print NR, $0 }', stdin="a\nb\nc;d;e\n"),
    case('BEGIN { RS = "x" } END { print NR }', stdin="axbxc"),
    case('BEGIN { RS = "\\n\\n" } { print NR ": " $0 }', stdin="a\nb\n\nc\n"),
]

GETLINE_IO = [
    case(
        'BEGIN { getline line < "f1"; print "got:", line; close("f1"); while ((getline l < "f1") > 0) n++; '
        "print n }",
        files={"f1": "a\nb\nc\n"},
    ),
    case('NR == 1 { getline; print "after getline:", $0 } END { print NR }', stdin="1\n2\n3\n"),
    case('BEGIN { getline; print "got", $0, NR }', stdin="hello\nworld\n"),
    case("BEGIN { while ((getline line) > 0) n++; print n, NR }", stdin="a\nb\nc\n"),
    case("{ getline x; print $0, x }", stdin="1\n2\n3\n"),
    case("{ r = getline; print r, $0 }", stdin="1\n2\n3\n"),
    case('BEGIN { print (getline line < "nonexistent") }'),
    case('BEGIN { while ((getline < "f1") > 0) print NF, $2; print NR }', files={"f1": "a b\nc d e\n"}),
    case('{ print; getline < "f2"; print }', "f1", files={"f1": "1\n2\n", "f2": "x\ny\n"}),
    case(
        'BEGIN { print "a" > "out"; print "b" > "out"; close("out"); while ((getline l < "out") > 0) '
        'print "read", l }'
    ),
    case(
        'BEGIN { print "a" >> "out"; close("out"); print "b" >> "out"; close("out"); '
        'while ((getline l < "out") > 0) print "read", l }'
    ),
    case('BEGIN { print "x" > "a" ".txt"; close("a.txt"); getline y < "a.txt"; print y }'),
    case('BEGIN { printf "%s-%s\\n", "a", "b" > "o"; close("o"); getline v < "o"; print v }'),
    case('BEGIN { print (1,2) > "/dev/stdout" }'),
    case('BEGIN { print "to stderr" > "/dev/stderr"; print "x" > "/dev/stdout"; print "y" > "-" }'),
    case('BEGIN { print close("nothing") }'),
    case('BEGIN { print "x" > "f"; print close("f"), close("f") }'),
    case('BEGIN { fflush(); fflush("/dev/stdout"); print "ok" }'),
    case(
        '{ print > ($1 ".out") } END { close("a.out"); close("b.out"); while ((getline l < "a.out") > 0) '
        'print "a:", l }',
        stdin="a 1\nb 2\na 3\n",
    ),
    case('BEGIN { print "x" > "/nonexistent/dir/f" }'),
    case("{ print }", "nofile"),
    case('BEGIN { getline x < "dir"; print "r" }', files={"dir/f": "x\n"}),
]

ERRORS = [
    case("BEGIN { x = }"),
    case("BEGIN { print 1"),
    case("{ print $1 ) }"),
    case('BEGIN{ x = "abc }'),
    case("function f(a,a) {}"),
    case("function f(a) {} function f(b) {}"),
    case("BEGIN { f(1) }"),
    case("BEGIN { next }"),
    case("END { next }"),
    case("BEGIN { print length(1,2) }"),
    case('BEGIN { substr("a") }'),
    case("BEGIN { return }"),
    case("BEGIN{print 1/0}"),
    case("BEGIN{print 1%0}"),
    case("{print 1/$1}", stdin="0\n"),
    case("{x = 0; print 1 % x}", "f1", files={"f1": "a\n"}),
    case('BEGIN { printf "%d" }'),
    case('BEGIN { printf "%s %s\\n", "a" }'),
    case("BEGIN { x = 1; x /= 0 }"),
    case("BEGIN { x = 1; y = 0; x %= y }"),
    case('BEGIN { printf "%$1", 5 }'),
    case("BEGIN {\n  x = 1 +\n}"),
    case("BEGIN { x = 1 }\n{ print $1 ) }"),
    case("BEGIN { x = 1; x[1] = 2 }"),
    case("BEGIN { x[1] = 1; print x }"),
    case("BEGIN'"),
    case("BEGIN"),
    case("/(/"),
    case('BEGIN { r = "("; "a" ~ r }'),
    case('BEGIN { x = "[a"; "a" ~ x }'),
    case("BEGIN { print and(-1, 3) }"),
    case("function NR() {}"),
    case("BEGIN { getline x y }"),
    case("BEGIN { 1 == 1 == 1 }"),
    case("BEGIN { $(-1) = 1 }"),
    case("-f", "nonexist.awk"),
    case("-f"),
    case("-z", "BEGIN { }"),
    case(),
    case("BEGIN { print 1 }; ; BEGIN { print 2 }"),
    case("BEGIN { if (1) ; else print 2; print 3 }"),
]


# Records counted as they are read or only at the end of each input (a program whose code reads
# neither NR nor FNR): what END, getline, exit, a second file and a fatal message then see
MANY = "".join(f"k{i % 7} {i}\n" for i in range(5000))
END_COUNTS = [
    case("{ s[$1] += $2 } END { for (k in s) n++; print n }", stdin=MANY),
    case("{ s[$1] += $2 } END { print NR, FNR }", "f", "g", files={"f": MANY, "g": "a 1\nb 2"}),
    case("{ x = $2 } END { print x; getline; print x, $0 }", "f", files={"f": MANY}),
    case(
        '{ x = $2 } END { while ((getline line < "g") > 0) c++; print c, x }',
        "f",
        files={"f": MANY, "g": "1\n2\n"},
    ),
    case("$2 == 4321 { exit } END { print $0 }", "f", files={"f": MANY}),
    case("function n() { return NR } { x = $1 } END { print n() }", "f", "f", files={"f": MANY}),
    case("FNR == 3 { nextfile } { c++ } END { print c }", "f", "g", files={"f": MANY, "g": MANY}),
    case("{ c++ } END { print c }", "f", "NR=10", "g", files={"f": "a\nb\n", "g": "c\n"}),
    case("{ c++ } END { print c, NR }", "f", "NR=10", "g", files={"f": "a\nb\n", "g": "c\n"}),
]
END_ERRORS = [
    case("{ x = $2 } END { print 1 / (x - x) }", "f", files={"f": MANY}),
    case("{ x = $2 } END { print 1 / (x - x) }", "f", "g", files={"f": MANY, "g": "a 3\nb 4\n"}),
    case("{ x = $2; if (x == 4000) print 1 / 0 } END { print x }", "f", files={"f": MANY}),
]


@needs_gawk
@pytest.mark.parametrize("args,stdin,files", END_COUNTS)
def test_record_counts_seen_after_the_input_match_gawk(
    args: list[str], stdin: str, files: dict[str, str]
) -> None:
    _compare(args, stdin, files, stderr=False)


@needs_gawk
@pytest.mark.parametrize("args,stdin,files", END_ERRORS)
def test_fatal_messages_name_the_last_record_as_gawk(
    args: list[str], stdin: str, files: dict[str, str]
) -> None:
    _compare(args, stdin, files, stderr=True)


def _compare(args: list[str], stdin: str, files: dict[str, str], stderr: bool) -> None:
    exp_out, exp_err, exp_status = real_command(
        ["gawk", *args], stdin.encode("utf-8", "surrogateescape"), files
    )
    got = run_command(["gawk", *args], stdin=stdin.encode("utf-8", "surrogateescape"), files=files)
    assert (got.stdout, got.status) == (exp_out, exp_status), got.stderr.decode(errors="replace")
    if stderr:
        assert got.stderr == exp_err


@needs_gawk
@pytest.mark.parametrize(
    "args,stdin,files", BASICS + EXPRESSIONS + CONTROL + FUNCTIONS + ARRAYS + STRINGS + LITERAL_PATTERNS
)
def test_language_matches_gawk(args: list[str], stdin: str, files: dict[str, str]) -> None:
    _compare(args, stdin, files, stderr=False)


@needs_gawk
@pytest.mark.parametrize("args,stdin,files", PRINTF + FIELDS + GETLINE_IO)
def test_io_and_formatting_match_gawk(args: list[str], stdin: str, files: dict[str, str]) -> None:
    _compare(args, stdin, files, stderr=False)


@needs_gawk
@pytest.mark.parametrize("args,stdin,files", ERRORS)
def test_errors_match_gawk(args: list[str], stdin: str, files: dict[str, str]) -> None:
    exp_out, exp_err, exp_status = real_command(
        ["gawk", *args], stdin.encode("utf-8", "surrogateescape"), files
    )
    got = run_command(["gawk", *args], stdin=stdin.encode("utf-8", "surrogateescape"), files=files)
    assert (got.stdout, got.status) == (exp_out, exp_status), got.stderr.decode(errors="replace")
    # the first line of the diagnostic is gawk's (usage texts differ after it)
    assert got.stderr.split(b"\n")[0] == exp_err.split(b"\n")[0]
