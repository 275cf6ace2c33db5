resources items {
  for_each = [1]
  template {
    body = {}
  }
}
resources items {
  for_each = [2]
  template {
    body = {}
  }
}
