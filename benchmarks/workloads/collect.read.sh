# collect the field read -r splits off
declare -a out
while IFS=, read -r user rest; do out+=("$user"); done < "$DATA/orders.csv"
echo "${#out[@]} ${out[100]}"
