resources things {
  for_each = toset([{ a = 1 }, { a = 2 }])
  template {
    body = { kind = "Thing", a = each.value.a }
  }
}
