resource foo {
  body {
    apiVersion = "v1"
    kind       = "ConfigMap"
    metadata = {
      name = "foo"
    }
  }
}

resources bars {
  for_each = [1]
  template {
    body {
      kind = "Bar"
    }
  }
}

composite status {
  body {
    ok = true
  }
}
