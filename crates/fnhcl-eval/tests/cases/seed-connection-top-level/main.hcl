resource foobar {
  body = { kind = "Foobar" }
}

composite connection {
  body {
    url = base64encode(req.resource.foobar.status.atProvider.url)
  }
}
