# What each resource waits for is recorded for the function (D40); the
# evaluator itself holds nothing back.
resource vpc {
  body = { kind = "VPC" }
}

resources subnets {
  for_each   = ["a", "b"]
  depends_on = ["vpc"]
  template {
    body = { kind = "Subnet", zone = each.value }
  }
}

resource db {
  depends_on = ["subnets", "vpc"]
  body       = { kind = "Database" }
}
