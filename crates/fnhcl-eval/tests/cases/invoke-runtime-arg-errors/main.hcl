function f {
  arg x {}
  arg y { default = "d" }
  body = "${x}-${y}"
}

locals {
  args_extra   = { x = 1, z = 2 }
  args_missing = { y = 1 }
  not_object   = 5
}

resource ok {
  body = {
    kind = "Ok"
    a    = invoke("f", { x = "a" })
    b    = invoke("f", { x = "a", y = "b" })
  }
}

resource extra {
  body = { kind = "X", v = invoke("f", args_extra) }
}

resource missing {
  body = { kind = "X", v = invoke("f", args_missing) }
}

resource notobj {
  body = { kind = "X", v = invoke("f", not_object) }
}
