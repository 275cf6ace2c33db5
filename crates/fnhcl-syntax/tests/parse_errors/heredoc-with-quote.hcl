a = <<EOT
"not a string
EOT
b = "ok"
