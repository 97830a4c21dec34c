# funcs over `for k in $(seq ...)` with a local declared and assigned at once
double() {
  local v=$1
  result=$((v*2%11))
  return 0
}
sum=0
for k in $(seq 0 19999); do double "$k"; sum=$((sum+result)); done
echo "$sum"
