                                            (struct point) {
                                             .x = (int)3,
                                             .tag = (char [4]) [
                                              (char)'a',
                                              (char)'b',
                                             ],
                                             .z = (long)-7,
                                            }

