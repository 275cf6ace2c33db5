a = {
  name
}
