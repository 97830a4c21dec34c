# concat over a brace range, unquoted
s=
for i in {1..60000}; do s+=$i,; done
echo ${#s}
