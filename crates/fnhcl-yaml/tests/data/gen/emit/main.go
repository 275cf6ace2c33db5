// Reads JSON values, one per line; prints what sigs.k8s.io/yaml.Marshal
// (json.Marshal, then go-yaml v2 Unmarshal+Marshal) prints for each.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	yaml "gopkg.in/yaml.v2"
)

func main() {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		var v interface{}
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		j, err := json.Marshal(v)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		var y interface{}
		if err := yaml.Unmarshal(j, &y); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		out, err := yaml.Marshal(y)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("=== %s\n%s", line, out)
	}
}
