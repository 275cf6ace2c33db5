function factorial {
  arg n {}
  body = n < 1 ? 1 : n * invoke("factorial", { n: n - 1 })
}

resource cm {
  body = {
    kind = "ConfigMap"
    data = { five = invoke("factorial", { n: 5 }) }
  }
}
