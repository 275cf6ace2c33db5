resources web {
  for_each = ["a"]
  condition = false
  template {
    body = { kind = "Web" }
  }
}

resource web-0 {
  body = { kind = "Web" }
}
