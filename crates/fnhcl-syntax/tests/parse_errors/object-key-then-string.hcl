a = {
  name "x"
}
