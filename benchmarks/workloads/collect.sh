# agent loop: collect a field into an array with out+=("...")
out=()
while read -r line; do out+=("${line%%,*}"); done < "$DATA/orders.csv"
echo "${#out[@]} ${out[100]}"
