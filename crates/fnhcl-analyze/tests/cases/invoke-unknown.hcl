resource r {
  body = invoke("missing", {})
}
