# D8: the pure additions to the Terraform set (uuidv5, sensitive,
# nonsensitive, type) are available in programs.
locals {
  id     = uuidv5("dns", "example.com")
  secret = sensitive("s3cr3t")
}

resource r {
  body = {
    kind  = "R"
    id    = id
    plain = nonsensitive(secret)
    t     = type(1)
  }
}
