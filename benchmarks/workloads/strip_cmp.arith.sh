# strip_cmp with (( ))
c=0
while read -r line; do
  u=${line%%,*}; u=${u#user}
  if (( u > 150 )); then (( c++ )); fi
done < "$DATA/orders.csv"
echo "$c"
