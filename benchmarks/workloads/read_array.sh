# agent loop: split held lines into an array with IFS=, read -ra <<<
mapfile -t lines < "$DATA/orders.csv"
c=0
for l in "${lines[@]}"; do IFS=, read -ra f <<< "$l"; c=$((c + ${#f[@]} + ${f[2]})); done
echo "$c"
