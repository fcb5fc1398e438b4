[short] 5
[short and longer again] 22
[tl]
11 2 3 4
1 2 3 4
5 6 7
0 2

