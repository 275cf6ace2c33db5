a = b<<EOT
c = 1
