a = 1
b = <<EOT
c
