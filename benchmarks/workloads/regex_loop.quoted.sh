# regex_loop with a quoted subject and a quoted literal part
c=0
while read -r line; do
  if [[ "$line" =~ ^"user1"[0-9],item([0-9]+) ]]; then m=${BASH_REMATCH[1]}; c=$((c + m)); fi
done < "$DATA/orders.csv"
echo "$c"
