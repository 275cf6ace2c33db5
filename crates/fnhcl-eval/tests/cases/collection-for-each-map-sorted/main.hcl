resources cms {
  for_each = { zeta = 1, alpha = 2, mid = 3 }
  template {
    body = {
      apiVersion = "v1"
      kind       = "ConfigMap"
      data       = { key = each.key, value = each.value }
    }
  }
}
