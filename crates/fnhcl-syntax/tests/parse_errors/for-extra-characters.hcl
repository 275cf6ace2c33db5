a = [for s in xs: s if s != "" b = 1]
