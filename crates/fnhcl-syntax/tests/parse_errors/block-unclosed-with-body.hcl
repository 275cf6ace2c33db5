block {
  a = 1
