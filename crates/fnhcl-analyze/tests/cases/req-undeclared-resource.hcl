resource bucket {
  body = {}
}
resource r {
  body = { arn = req.resource.buckt.status.arn }
}
