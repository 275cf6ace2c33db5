a = "%{ for x in y }z%{ else }%{ endfor }"
