resource r {
  body = invoke("wrap", { v = req.composite.spec })
}
