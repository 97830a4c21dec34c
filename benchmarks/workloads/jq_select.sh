jq '[.[] | select(.x > 6)] | length' "$DATA/data.json"
