resource test {
  locals {
    labels = { label_1 = "a", label_2 = self.resource.metadata.labels.x }
    manifest = {
      name = {
        foo = [{ bar = labels }]
      }
    }
  }
  body = {
    kind = "Test"
    spec = manifest.name
  }
}
