# build a 50,000-element array with +=, then sum it
vals=()
for ((k=0; k<50000; k++)); do vals+=( $(( k * 13 % 997 )) ); done
sum=0
for v in "${vals[@]}"; do sum=$(( sum + v )); done
echo "${#vals[@]} $sum ${vals[49999]}"
