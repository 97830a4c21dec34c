# funcs with `local v; v=$1` and an unquoted argument
double() { local v; v=$1; result=$(( v * 2 % 11 )); }
sum=0
for ((k=0; k<20000; k++)); do double $k; sum=$(( sum + result )); done
echo "$sum"
