locals {
  outer = 1
}

function g {
  arg a {}
  body = a + outer + req.composite.x
}
