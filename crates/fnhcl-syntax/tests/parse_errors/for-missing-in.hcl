a = [for x y : x]
