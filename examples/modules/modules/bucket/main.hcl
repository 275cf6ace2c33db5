# A bucket with a lifecycle rule and, optionally, versioning. Its composed
# resources are named <instance>-bucket, <instance>-lifecycle and
# <instance>-versioning.
param "region" {
  description = "AWS region of the bucket"
}

param "versioning" {
  default     = false
  description = "keep every version of every object"
}

param "retention_days" {
  default     = 30
  description = "days before objects expire"
}

resource bucket {
  body = {
    apiVersion = "s3.aws.upbound.io/v1beta1"
    kind       = "Bucket"
    spec = {
      forProvider = { region = param.region }
    }
  }
}

resource versioning {
  condition = param.versioning
  body = {
    apiVersion = "s3.aws.upbound.io/v1beta1"
    kind       = "BucketVersioning"
    spec = {
      forProvider = {
        region                  = param.region
        bucketRef               = { name = bucket_name }
        versioningConfiguration = [{ status = "Enabled" }]
      }
    }
  }
}

resource lifecycle {
  body = {
    apiVersion = "s3.aws.upbound.io/v1beta1"
    kind       = "BucketLifecycleConfiguration"
    spec = {
      forProvider = {
        region    = param.region
        bucketRef = { name = bucket_name }
        rule = [{
          id         = "expire"
          status     = "Enabled"
          expiration = [{ days = param.retention_days }]
        }]
      }
    }
  }
}
