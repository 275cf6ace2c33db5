context {
  key   = "example.com/a"
  value = { x = 1 }
}

context {
  key   = "example.com/a"
  value = { x = 2 }
}
