composite connection {
  body = { user = base64encode("a") }
}

composite connection {
  body = { user = base64encode("b") }
}
