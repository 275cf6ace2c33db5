resources items {
  for_each = [1, 2]
}
