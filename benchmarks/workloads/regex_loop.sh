# agent loop: [[ =~ ]] with a capture group read from BASH_REMATCH
c=0
while read -r line; do
  if [[ $line =~ ^user1[0-9],item([0-9]+) ]]; then c=$((c + BASH_REMATCH[1])); fi
done < "$DATA/orders.csv"
echo "$c"
