resource a {
  depends_on = ["c"]
  body       = { kind = "A" }
}

resource b {
  depends_on = ["a"]
  body       = { kind = "B" }
}

resources c {
  for_each   = ["x"]
  depends_on = ["b"]
  template {
    body = { kind = "C" }
  }
}
