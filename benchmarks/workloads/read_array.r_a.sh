# read_array with `read -r -a` and quoted IFS
mapfile -t lines < "$DATA/orders.csv"
c=0
for l in "${lines[@]}"; do IFS=',' read -r -a f <<< "$l"; (( c += ${#f[@]} + f[2] )); done
echo "$c"
