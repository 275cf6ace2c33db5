resource r {
  body = { name = req.compsite.metadata.name }
}
