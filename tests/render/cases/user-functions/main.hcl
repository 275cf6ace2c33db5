function label {
  arg key {}
  arg value {
    default = "enabled"
  }
  body = { (key) = value }
}

function bucket {
  arg name {}
  arg region {}
  arg tags {
    default = {}
  }
  body = {
    apiVersion = "s3.aws.upbound.io/v1beta1"
    kind       = "Bucket"
    metadata   = { name = name, labels = merge(invoke("label", { key = "managed" }), tags) }
    spec       = { forProvider = { region = region } }
  }
}

resource logs {
  body = invoke("bucket", {
    name   = "${req.composite.metadata.name}-logs"
    region = req.composite.spec.parameters.region
  })
}

resource data {
  body = invoke("bucket", {
    name   = "${req.composite.metadata.name}-data"
    region = "us-east-1"
    tags   = invoke("label", { key = "tier", value = "hot" })
  })
}
