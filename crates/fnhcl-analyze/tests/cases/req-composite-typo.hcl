resource r {
  body = { region = req.composite.sepc.parameters.region }
}
