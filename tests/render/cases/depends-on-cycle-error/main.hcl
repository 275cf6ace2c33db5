resource vpc {
  depends_on = ["subnet"]
  body       = { apiVersion = "ec2.aws.upbound.io/v1beta1", kind = "VPC" }
}

resource subnet {
  depends_on = ["vpc"]
  body       = { apiVersion = "ec2.aws.upbound.io/v1beta1", kind = "Subnet" }
}
