# Fibonacci of 20 with [[ ]] and (( )) assignments
fibo() {
  local n=$1 left
  [[ $n -lt 2 ]] && { out=$n; return; }
  fibo $((n-1))
  left=$out
  fibo $((n-2))
  (( out = left + out ))
}
fibo 20
echo $out
