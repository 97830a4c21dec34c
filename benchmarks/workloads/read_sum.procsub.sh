# read_sum from a process substitution, IFS set once for the loop
n=0
IFS=,
while read -r user item qty; do (( n += qty )); done < <(cat "$DATA/orders.csv")
unset IFS
echo "$n"
