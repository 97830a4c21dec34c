# Fibonacci of 20 with the result in a global and [ ] tests
fibo() {
  local n="$1"
  local a b
  if [ "$n" -lt 2 ]; then out="$n"; return 0; fi
  fibo "$((n - 1))"; a="$out"
  fibo "$((n - 2))"; b="$out"
  out="$((a + b))"
}
fibo 20
echo "$out"
