//go:build tools

package tools

import _ "github.com/wompipomp/function-starlark"
