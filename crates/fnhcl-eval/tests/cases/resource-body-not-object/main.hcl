resource foo {
  body = ["not", "an", "object"]
}
