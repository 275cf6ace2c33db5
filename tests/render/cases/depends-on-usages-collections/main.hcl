resources vpcs {
  for_each = ["blue", "green"]
  template {
    body = {
      apiVersion = "ec2.aws.upbound.io/v1beta1"
      kind       = "VPC"
      metadata   = { name = "net-1-${each.value}" }
    }
  }
}

# Each subnet waits for both VPCs; once all exist, 2 x 2 Usages keep
# Crossplane from deleting a VPC before the subnets.
resources subnets {
  for_each   = req.composite.spec.zones
  depends_on = ["vpcs"]
  template {
    body = {
      apiVersion = "ec2.aws.upbound.io/v1beta1"
      kind       = "Subnet"
      metadata   = { name = "net-1-${each.value}" }
    }
  }
}
