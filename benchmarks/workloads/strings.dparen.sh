# strings with (( )) updates and a while loop
count=0 len=0 k=0
while (( k < 50000 )); do
  s=file$k.part.one.tar.gz
  t=${s//e/E}
  (( len += ${#t} ))
  head=${s%%.*}
  mid=${s:4:6}
  case $(( k % 3 )) in
    0) (( count++ )) ;;
    1) case $head in file*7) (( count += 2 )) ;; *) (( len++ )) ;; esac ;;
    *) (( len += ${#mid} )) ;;
  esac
  (( k++ ))
done
echo "$count $len $t $mid $head"
