composite connection {
  body = {
    user = base64encode("admin")
  }
}

composite connection {
  body {
    user     = base64encode("admin")
    password = "c2VjcmV0"
  }
}
