function toObject {
  arg name {
    description = "object name"
  }
  arg manifest {
    description = "inner manifest"
  }
  arg providerName {
    default = "default"
  }
  locals {
    objectName = "foo-${name}"
  }
  body = {
    apiVersion = "kubernetes.crossplane.io/v1alpha1"
    kind       = "Object"
    metadata   = { name = objectName }
    spec = {
      forProvider       = { manifest = manifest }
      providerConfigRef = { name = providerName }
    }
  }
}

resource cfg {
  body = invoke("toObject", { name = "a", manifest = { kind = "ConfigMap" } })
}
