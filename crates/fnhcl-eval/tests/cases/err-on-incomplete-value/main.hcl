resource a {
  on_incomplete = "ignore"
  body          = { kind = "A" }
}

resource b {
  depends_on = "a"
  body       = { kind = "B" }
}
