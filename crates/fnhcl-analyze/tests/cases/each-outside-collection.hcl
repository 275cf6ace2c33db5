resource r {
  body = { v = each.value }
}
