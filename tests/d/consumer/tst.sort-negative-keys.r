c 0 1
c 3 1
c -5 1
c -1 1
s -2 x -4
s 1 y 3
s -7 z 3
k -3 1
k 2 5
K 2 5
K -3 1
S 1 y 3
S -7 z 3
S -2 x -4

