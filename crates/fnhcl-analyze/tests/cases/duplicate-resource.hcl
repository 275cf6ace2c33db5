resource a {
  body = {}
}
group {
  resource a {
    body = {}
  }
}
