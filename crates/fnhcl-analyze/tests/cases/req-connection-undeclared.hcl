resource r {
  body = { c = req.connection.db.password }
}
