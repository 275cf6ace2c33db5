locals {
  unused = req.composite.spec.nothing.here
  used   = "ok"
}

resource r {
  condition = false
  locals {
    alsoUnused = req.composite.spec.missing
  }
  body = { kind = "R", v = alsoUnused }
}

resource s {
  body = { kind = "S", v = used }
}
