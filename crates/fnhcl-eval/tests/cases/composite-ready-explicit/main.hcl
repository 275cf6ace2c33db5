# D33: composite ready sets the composite's readiness; it wins over D32.
resource subnet {
  body = {
    kind  = "Subnet"
    vpcId = req.composite.status.vpcId
  }
}

composite ready {
  value = req.composite.spec.ready ? "READY_TRUE" : "READY_FALSE"
}

composite ready {
  value = "READY_TRUE"
}
