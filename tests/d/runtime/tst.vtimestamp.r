virtual < wall / 4
backwards 0, changed within a firing 0

