-- @@stderr --
dtrace: failed to compile script tests/d/qa/err.D_SYNTAX.printf-z-conversion.d: [D_SYNTAX] line 4: format conversion #1 is undefined: %z
