function wrap {
  arg v {}
  body = { value = v }
}
