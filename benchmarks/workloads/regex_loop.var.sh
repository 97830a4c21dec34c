# regex_loop with the pattern in a variable
re='^user1[0-9],item([0-9]+)'
c=0
while read -r line; do
  if [[ $line =~ $re ]]; then c=$((c + ${BASH_REMATCH[1]})); fi
done < "$DATA/orders.csv"
echo "$c"
