a = "%{ foo }"
