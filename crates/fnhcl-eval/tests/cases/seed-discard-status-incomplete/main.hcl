resource foobar {
  body = { kind = "Foobar" }

  composite status {
    body {
      url = self.resource.status.atProvider.url
    }
  }
}
