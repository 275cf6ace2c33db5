composite status {
  body = {
    foo   = { bar : { baz : { x : 10 } } }
    clash = 10
  }
}

composite status {
  body {
    foo   = { bar: { baz : { y : 12 } } }
    clash = 20
  }
}
