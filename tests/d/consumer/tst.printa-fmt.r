alpha      1 -> 1
beta       2 -> 2
[beta|   -7]
[alpha|  100]
alpha 1 1 100
beta 2 2 -7

  alpha                                                     1                1
  beta                                                      2                2

