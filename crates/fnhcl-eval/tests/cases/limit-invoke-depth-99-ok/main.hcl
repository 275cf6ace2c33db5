function countdown {
  arg n {}
  body = n <= 0 ? 0 : 1 + invoke("countdown", { n = n - 1 })
}

resource ok {
  body = { kind = "Ok", depth = invoke("countdown", { n = 98 }) }
}

resource too-deep {
  body = { kind = "TooDeep", depth = invoke("countdown", { n = 99 }) }
}
