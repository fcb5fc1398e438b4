-- @@stderr --
dtrace: script 'tests/d/qa/err.dynvarsize-assoc.d' matched 1 probe
dtrace: could not enable tracing: Enabling exceeds size of buffer
