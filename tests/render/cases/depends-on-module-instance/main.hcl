import "modules/network" {
  as = "network"
}

module "network" "net" {
  cidr = "10.0.0.0/16"
}

# The database waits for everything the network instance creates.
resource db {
  depends_on = ["net"]
  body = {
    apiVersion = "rds.aws.upbound.io/v1beta1"
    kind       = "Instance"
    metadata   = { name = "app-1-db" }
  }
}
