# array_append by index assignment and an index loop for the sum
vals=()
for ((k=0; k<50000; k++)); do vals[k]=$(( k * 13 % 997 )); done
sum=0
for ((k=0; k<${#vals[@]}; k++)); do (( sum += vals[k] )); done
echo "${#vals[@]} $sum ${vals[49999]}"
