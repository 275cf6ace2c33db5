function f {
  arg name {}
  arg size {}
  body = { n = name, s = size }
}
resource r {
  body = invoke("f", { name = "x" })
}
