# arith_loop with let and a while loop
total=0 n=0
while [ $n -lt 200000 ]; do let "total = (total + n*3) % 999983"; let n++; done
echo "$total"
