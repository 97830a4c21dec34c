# read_array reading the file in the loop itself
c=0
while IFS=, read -r -a f; do c=$((c + ${#f[@]} + ${f[2]})); done < "$DATA/orders.csv"
echo "$c"
