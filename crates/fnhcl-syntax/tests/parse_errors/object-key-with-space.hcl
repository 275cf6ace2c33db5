a = {
  nx ame = 1
}
