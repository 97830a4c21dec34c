# strip_cmp with the field read by read
c=0
while IFS=, read -r u _; do u=${u#user}; [ "$u" -gt 150 ] && ((c++)); done < "$DATA/orders.csv"
echo $c
