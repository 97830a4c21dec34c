# strings with the slice's offset and length in variables and a bracket pattern in [[ ]]
count=0 len=0 off=4 width=6
for ((k=0; k<50000; k++)); do
  s="file$k.part.one.tar.gz"
  t=${s//e/E}
  len=$(( len + ${#t} ))
  head=${s%%.*}
  mid=${s:off:width}
  case $(( k % 3 )) in
    0) count=$(( count + 1 )) ;;
    1) if [[ $head == file*[7] ]]; then count=$(( count + 2 )); else len=$(( len + 1 )); fi ;;
    *) len=$(( len + ${#mid} )) ;;
  esac
done
echo "$count $len $t $mid $head"
