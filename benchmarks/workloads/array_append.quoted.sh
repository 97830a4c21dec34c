# array_append with a quoted element, a while loop and (( )) sums
declare -a vals
k=0
while (( k < 50000 )); do vals+=("$(( k * 13 % 997 ))"); (( k++ )); done
sum=0
for v in "${vals[@]}"; do (( sum += v )); done
echo "${#vals[@]} $sum ${vals[-1]}"
