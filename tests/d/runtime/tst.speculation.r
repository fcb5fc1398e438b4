before commit
kept 1

