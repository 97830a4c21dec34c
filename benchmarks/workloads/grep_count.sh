grep -c ERROR "$LOG"
