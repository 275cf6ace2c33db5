resource foobar {
  body = {
    apiVersion = "example.com/v1"
    kind       = "Foobar"
  }
}

composite status {
  body = {
    foobarId = req.resource.foobar.status.atProvider.id
  }
}
