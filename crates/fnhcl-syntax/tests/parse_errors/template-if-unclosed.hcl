a = "%{ if x }y"
