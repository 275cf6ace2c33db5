context {
  key   = "example.com/settings"
  value = { region = "eu-west-1", a = 1 }
}

context {
  key   = "example.com/settings"
  value = { region = "us-east-1" }
}
