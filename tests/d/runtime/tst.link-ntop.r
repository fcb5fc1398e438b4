de:ad:00:00:00:0f
de:ad:00:00:00:0f:00:00:00:00:00:00:00:00:00:00:00:00:00:ff
fault 3

-- @@stderr --
dtrace: error on enabled probe ID 2 (ID 1: dtrace:::BEGIN): illegal operation at DIF offset 24
