resource one {
  locals {
    x = "one"
  }
  body = { kind = "Foo", x = x }
}

resource two {
  locals {
    x = "two"
  }
  body = { kind = "Foo", x = x }
}

group {
  locals {
    y = 1
  }
}

group {
  locals {
    y = 2
  }
  resource three {
    body = { kind = "Foo", y = y }
  }
}
