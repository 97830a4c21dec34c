# agent loop: a case pattern on each line read
c=0
while read -r line; do case $line in *item5,*) ((c++));; esac; done < "$DATA/orders.csv"
echo "$c"
