resource r {
  body = { name = upper("x", "y"), j = join(",") }
}
