/* ustack()'s frame count is a positive constant, also as a key */
BEGIN { @[ustack(0)] = count(); }
