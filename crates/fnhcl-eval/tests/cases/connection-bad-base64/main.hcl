composite connection {
  body = {
    good = "Z29vZA=="
    bad  = "not base64!"
  }
}

composite connection {
  body = {
    other = "b3RoZXI="
  }
}
