# The subnets need the VPC's id, which the provider reports once the VPC
# exists: the `subnet` instances' `vpc_id` parameter comes from the VPC's
# observed status.
import "modules/subnet" {}

locals {
  region = req.composite.spec.parameters.region
  vpc_id = req.resource.vpc.status.atProvider.id
}

resource vpc {
  body = {
    apiVersion = "ec2.aws.upbound.io/v1beta1"
    kind       = "VPC"
    spec       = { forProvider = { region = region, cidrBlock = "10.0.0.0/16" } }
  }
}

module "subnet" "a" {
  region = region
  vpc_id = vpc_id
  zone   = "a"
  cidr   = "10.0.1.0/24"
}

module "subnet" "b" {
  region = region
  vpc_id = vpc_id
  zone   = "b"
  cidr   = "10.0.2.0/24"
}
