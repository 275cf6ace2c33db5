requirement r {
  locals {
    labels = "app=web"
  }
  select {
    apiVersion  = "v1"
    kind        = "X"
    matchLabels = labels
  }
}
