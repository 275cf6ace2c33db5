import "modules/bucket" {}

module "bucket" "logs" {
  regoin = "eu-west-1"
}
