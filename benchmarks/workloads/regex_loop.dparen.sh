# regex_loop with && and (( += ))
c=0
while read -r line; do
  [[ $line =~ ^user1[0-9],item([0-9]+) ]] && (( c += BASH_REMATCH[1] ))
done < "$DATA/orders.csv"
echo "$c"
