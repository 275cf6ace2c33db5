# HCL 2.24 (the Go function-hcl's) refines the unknown result of a
# conditional to the range of its branches, and a comparison against that
# range becomes known (here: size is between 2 and 2, so it is 2). We do
# not refine: the value stays unknown and the blocks that need it are
# deferred (docs/differences-from-go.md, "Refinements").
locals {
  size = req.composite.spec.enabled ? 2 : 2
}

resource sized {
  body = {
    kind = "Sized"
    size = size
  }
}

resource small {
  condition = (req.composite.spec.enabled ? 1 : 3) < 8
  body = {
    kind = "Small"
  }
}

resource always {
  body = {
    kind = "Always"
  }
}
