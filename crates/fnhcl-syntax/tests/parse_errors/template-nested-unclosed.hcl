a = "%{ for x in y }%{ if x }z%{ endfor }"
