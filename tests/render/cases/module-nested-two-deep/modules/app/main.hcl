# An application: a Deployment and its database. The database module lives
# in a subdirectory of this module and is imported by its path from the
# input's root.
import "modules/app/db" {}

param "image" {}

param "region" {}

param "replicas" {
  default = 1
}

module "db" "db" {
  region = param.region
  size   = param.replicas > 1 ? "large" : "small"
}

resource deployment {
  body = {
    apiVersion = "apps/v1"
    kind       = "Deployment"
    spec = {
      replicas = param.replicas
      template = {
        spec = {
          containers = [{
            name  = "app"
            image = param.image
            env   = [{ name = "DB_HOST", value = module.db.address }]
          }]
        }
      }
    }
  }
}

export {
  db_address = module.db.address
}
