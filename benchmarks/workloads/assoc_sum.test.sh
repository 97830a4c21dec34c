# assoc_sum testing for the key first
declare -A total=()
while IFS=, read -r user item qty; do
  if [[ -n ${total[$user]+set} ]]; then total[$user]=$(( total[$user] + qty )); else total[$user]=$qty; fi
done < "$DATA/orders.csv"
for k in "${!total[@]}"; do echo "$k ${total[$k]}"; done | sort | head -3
echo "${#total[@]}"
