# A WatchOperation's program: it labels the watched object and reports it.
resource labelled {
  body = {
    apiVersion = req.watched.apiVersion
    kind       = req.watched.kind
    metadata = {
      name   = req.watched.metadata.name
      labels = { audited = "true", owner = req.composite.metadata.name }
    }
  }
  ready {
    value = "READY_TRUE"
  }
}

output {
  body = { labelled = req.watched.metadata.name }
}

composite status {
  body = { done = true }
}
