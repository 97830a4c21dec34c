# cmdsubst with printf, a quoted substitution and (( ))
hits=0
for ((k=0; k<2000; k++)); do
  r="$(printf '%s' ok)"
  if [[ "$r" == "ok" ]]; then (( hits++ )); fi
done
echo "$hits"
