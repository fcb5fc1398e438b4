one|two|three|end
empty

