composite condition {
  type   = "Checked"
  status = req.composite.spec.a
  reason = "Checked"
}

composite condition {
  type   = "Checked"
  status = req.composite.spec.b
  reason = "Checked"
}
