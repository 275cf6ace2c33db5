a = x ? 1
