resource foobar {
  body = { kind = "Foobar" }

  composite connection {
    body {
      url = base64encode(self.resource.status.atProvider.url)
    }
  }
}
