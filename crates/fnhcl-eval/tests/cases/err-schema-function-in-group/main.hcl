group {
  function nested {
    body = 1
  }
}
