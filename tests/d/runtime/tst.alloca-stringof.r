full: abcdefghijklmnop
exact: abcdefghijklmnop

-- @@stderr --
dtrace: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): invalid size (0x10) at DIF offset 8
dtrace: error on enabled probe ID 4 (ID 1: dtrace:::BEGIN): invalid size (0x10) at DIF offset 16
