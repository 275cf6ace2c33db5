# The worked example of docs/language.md: a subnet needs the id of its
# network, which the provider reports only once it has created it.
resource network {
  body = {
    apiVersion = "ec2.aws.upbound.io/v1beta1"
    kind       = "VPC"
    spec = {
      forProvider = {
        region    = req.composite.spec.region
        cidrBlock = "10.0.0.0/16"
      }
    }
  }

  ready {
    value = can(self.resource.status.atProvider.id) ? "READY_TRUE" : "READY_FALSE"
  }

  composite status {
    body = { networkId = self.resource.status.atProvider.id }
  }
}

resource subnet {
  body = {
    apiVersion = "ec2.aws.upbound.io/v1beta1"
    kind       = "Subnet"
    spec = {
      forProvider = {
        region    = req.composite.spec.region
        vpcId     = req.resource.network.status.atProvider.id
        cidrBlock = "10.0.1.0/24"
      }
    }
  }

  ready {
    value = can(self.resource.status.atProvider.id) ? "READY_TRUE" : "READY_FALSE"
  }
}
