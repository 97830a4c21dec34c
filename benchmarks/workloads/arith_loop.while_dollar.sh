# arith_loop as a while loop with [[ ]] and $(( )) assignments
total=0
n=0
while [[ $n -lt 200000 ]]; do
  total=$(( (total + n * 3) % 999983 ))
  n=$((n + 1))
done
echo "$total"
