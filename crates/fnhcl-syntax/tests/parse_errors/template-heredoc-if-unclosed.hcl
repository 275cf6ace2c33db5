a = <<EOT
%{ if x }y
EOT
