# A finding's code is its check's, whatever the names in its headline
# (once guessed from the wording: "switch" and "duplicate" here).
locals {
  switch_a = switch_b
  switch_b = switch_a
}
composite duplicate {
  body = {}
}
context {
  key   = "k"
  value = switch_a
}
