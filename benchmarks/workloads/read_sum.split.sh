# read_sum: each line read whole, then split with a here-string
n=0
while read -r line; do
  IFS=, read -r user item qty <<< "$line"
  n=$(( n + qty ))
done < "$DATA/orders.csv"
echo "$n"
