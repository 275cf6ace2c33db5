composite state {
  body = { a = 1 }
}
