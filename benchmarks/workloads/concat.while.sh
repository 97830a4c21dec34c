# concat in a while loop with a counter (s="$s$i," would be quadratic in bash itself)
s=""; i=1
while (( i <= 60000 )); do s+="$i,"; ((i++)); done
echo "${#s}"
