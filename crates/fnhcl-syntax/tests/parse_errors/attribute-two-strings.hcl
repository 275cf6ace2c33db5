name = "b""a"
