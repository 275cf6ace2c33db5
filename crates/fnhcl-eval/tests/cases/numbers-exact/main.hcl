resource foo {
  body = {
    kind  = "Foo"
    sum   = 0.1 + 0.2
    equal = 0.1 + 0.2 == 0.3
    big   = 9007199254740993
    third = 2 / 3 * 100
  }
}
