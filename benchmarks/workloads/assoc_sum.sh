# agent loop: per-key sums in an associative array with a :- default
declare -A total
while IFS=, read -r user item qty; do total[$user]=$(( ${total[$user]:-0} + qty )); done < "$DATA/orders.csv"
for k in "${!total[@]}"; do echo "$k ${total[$k]}"; done | sort | head -3
echo "${#total[@]}"
