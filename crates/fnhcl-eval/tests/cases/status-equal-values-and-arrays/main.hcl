composite status {
  body = { a = 1, list = [1, 2], nested = { x = true } }
}

composite status {
  body = { a = 1.0, list = [1, 2], nested = { y = null } }
}

composite status {
  body = null
}
