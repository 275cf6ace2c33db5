locals {
  # The bucket's Kubernetes name: known once the bucket exists.
  bucket_name = req.resource.bucket.metadata.name
}

export {
  name = bucket_name
  arn  = req.resource.bucket.status.atProvider.arn
}
