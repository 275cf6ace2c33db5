composite status {
  body = "just a string"
}
