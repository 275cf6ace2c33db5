locals {
  name = "f"
  a = invoke(name, {})
  b = invoke("nope", {})
  c = invoke("f")
  d = invoke("f", { x = 1, y = 2 })
  e = invoke("f", {})
}

function f {
  arg x {}
  body = x
}
