# cmdsubst with backticks and [ ]
hits=0
for ((k=0; k<2000; k++)); do
  r=`echo ok`
  if [ "$r" = ok ]; then hits=$((hits + 1)); fi
done
echo $hits
