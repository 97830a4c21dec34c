# collect unquoted, with a counter
out=(); n=0
while read -r line; do out+=(${line%%,*}); n=$((n+1)); done < "$DATA/orders.csv"
echo "${#out[@]} ${out[100]}"
