// The language spec's example: body directly in a resources block.
// you can do the same thing for the resources block; in this case the entire list of resources is skipped.
resources s3_acls {
  // the condition applies to the entire list.
  condition = req.composite.spec.parameters.createAcls

  for_each = req.composite.spec.parameters.suffixes
  body {
    apiVersion = "s3.aws.upbound.io/v1beta1"
    kind       = "BucketAcl"
    suffix     = each.value
  }
}

resources s3_acls_enabled {
  condition = !req.composite.spec.parameters.createAcls
  for_each  = req.composite.spec.parameters.suffixes
  body = {
    kind   = "BucketAcl"
    name   = self.name
    suffix = each.value
  }
}
