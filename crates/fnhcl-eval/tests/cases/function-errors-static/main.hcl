function "bad name" {
  arg "x y" {}
  body = 1
}

function f {
  description = "ok ${1}"
  arg a {
    description = upper("x")
    default     = req.composite
  }
  arg a {}
  body = a
}

function f {
  body = 2
}
