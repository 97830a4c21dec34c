# strip_cmp with [[ -gt ]]
c=0
while read -r line; do u=${line%%,*}; u=${u#user}; [[ $u -gt 150 ]] && c=$((c+1)); done < "$DATA/orders.csv"
echo "$c"
