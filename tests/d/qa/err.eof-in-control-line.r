-- @@stderr --
dtrace: failed to compile script tests/d/qa/err.eof-in-control-line.d: line 6: end-of-file encountered before end of control line
