# An incomplete composite ready is discarded, and the composite is not ready.
composite ready {
  value = req.composite.status.done ? "READY_TRUE" : "READY_FALSE"
}
