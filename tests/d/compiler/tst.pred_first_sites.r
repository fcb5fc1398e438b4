11 2 3 4
second clause sees g

