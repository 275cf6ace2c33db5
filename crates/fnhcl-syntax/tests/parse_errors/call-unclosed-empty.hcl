a = f(
