function f {
  body = req.composite
}
resource r {
  body = invoke("f", {})
}
