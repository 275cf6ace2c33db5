resources bars {
  for_each = [1, 2]
  locals {
    k = each.key
  }
  template {
    body = { kind = "Bar" }
  }
  composite status {
    body = { x = each.value }
  }
}
