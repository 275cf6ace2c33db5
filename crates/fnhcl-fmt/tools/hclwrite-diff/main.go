// Prints hclwrite.Format(stdin): the reference for run.sh.
package main

import (
	"io"
	"os"

	"github.com/hashicorp/hcl/v2/hclwrite"
)

func main() {
	src, _ := io.ReadAll(os.Stdin)
	os.Stdout.Write(hclwrite.Format(src))
}
