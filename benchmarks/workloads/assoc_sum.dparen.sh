# assoc_sum with (( m[$k] += v ))
declare -A total
while IFS=, read -r user item qty; do (( total[$user] += qty )); done < "$DATA/orders.csv"
for k in "${!total[@]}"; do echo "$k ${total[$k]}"; done | sort | head -3
echo "${#total[@]}"
