# strings with every expansion quoted and [[ ]] instead of the inner case
count=0 len=0
for ((k=0; k<50000; k++)); do
  s="file${k}.part.one.tar.gz"
  t="${s//e/E}"
  len=$(( len + ${#t} ))
  head="${s%%.*}"
  mid="${s:4:6}"
  r=$(( k % 3 ))
  if [[ $r -eq 0 ]]; then count=$(( count + 1 ))
  elif [[ $r -eq 1 ]]; then
    if [[ "$head" == file*7 ]]; then count=$(( count + 2 )); else len=$(( len + 1 )); fi
  else len=$(( len + ${#mid} )); fi
done
echo "$count $len $t $mid $head"
