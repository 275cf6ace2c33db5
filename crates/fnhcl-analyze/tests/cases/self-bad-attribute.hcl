resources items {
  for_each  = [1]
  condition = self.name != ""
  template {
    body = {}
  }
}
