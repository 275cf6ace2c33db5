resource web-0 {
  body = { kind = "Web" }
}

resources web {
  for_each = ["a"]
  template {
    body = { kind = "Web" }
  }
}
