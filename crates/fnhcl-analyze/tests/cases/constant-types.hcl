group {
  condition = "true"
  resource a {
    condition = true
    body      = {}
  }
}
resources b {
  condition = null
  for_each  = 3
  template {
    body = {}
  }
}
resources c {
  condition = tobool(null)
  for_each  = toset(["x"])
  template {
    body = {}
  }
}
resources d {
  for_each = { a = 1 }
  template {
    body = {}
  }
}
