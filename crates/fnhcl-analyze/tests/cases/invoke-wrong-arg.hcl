function f {
  arg name {}
  body = { n = name }
}
resource r {
  body = invoke("f", { nmae = "x" })
}
