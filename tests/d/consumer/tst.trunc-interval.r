interval 1

  once                                                              1
  c                                                                 5

  s                                                                15
  once                                                            100

  a                                                                 3

                5

  m                                                                 1

  x                                                                 5
interval 2

  c                                                                 5

  s                                                                40

  a                                                                 8

                5

  m                                                                 6

  x                                                                10
interval 3

  c                                                                 5

  s                                                                65

  a                                                                13

                5

  m                                                                11

  x                                                                15
end



                0

