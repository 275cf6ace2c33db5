# Navigation fixture: names used across files, in functions and collections.
locals {
  region = "eu-west-1"
  zones  = ["a", "b"]
}

resource bucket {
  locals {
    label = "é😀-${region}"
  }
  body = {
    apiVersion = "s3.aws.upbound.io/v1beta1"
    kind       = "Bucket"
    metadata = {
      name = label
    }
    spec = {
      forProvider = {
        region = region
        tags   = { zone = invoke("zone_name", { zone = zones[0] }) }
      }
    }
  }
}

resources policies {
  for_each = toset(zones)
  template {
    body = {
      apiVersion = "iam.aws.upbound.io/v1beta1"
      kind       = "Policy"
      metadata = {
        name = "${self.basename}-${each.key}"
      }
      spec = {
        forProvider = {
          policy = req.resource.bucket.status.atProvider.arn
        }
      }
    }
  }
}
