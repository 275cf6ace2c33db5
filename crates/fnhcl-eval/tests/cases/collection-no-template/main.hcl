resources buckets {
  for_each = [1]
}
