resource network {
  body = {
    apiVersion = "ec2.aws.upbound.io/v1beta1"
    kind       = "VPC"
    metadata   = { name = "${name}-vpc" }
    spec       = { forProvider = { region = region, cidrBlock = cidrsubnet("10.0.0.0/8", 8, 1) } }
  }
}
