1 1 1 1 1 1
8 9 0 23
1 2
0 2
abcdefghi 1
abcdefgi 1
abcdefgh 2

