locals {
  id = req.composite.status.id
}

resource a {
  body = { kind = "A", id = try(id, "default") }
}

resource b {
  body = { kind = "B", id = try(req.composite.status.id, "default") }
}
