a = [for 1 in y : x]
