# collect by index ${#out[@]}
out=()
while read -r line; do out[${#out[@]}]=${line%%,*}; done < "$DATA/orders.csv"
echo "${#out[@]} ${out[100]}"
