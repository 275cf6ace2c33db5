a { b "x" }
