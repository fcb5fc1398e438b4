-- @@stderr --
dtrace: failed to compile script tests/d/qa/err.D_PRAGERR.error-pragma.d: [D_PRAGERR] line 2: #error: stop here 
