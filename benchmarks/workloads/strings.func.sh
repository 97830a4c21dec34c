# strings with the body in a function and [ ] tests
step() {
  local s="file$1.part.one.tar.gz"
  t=${s//e/E}
  len=$((len + ${#t}))
  head=${s%%.*}
  mid=${s:4:6}
  local r=$(( $1 % 3 ))
  if [ $r = 0 ]; then count=$((count + 1))
  elif [ $r = 1 ]; then
    case $head in file*7) count=$((count + 2)) ;; *) len=$((len + 1)) ;; esac
  else len=$((len + ${#mid})); fi
}
count=0 len=0
for ((k=0; k<50000; k++)); do step "$k"; done
echo "$count $len $t $mid $head"
