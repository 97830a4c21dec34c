# case_loop on one field of the line
c=0
while IFS=, read -r user item qty; do
  case $item in item5) (( c += 1 ));; esac
done < "$DATA/orders.csv"
echo "$c"
