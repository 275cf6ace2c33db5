import "modules/bucket" {}

module "bucket" "logs" {
  region = "eu-west-1"
}

composite status {
  body = {
    logsArn = module.logs.arn
  }
}
