# case_loop with a quoted subject and an arithmetic assignment
c=0
while read -r line; do
  case "$line" in
    *item5,*) c=$((c + 1)) ;;
    *) ;;
  esac
done < "$DATA/orders.csv"
echo "$c"
