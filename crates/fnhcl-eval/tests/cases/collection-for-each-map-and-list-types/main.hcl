resources maps {
  for_each = tomap({ b = "two", a = "one" })
  template {
    body = { kind = "M", key = each.key, value = each.value }
  }
}

resources lists {
  for_each = tolist(["x", "y"])
  template {
    body = { kind = "L", key = each.key, value = each.value }
  }
}

resources tuples {
  for_each = ["x", 2, true]
  name     = "tuple-${each.key}"
  template {
    body = { kind = "T", value = each.value }
  }
}
