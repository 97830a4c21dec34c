# arith_loop spelled with (( )) assignments in the body
total=0
for ((n=0; n<200000; n++)); do (( total = (total + n*3) % 999983 )); done
echo "$total"
