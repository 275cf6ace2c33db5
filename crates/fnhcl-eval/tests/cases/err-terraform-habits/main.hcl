# Terraform habits: each reference gets a hint that names the
# function-hcl way of writing it.
locals {
  names = ["a", "b"]
  first = local.names[0]
  other = local.nmaes
  input = var.region
  found = data.aws_vpc.main.id
  dir   = path.module
  inst  = module.bucket.arn
  sw    = switch.tier.evaluated
  p     = param.region
}

resources bucket {
  for_each = names
  name     = "b-${count.index}"
  template {
    body = { kind = "Bucket", spec = { i = each.index } }
  }
}

function f {
  arg x {}
  body = req.composite.spec.x
}

locals {
  all = local
}
