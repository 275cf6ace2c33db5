resource foo {
  condition = true
}
