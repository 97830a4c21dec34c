# recursive Fibonacci of 20 through a global result variable
fibo() {
  local n=$1 left
  if (( n < 2 )); then out=$n; return; fi
  fibo $(( n - 1 )); left=$out
  fibo $(( n - 2 )); out=$(( left + out ))
}
fibo 20
echo "$out"
