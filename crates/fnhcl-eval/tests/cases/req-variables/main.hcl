resource shape {
  body = {
    kind                 = "Shape"
    contextKeys          = keys(req.context)
    compositeName        = req.composite.metadata.name
    managedFieldsRemoved = !can(req.composite.metadata.managedFields)
    compositeConnection  = req.composite_connection
    resourceNames        = keys(req.resource)
    connectionOfA        = req.connection.a
    connectionOfB        = req.connection.b
    collections          = { for k, v in req.resources : k => [for r in v : r.metadata.name] }
    collectionConns      = req.connections
    extra                = { for k, v in req.extra_resources : k => length(v) }
  }
}
