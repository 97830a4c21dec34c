# parameter expansion and case in a 50,000-step loop
count=0 len=0
for ((k=0; k<50000; k++)); do
  s="file$k.part.one.tar.gz"
  t=${s//e/E}
  len=$(( len + ${#t} ))
  head=${s%%.*}
  mid=${s:4:6}
  case $(( k % 3 )) in
    0) count=$(( count + 1 )) ;;
    1) case $head in file*7) count=$(( count + 2 )) ;; *) len=$(( len + 1 )) ;; esac ;;
    *) len=$(( len + ${#mid} )) ;;
  esac
done
echo "$count $len $t $mid $head"
