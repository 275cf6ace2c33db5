composite connection {
  body = {
    port = 5432
    ok   = "b2s="
  }
}
