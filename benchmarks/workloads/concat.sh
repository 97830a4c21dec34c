# agent loop: build a string with += over $(seq)
s=""
for i in $(seq 1 60000); do s+="$i,"; done
echo "${#s}"
