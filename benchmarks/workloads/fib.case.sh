# Fibonacci of 20 dispatching with case, separate local lines
function fibo {
  local n
  n=$1
  local left
  case $n in
    0|1) out=$n ;;
    *) fibo $(( n - 1 )); left=$out; fibo $(( n - 2 )); out=$(( left + out )) ;;
  esac
}
fibo 20
echo "$out"
