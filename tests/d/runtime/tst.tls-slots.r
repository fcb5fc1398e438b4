unset 0 0
set 2 -1 44 -2147483648 str 5 0x1000
deleted 0 -1
again 7
tick 7 78
all deleted 0 0 0 0 0 0
drops none

