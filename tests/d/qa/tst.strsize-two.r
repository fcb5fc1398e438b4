[ma]

