requirement cfg {
  select {
    apiVersion = "v1"
    kind       = "ConfigMap"
    matchName  = "settings"
    namespace  = "ops"
  }
}

resource copy {
  body = {
    apiVersion = "v1"
    kind       = "ConfigMap"
    metadata   = { name = "copy", namespace = "ops" }
    data       = req.extra_resources.cfg[0].data
  }
}

output {
  body = { copied = length(req.extra_resources.cfg[0].data) }
}

result {
  severity = "Normal"
  message  = "copied settings"
}
