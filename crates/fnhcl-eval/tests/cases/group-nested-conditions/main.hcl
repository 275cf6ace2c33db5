group {
  locals {
    enabled = true
  }
  condition = enabled

  group {
    condition = !enabled
    resource hidden {
      body = { kind = "Hidden" }
    }
  }

  group {
    locals {
      inner = "in"
    }
    resource shown {
      body = { kind = "Shown", v = "${inner}-${enabled}" }
    }
  }
}
