group {
  condition = req.composite.spec.parameters.region == "eu-west-1"
  locals {
    prefix = "${req.composite.metadata.name}-eu"
  }
  resource vpc {
    body = {
      apiVersion = "ec2.aws.upbound.io/v1beta1"
      kind       = "VPC"
      metadata   = { name = "${prefix}-vpc" }
      spec       = { forProvider = { cidrBlock = "10.0.0.0/16" } }
    }
  }
  resources subnet {
    for_each = toset(["a", "b"])
    template {
      body = {
        apiVersion = "ec2.aws.upbound.io/v1beta1"
        kind       = "Subnet"
        metadata   = { name = "${prefix}-subnet-${each.value}" }
        spec       = { forProvider = { availabilityZone = "eu-west-1${each.value}" } }
      }
    }
  }
}

group {
  condition = req.composite.spec.parameters.region == "us-east-1"
  resource us-only {
    body = {
      apiVersion = "ec2.aws.upbound.io/v1beta1"
      kind       = "VPC"
      metadata   = { name = "never" }
    }
  }
}

resource skipped {
  condition = false
  body = {
    apiVersion = "v1"
    kind       = "ConfigMap"
  }
}
