# arith_loop over a brace sequence ({0..199999}) with $(( )) in the body
total=0
for n in {0..199999}; do total=$(( (total + n*3) % 999983 )); done
echo "$total"
