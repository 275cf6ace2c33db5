resource r {
  body = {
    kind = "R"
    a    = req.composite.spec.missing
    b    = req.composite.status.x.y
  }
}
