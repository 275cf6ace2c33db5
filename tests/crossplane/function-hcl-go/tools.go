//go:build tools

package tools

import _ "github.com/crossplane-contrib/function-hcl/function"
