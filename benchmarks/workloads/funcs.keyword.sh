# funcs with the `function` keyword, (( )) arithmetic and a while loop
function double {
  local v="$1"
  (( result = v * 2 % 11 ))
}
sum=0 k=0
while (( k < 20000 )); do
  double "$k"
  (( sum += result ))
  (( k++ ))
done
echo "$sum"
