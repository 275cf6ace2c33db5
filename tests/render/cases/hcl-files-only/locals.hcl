locals {
  name   = req.composite.metadata.name
  region = req.composite.spec.parameters.region
}
