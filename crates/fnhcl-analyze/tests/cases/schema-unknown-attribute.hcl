resource r {
  bodyy = {}
  body  = {}
}
