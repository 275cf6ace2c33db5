a = [for v in m : v...]
