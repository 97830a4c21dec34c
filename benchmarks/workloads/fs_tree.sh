# 5,000 files in 50 directories, then find, ls -R and grep -rl over them
rm -rf tree; mkdir tree; cd tree || exit 1
for ((d=0; d<50; d++)); do mkdir "d$d"; done
for ((k=0; k<5000; k++)); do
  if (( k % 9 == 0 )); then echo "row $k needle" > "d$(( k % 50 ))/f$k"; else echo "row $k" > "d$(( k % 50 ))/f$k"; fi
done
find . -type f | wc -l
ls -R | wc -l
grep -rl needle . | wc -l
cd .. && rm -rf tree
