// defaults to true if unspecified
resource s3_acl {
  condition = try(req.composite.spec.parameters.createAcls, true)
  body {
    apiVersion = "v1"
    kind       = "Acl"
  }
}

resource s3_acl_default {
  condition = try(req.composite.spec.parameters.noSuchFlag, true)
  body {
    apiVersion = "v1"
    kind       = "Acl"
  }
}

// the entire list is skipped
resources s3_acls {
  condition = req.composite.spec.parameters.createAcls
  for_each  = req.composite.spec.parameters.suffixes
  template {
    body {
      apiVersion = "v1"
      kind       = "Acl"
    }
  }
}

group {
  condition = req.composite.spec.parameters.createMoreBuckets

  resource additional-bucket-one {
    body = { kind = "Bucket" }
  }

  resource additional-bucket-two {
    body = { kind = "Bucket" }
  }
}
