a = "%{ for x in y }z%{ endif }"
