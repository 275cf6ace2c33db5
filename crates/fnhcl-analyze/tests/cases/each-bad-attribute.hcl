resources items {
  for_each = [1, 2]
  template {
    body = { value = each.val }
  }
}
