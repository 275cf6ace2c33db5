function f {
  body = 1
}
resource r {
  body = { v = invoke("f") }
}
