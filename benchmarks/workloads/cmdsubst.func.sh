# cmdsubst of a shell function over a seq loop
get() { echo "ok"; }
hits=0
for k in $(seq 2000); do
  r=$(get)
  [ "$r" = ok ] && hits=$((hits+1))
done
echo "$hits"
