resource r {
  body = { n = req["composite"]["metadata"]["nmae"] }
}
