resource r {
  body = {}
  composite status {
    body = { arn = self.resource.metadata.lables, data = self.resource.data }
  }
}
