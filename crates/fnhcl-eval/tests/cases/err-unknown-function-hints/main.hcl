function greet {
  arg name {}
  body = "hello ${name}"
}

locals {
  a = greet({ name = "x" })
  b = timestamp()
  c = filemd5("x")
  d = uppper("x")
  e = nosuchthing(1)
  f = invoke("gret", { name = "x" })
  g = invoke("greet", { nmae = "x" })
}
