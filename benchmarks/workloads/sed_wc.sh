sed 's/user/member/g' "$LOG" | wc -l
