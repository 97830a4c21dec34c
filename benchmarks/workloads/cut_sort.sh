cut -d' ' -f3 "$LOG" | sort -u | wc -l
