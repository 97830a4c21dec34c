# agent loop: sum a CSV column with `while IFS=, read` and (( += ))
n=0
while IFS=, read -r user item qty; do (( n += qty )); done < "$DATA/orders.csv"
echo "$n"
