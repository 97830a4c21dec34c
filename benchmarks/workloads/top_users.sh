grep -v DEBUG "$LOG" | awk '{print $3}' | sort | uniq -c | sort -rn | head -5
