block {
  a = "{{{ ${x} }"
