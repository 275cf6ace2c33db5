requirement answered-empty {
  select {
    apiVersion = "v1"
    kind       = "X"
    matchName  = "a"
  }
}

requirement not-answered {
  select {
    apiVersion = "v1"
    kind       = "X"
    matchName  = "b"
  }
}

resource counts {
  body = {
    kind  = "Counts"
    empty = length(req.extra_resources.answered-empty)
  }
}

resource needs-answer {
  body = {
    kind = "Needs"
    name = req.extra_resources.not-answered[0].metadata.name
  }
}
