a = "%{ endif }"
