resources cms {
  for_each = toset(["b", "a", "b", "c"])
  template {
    body = {
      kind = "ConfigMap"
      data = { key = each.key, value = each.value }
    }
  }
}
