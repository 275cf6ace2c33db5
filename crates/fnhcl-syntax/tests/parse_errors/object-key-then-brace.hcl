a = {
  b }
