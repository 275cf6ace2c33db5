a = <<EOT
hello ${b}
EOT
c = 1 2
