3 1
he 1
el 2
2 5 1
ab 3 2

