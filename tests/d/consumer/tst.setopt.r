                   FUNCTION:NAME
                          :BEGIN   before                           
                          :BEGIN after

-- @@stderr --
dtrace: script 'tests/d/consumer/tst.setopt.d' matched 2 probes
dtrace: error on enabled probe ID 2 (ID 1: dtrace:::BEGIN): couldn't set option "nosuchoption" to "1": Invalid option name

