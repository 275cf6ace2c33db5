resource vpc {
  body = {
    apiVersion = "ec2.aws.upbound.io/v1beta1"
    kind       = "VPC"
    metadata   = { name = "net-1-vpc" }
    spec       = { forProvider = { cidrBlock = req.composite.spec.cidr } }
  }
}

# A mistake, not missing data: "eight" is no number. The subnet is
# discarded (as upstream), and fn-hcl render says so on stderr.
resource subnet {
  body = {
    apiVersion = "ec2.aws.upbound.io/v1beta1"
    kind       = "Subnet"
    metadata   = { name = "net-1-subnet" }
    spec       = { forProvider = { cidrBlock = cidrsubnet(req.composite.spec.cidr, "eight", 1) } }
  }
}
