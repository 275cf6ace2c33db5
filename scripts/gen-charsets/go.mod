module fnhcl/gen-charsets

go 1.26

require golang.org/x/text v0.11.0
