resource r {
  body = {}
  composite status {
    body = { arn = self.resource.stauts.atProvider.arn }
  }
}
