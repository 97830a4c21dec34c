# concat with a C-style loop
s=
for ((i=1; i<=60000; i++)); do s+="$i,"; done
echo ${#s}
