resource vpc {
  body = {
    apiVersion = "ec2.aws.upbound.io/v1beta1"
    kind       = "VPC"
    metadata   = { name = "net-1-vpc" }
  }
}

resource subnet {
  depends_on = ["vpc"]
  body = {
    apiVersion = "ec2.aws.upbound.io/v1beta1"
    kind       = "Subnet"
    metadata   = { name = "net-1-subnet" }
  }
}
