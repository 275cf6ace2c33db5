locals {
  shared = req.composite.metadata.name
}
