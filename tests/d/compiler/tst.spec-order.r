plain
in a

