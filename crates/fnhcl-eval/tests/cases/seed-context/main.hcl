context {
  key = "example.com/foo-bar-baz"
  value = {
    foo = {
      bar = "baz"
    }
    bar : 10
    baz : "quux"
  }
}

context {
  key = "example.com/foo-bar-baz"
  value = {
    foo : {
      baz : "bar"
    }
  }
}
