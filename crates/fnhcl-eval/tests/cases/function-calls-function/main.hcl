function twoX {
  arg x {}
  body = 2 * x
}

function twoXPlus1 {
  arg x {}
  locals {
    doubled = invoke("twoX", { x = x })
  }
  body = doubled + 1
}

resource r {
  body = { kind = "R", v = invoke("twoXPlus1", { x = 100 }) }
}
