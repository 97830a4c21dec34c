# array_append with vals[${#vals[@]}]= and let
vals=()
for ((k=0; k<50000; k++)); do vals[${#vals[@]}]=$(( k * 13 % 997 )); done
sum=0
for v in ${vals[@]}; do let sum+=v; done
echo ${#vals[@]} $sum ${vals[49999]}
