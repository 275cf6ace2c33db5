resources workers {
  for_each = { small = 1, large = 3 }
  template {
    locals {
      size = each.value
    }
    body = { kind = "Worker", replicas = size }
    ready {
      value = size > 2 ? "READY_TRUE" : "READY_FALSE"
    }
    context {
      key   = "example.com/workers"
      value = { (each.key) = size }
    }
    composite status {
      body = { workers = { (self.name) = each.value } }
    }
  }
}
