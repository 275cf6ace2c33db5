# The worker needs its queue's URL, which only the provider knows: the
# queue module exports it from the queue's observed status.
import "modules/queue" {}

locals {
  params = req.composite.spec.parameters
}

module "queue" "jobs" {
  region = params.region
}

resource worker {
  body = {
    apiVersion = "apps/v1"
    kind       = "Deployment"
    metadata   = { name = "${req.composite.metadata.name}-worker" }
    spec = {
      template = {
        spec = {
          containers = [{
            name  = "worker"
            image = params.image
            env   = [{ name = "QUEUE_URL", value = module.jobs.url }]
          }]
        }
      }
    }
  }
}

composite status {
  body = {
    queueUrl = module.jobs.url
  }
}
