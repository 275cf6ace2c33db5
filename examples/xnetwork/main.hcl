locals {
  params = req.composite.spec
  name   = req.composite.metadata.name
}

resource vpc {
  body = {
    apiVersion = "ec2.aws.upbound.io/v1beta1"
    kind       = "VPC"
    metadata   = { name = name }
    spec = {
      forProvider = {
        region             = params.region
        cidrBlock          = params.cidr
        enableDnsHostnames = true
      }
    }
  }

  # The VPC's id, once AWS has given it one.
  composite status {
    body = { vpcId = self.resource.status.atProvider.id }
  }
}

# One subnet per zone, created once the VPC is ready (not just named).
resources subnets {
  for_each   = params.zones
  depends_on = ["vpc"]

  template {
    body = {
      apiVersion = "ec2.aws.upbound.io/v1beta1"
      kind       = "Subnet"
      metadata   = { name = "${name}-${each.value}" }
      spec = {
        forProvider = {
          region           = params.region
          availabilityZone = "${params.region}${each.value}"
          cidrBlock        = cidrsubnet(params.cidr, 8, each.key)
          vpcIdSelector    = { matchControllerRef = true }
        }
      }
    }
  }
}

composite status {
  body = { subnets = length(params.zones) }
}
