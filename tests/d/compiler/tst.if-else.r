big
three
nested 6
y 4
tick 10
chain else 1
chain pred 1
chain three 1
odd 5
even 5

