composite connection {
  body = { url = base64encode(req.composite.status.url) }
}
