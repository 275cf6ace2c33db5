a { b }
