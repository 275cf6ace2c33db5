// hcl-parse-oracle reads JSON lines {"id", "text", "expr"} and prints, for
// each, the first diagnostic hashicorp/hcl's hclsyntax reports for the text
// parsed as a file (ParseConfig) or, with "expr": true, as one expression
// (ParseExpression): {"id", "first"} where first is the diagnostic's
// Error() text or "OK".
package main

import (
	"bufio"
	"encoding/json"
	"os"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

type input struct {
	ID   string `json:"id"`
	Text string `json:"text"`
	Expr bool   `json:"expr"`
}

type output struct {
	ID    string `json:"id"`
	First string `json:"first"`
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<20), 64<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req input
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			panic(err)
		}
		var diags hcl.Diagnostics
		start := hcl.Pos{Line: 1, Column: 1}
		if req.Expr {
			_, diags = hclsyntax.ParseExpression([]byte(req.Text), "main.hcl", start)
		} else {
			_, diags = hclsyntax.ParseConfig([]byte(req.Text), "main.hcl", start)
		}
		first := "OK"
		if len(diags) > 0 {
			first = diags[0].Error()
		}
		if err := out.Encode(output{ID: req.ID, First: first}); err != nil {
			panic(err)
		}
	}
	if err := in.Err(); err != nil {
		panic(err)
	}
}
