a = "%{ if x }y%{ endfor }"
