group {
  locals {
    foo = "bar"
  }
  resource one {
    body = { data = foo }
  }
}

resource three {
  body = { data = foo }
}
