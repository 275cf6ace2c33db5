function addNumbers {
  arg a {}
  arg b { default = 1 }

  locals {
    output = a + b
  }

  body = output
}

locals {
  c = invoke("addNumbers", { a: 2, b: 3 })
  d = invoke("addNumbers", { a: 2 })
}

resource cm {
  body = {
    apiVersion = "v1"
    kind       = "ConfigMap"
    data       = { c = c, d = d }
  }
}
