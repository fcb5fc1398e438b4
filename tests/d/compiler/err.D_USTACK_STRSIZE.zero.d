/* ustack()'s string size is a positive constant */
BEGIN { ustack(5, 0); }
