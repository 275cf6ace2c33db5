composite condition {
  type   = "Ready"
  status = "True"
  reason = "available"
}

result {
  severity = "Info"
  message  = "hello"
  target   = "Claim"
}
