param "cidr" {}

resource vpc {
  body = {
    apiVersion = "ec2.aws.upbound.io/v1beta1"
    kind       = "VPC"
    metadata   = { name = "app-1-vpc" }
    spec       = { forProvider = { cidrBlock = param.cidr } }
  }
}

resource subnet {
  body = {
    apiVersion = "ec2.aws.upbound.io/v1beta1"
    kind       = "Subnet"
    metadata   = { name = "app-1-subnet" }
    spec       = { forProvider = { cidrBlock = cidrsubnet(param.cidr, 8, 1) } }
  }
}
