composite connection {
  body = {
    password = "not base64!"
  }
}
