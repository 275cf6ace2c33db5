param "region" {}

param "vpc_id" {}

param "zone" {}

param "cidr" {}

resource subnet {
  body = {
    apiVersion = "ec2.aws.upbound.io/v1beta1"
    kind       = "Subnet"
    spec = {
      forProvider = {
        region           = param.region
        vpcId            = param.vpc_id
        availabilityZone = "${param.region}${param.zone}"
        cidrBlock        = param.cidr
      }
    }
  }
}
