/* ustack()'s frame count is a positive constant */
BEGIN { ustack(0); }
