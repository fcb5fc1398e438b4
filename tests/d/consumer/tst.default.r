                   FUNCTION:NAME
                          :BEGIN          42  hello                            
                          :BEGIN 7
                          :BEGIN 

-- @@stderr --
dtrace: script 'tests/d/consumer/tst.default.d' matched 3 probes
