function zone_name {
  arg zone {}
  body = "${region_prefix}-${zone}"
  locals {
    region_prefix = "z"
  }
}

composite status {
  body = {
    bucketArn = req.resource.bucket.status.atProvider.arn
    zones     = length(zones)
    policies  = length(req.resources.policies)
  }
}
