8 7
5 7 5 4
4 foobar 6 oob FOOBAR
1 3 44
17 big

