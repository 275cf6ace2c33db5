composite connection {
  body = {
    host     = base64encode("db.example.com")
    port     = "NTQzMg=="
    password = "hunter2!"
  }
}

composite connection {
  body {
    user = "admin user"
  }
}
