a = <<
abc
