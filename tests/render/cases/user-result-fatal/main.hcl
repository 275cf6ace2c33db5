resource instance {
  body = {
    apiVersion = "rds.aws.upbound.io/v1beta1"
    kind       = "Instance"
    spec       = { forProvider = { allocatedStorage = req.composite.spec.size } }
  }
}

result {
  condition = req.composite.spec.size > 100
  severity  = "Fatal"
  message   = "spec.size must be at most 100 GiB, got ${req.composite.spec.size}"
}
