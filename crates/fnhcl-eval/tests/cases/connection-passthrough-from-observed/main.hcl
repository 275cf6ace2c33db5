resource db {
  body = { kind = "Database" }

  composite connection {
    body = {
      password = self.connection.password
      url      = base64encode("postgres://${self.resource.status.host}")
    }
  }
}

composite connection {
  body = {
    user = req.connection.db.user
  }
}
