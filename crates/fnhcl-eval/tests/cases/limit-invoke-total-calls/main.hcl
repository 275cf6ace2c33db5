// Both branches of a conditional are evaluated (as in HCL), so a naive
// Fibonacci recursion fans out until the depth limit on every path: the
// per-evaluation call budget stops it instead of running for hours.
function fib {
  arg n {}
  body = n < 2 ? n : invoke("fib", { n = n - 1 }) + invoke("fib", { n = n - 2 })
}

function factorial {
  arg n {}
  body = n < 1 ? 1 : n * invoke("factorial", { n = n - 1 })
}

resource linear {
  body = { kind = "Factorial", v = invoke("factorial", { n = 10 }) }
}

resource fanout {
  body = { kind = "Fib", v = invoke("fib", { n = 60 }) }
}
