# assoc_count collecting words in an indexed array first, then counting with a default
declare -A seen=()
names=(red green blue cyan magenta yellow black white gray brown pink olive navy teal lime)
words=()
for ((k=0; k<50000; k++)); do words+=("${names[(k * 7 + k / 13) % 15]}"); done
for w in "${words[@]}"; do
  n=${seen[$w]-0}
  seen[$w]=$((n + 1))
done
for key in "${!seen[@]}"; do echo "$key ${seen[$key]}"; done | sort
