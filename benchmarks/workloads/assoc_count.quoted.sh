# assoc_count with quoted keys and (( )) increments
declare -A seen
names=(red green blue cyan magenta yellow black white gray brown pink olive navy teal lime)
text=
for ((k=0; k<50000; k++)); do text+="${names[(k * 7 + k / 13) % 15]} "; done
for w in $text; do (( seen["$w"]++ )); done
for key in "${!seen[@]}"; do printf '%s %s\n' "$key" "${seen[$key]}"; done | sort
