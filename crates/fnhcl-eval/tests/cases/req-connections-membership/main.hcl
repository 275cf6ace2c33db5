# Only `req.connections` reads collection membership here: no collection
# block, no `req.resources`. The members' annotations must still be read
# (the program's demand), and nothing else of their bodies.
resource summary {
  body = {
    kind            = "Summary"
    collectionConns = req.connections
    arnOfA          = req.resource.a.status.arn
  }
}
