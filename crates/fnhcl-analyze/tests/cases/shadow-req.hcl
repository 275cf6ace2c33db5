resource r {
  locals {
    req = 1
  }
  body = {}
}
