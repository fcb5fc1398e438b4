
  d                                                                -4
  b                                                                 1
  a                                                                 5
  c                                                                 5
