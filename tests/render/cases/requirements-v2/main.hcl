requirement network {
  select {
    apiVersion = "ec2.aws.upbound.io/v1beta1"
    kind       = "VPC"
    matchName  = "shared-vpc"
  }
}

resource subnet {
  body = {
    apiVersion = "ec2.aws.upbound.io/v1beta1"
    kind       = "Subnet"
    metadata   = { name = "${req.composite.metadata.name}-subnet" }
    spec = {
      forProvider = {
        vpcId     = req.extra_resources.network[0].status.atProvider.id
        cidrBlock = cidrsubnet(req.extra_resources.network[0].spec.forProvider.cidrBlock, 8, 3)
      }
    }
  }
}
