resource foo = 1
