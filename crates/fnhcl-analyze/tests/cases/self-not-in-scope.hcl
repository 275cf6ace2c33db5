context {
  key   = "k"
  value = self.name
}
