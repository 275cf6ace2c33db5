locals {
  bad_sum   = 1 + "a"
  guarded   = try(jsondecode("{"), {})
  fine      = upper("x")
  in_object = { ok = req.composite.metadata.name, broken = jsondecode("{") }
  in_for    = [for x in req.composite.spec.items : x if length(5) > 0]
  tmpl      = "n-${tonumber("x")}"
}
context {
  key   = "k"
  value = [bad_sum, guarded, fine, in_object, in_for, tmpl]
}
