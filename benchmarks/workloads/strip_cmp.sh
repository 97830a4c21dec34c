# agent loop: strip a prefix and a suffix, then compare with [ -gt ]
c=0
while read -r line; do u=${line%%,*}; u=${u#user}; [ "$u" -gt 150 ] && c=$((c+1)); done < "$DATA/orders.csv"
echo "$c"
