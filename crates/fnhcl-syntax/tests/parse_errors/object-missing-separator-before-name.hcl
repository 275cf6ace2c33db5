a = { b = 1 list = 2 }
