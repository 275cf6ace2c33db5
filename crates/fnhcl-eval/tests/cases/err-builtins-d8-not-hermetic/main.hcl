# D8: evaluation is hermetic: the clock, random and file functions do not
# exist, so using one is an error when the program is loaded.
resource clock {
  body = {
    kind = "R"
    t    = timestamp()
    u    = uuid()
    b    = bcrypt("x")
    f    = file("x")
    tf   = templatefile("a", {})
  }
}
