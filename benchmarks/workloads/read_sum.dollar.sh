# read_sum with $(( )) and IFS quoted
n=0
while IFS=',' read -r user item qty; do n=$((n + qty)); done < "$DATA/orders.csv"
echo "$n"
