a = b. c
