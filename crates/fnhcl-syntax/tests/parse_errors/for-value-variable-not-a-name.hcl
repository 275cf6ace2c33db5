a = [for k, 1 in y : x]
