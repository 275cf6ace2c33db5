composite status {
  body = {
    bucketCount = length(names)
  }
}
