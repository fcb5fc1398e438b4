
  k                                                                 0
  l                                                                 0

