resource vpc {
  body = { kind = "VPC" }

  composite status {
    body = {
      vpcId = self.resource.status.atProvider.vpcId
    }
  }
}

resource subnet {
  body = {
    kind = "Subnet"
    spec : {
      forProvider : {
        vpcId : req.composite.status.vpcId
      }
    }
  }
}
