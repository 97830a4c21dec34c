# assoc_count testing for the key before incrementing
declare -A seen
names=(red green blue cyan magenta yellow black white gray brown pink olive navy teal lime)
text=""
for ((k=0; k<50000; k++)); do text+="${names[(k * 7 + k / 13) % 15]}"; text+=" "; done
for w in $text; do
  if [[ -v seen[$w] ]]; then seen[$w]=$(( seen[$w] + 1 )); else seen[$w]=1; fi
done
for key in "${!seen[@]}"; do echo "$key ${seen[$key]}"; done | sort
