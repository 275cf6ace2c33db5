param "name" {
  description = "suffix of the bucket's name"
}

param "region" {
  default     = "us-east-1"
  description = "AWS region of the bucket"
}

param "versioning" {
  default = false
}

param "retention_days" {
  default     = 30
  description = "days before objects expire"
}

locals {
  bucket_name = "${req.composite.metadata.name}-${param.name}"
}

resource bucket {
  body = {
    apiVersion = "s3.aws.upbound.io/v1beta1"
    kind       = "Bucket"
    metadata   = { name = bucket_name }
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
        bucket                  = bucket_name
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
        region = param.region
        bucket = bucket_name
        rule = [{
          id         = "expire"
          status     = "Enabled"
          expiration = [{ days = param.retention_days }]
        }]
      }
    }
  }
}

export {
  name = bucket_name
  arn  = req.resource.bucket.status.atProvider.arn
}
