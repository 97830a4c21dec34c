# count 50,000 words with an associative array
declare -A seen
names=(red green blue cyan magenta yellow black white gray brown pink olive navy teal lime)
text=
for ((k=0; k<50000; k++)); do text+="${names[(k * 7 + k / 13) % 15]} "; done
for w in $text; do seen[$w]=$(( ${seen[$w]:-0} + 1 )); done
for key in "${!seen[@]}"; do echo "$key ${seen[$key]}"; done | sort
