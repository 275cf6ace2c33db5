# Two instances of `app`, each with its own nested `db` instance:
# Crossplane names are <app>-<db>-<name> (web-db-instance, api-db-instance).
import "modules/app" {}

module "app" "web" {
  image  = "shop/web:1.4.2"
  region = req.composite.spec.parameters.region
}

module "app" "api" {
  image    = "shop/api:2.0.0"
  region   = req.composite.spec.parameters.region
  replicas = 3
}

composite status {
  body = {
    databases = {
      web = module.web.db_address
    }
  }
}
