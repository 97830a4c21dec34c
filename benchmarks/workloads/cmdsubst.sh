# 2,000 command substitutions
hits=0
for ((k=0; k<2000; k++)); do
  r=$(echo ok)
  [[ $r == ok ]] && hits=$(( hits + 1 ))
done
echo "$hits"
