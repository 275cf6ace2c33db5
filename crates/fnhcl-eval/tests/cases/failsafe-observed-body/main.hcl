resource bucket {
  body = {
    kind = "Bucket"
    spec = {
      region = req.composite.spec.parameters.regoin
    }
  }
}
