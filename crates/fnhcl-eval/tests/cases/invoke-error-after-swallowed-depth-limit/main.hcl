// factorial hits the depth limit in its unselected branch (both branches
// are evaluated); that must not hide a later, unrelated error.
function factorial {
  arg n {}
  body = n < 1 ? 1 : n * invoke("factorial", { n = n - 1 })
}

function broken {
  arg n {}
  body = invoke("factorial", { n = n }) + tonumber("not a number")
}

resource r {
  body = { kind = "R", v = invoke("broken", { n = 3 }) }
}
