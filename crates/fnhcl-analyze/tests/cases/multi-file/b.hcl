resource r {
  body = { name = shared, other = req.resource.nope }
}
