locals {
  tags  = req.composite.spec.tags
  names = [for k, v in tags : "${k}=${v}" if v != ""]
  upper = { for k, v in tags : upper(k) => v }
}

resource r {
  body = {
    apiVersion = "v1"
    kind       = "ConfigMap"
    data       = { names = join(",", names), keys = keys(upper) }
  }
}
