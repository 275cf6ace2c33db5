module fnhcl/gen-gzip-corpus

go 1.20
