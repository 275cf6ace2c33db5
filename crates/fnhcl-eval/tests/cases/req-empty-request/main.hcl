resource shape {
  body = {
    kind      = "Shape"
    composite = req.composite
    conn      = req.composite_connection
    resource  = req.resource
    extra     = req.extra_resources
  }
}
