# Three buckets from one module: `logs` takes the defaults, `data`
# overrides them by name, `tmp` sets its parameters all at once.
import "modules/bucket" {}

locals {
  region = req.composite.spec.parameters.region
}

module "bucket" "logs" {
  name   = "logs"
  region = region
}

module "bucket" "data" {
  name           = "data"
  region         = region
  versioning     = true
  retention_days = 365
}

module "bucket" "tmp" {
  params = { name = "tmp", retention_days = 1 }
}

composite status {
  body = {
    buckets = [module.logs.name, module.data.name, module.tmp.name]
  }
}

composite status {
  body = {
    logsArn = module.logs.arn
  }
}
