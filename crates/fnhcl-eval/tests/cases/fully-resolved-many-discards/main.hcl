composite status {
  body = { a = req.composite.status.a }
}

composite status {
  body = { b = req.composite.status.b }
}

context {
  key   = "k"
  value = req.composite.status.c
}

resource r {
  body = { kind = "R", d = req.composite.status.d }
}

resource s {
  body = { kind = "S", e = req.composite.status.e }
}
