function echo {
  arg x {}
  body = { got = x }
}

resource r {
  body = { kind = "R", v = invoke("echo", { x = req.composite.spec.value }) }
}
