a = "x # not a comment"
b = 1 # "comment
