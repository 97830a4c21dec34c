# read_array: each line read whole, then split into an array
c=0
while read -r line; do
  IFS=, read -ra f <<< "$line"
  c=$((c + ${#f[@]} + ${f[2]}))
done < "$DATA/orders.csv"
echo "$c"
