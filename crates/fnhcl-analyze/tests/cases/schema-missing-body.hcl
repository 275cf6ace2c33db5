resource r {
  condition = true
}
