locals {
  params = req.composite.spec.parameters
}

resource r {
  body = {
    apiVersion = "v1"
    kind       = "ConfigMap"
    metadata   = { name = req.composite.metadata.name }
    data = {
      region  = req.composite.spec.parameters.region
      typo    = req.composite.spec.paramters.region
      tag     = req.composite.spec.parameters.tags.team
      zone    = req.composite.spec.parameters.zones[0].name
      badzone = req.composite.spec.parameters.zones[0].nmae
      extra   = req.composite.spec.parameters.extra.anything.goes
      arn     = req.composite.status.arn
      top     = req.composite.spec2
      local   = params.region
      aliased = params.regoin
      deep    = params.zones[0].nmae
    }
  }
}

# each.value over a list of the XR is one element of it.
resources zone {
  for_each = params.zones
  template {
    body = {
      apiVersion = "v1"
      kind       = "ConfigMap"
      data       = { ok = each.value.name, typo = each.value.nmae }
    }
  }
}
