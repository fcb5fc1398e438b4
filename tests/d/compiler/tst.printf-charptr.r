[hi] [hi] [   hi] [1]

