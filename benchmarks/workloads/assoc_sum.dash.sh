# assoc_sum with a - default and quoted keys
declare -A total
while IFS=, read -r user item qty; do total["$user"]=$(( ${total["$user"]-0} + qty )); done < "$DATA/orders.csv"
for k in "${!total[@]}"; do echo "$k ${total[$k]}"; done | sort | head -3
echo "${#total[@]}"
