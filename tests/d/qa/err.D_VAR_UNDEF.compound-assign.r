-- @@stderr --
dtrace: failed to compile script tests/d/qa/err.D_VAR_UNDEF.compound-assign.d: [D_VAR_UNDEF] line 4: total has not yet been declared or assigned
