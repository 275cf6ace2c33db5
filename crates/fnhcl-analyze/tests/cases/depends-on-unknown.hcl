resource vpc {
  body = { apiVersion = "ec2.aws.upbound.io/v1beta1", kind = "VPC" }
}

resource subnet {
  depends_on = ["vcp"]
  body       = { apiVersion = "ec2.aws.upbound.io/v1beta1", kind = "Subnet" }
}
