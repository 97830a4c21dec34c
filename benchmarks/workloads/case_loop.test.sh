# case_loop as a [[ == pattern ]] test
c=0
while read -r line; do [[ $line == *item5,* ]] && ((c++)); done < "$DATA/orders.csv"
echo "$c"
