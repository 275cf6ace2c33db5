resource foobar {
  body = {
    apiVersion = "example.com/v1"
    kind       = "Foobar"
  }

  composite status {
    body = {
      foobarId = self.resource.status.atProvider.id
    }
  }
}
