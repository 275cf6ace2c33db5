resource {
  body = {}
}
group extra {
}
