// Reads YAML documents separated by lines "#---#"; prints each as JSON the
// way sigs.k8s.io/yaml.YAMLToJSON does (go-yaml v2, keys made strings).
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	yaml "gopkg.in/yaml.v2"
)

func conv(v interface{}) (interface{}, error) {
	switch t := v.(type) {
	case map[interface{}]interface{}:
		m := map[string]interface{}{}
		for k, val := range t {
			var ks string
			switch kk := k.(type) {
			case string:
				ks = kk
			case int:
				ks = strconv.Itoa(kk)
			case int64:
				ks = strconv.FormatInt(kk, 10)
			case uint64:
				ks = strconv.FormatUint(kk, 10)
			case float64:
				ks = strconv.FormatFloat(kk, 'g', -1, 64)
			case bool:
				ks = strconv.FormatBool(kk)
			case nil:
				ks = "null"
			default:
				return nil, fmt.Errorf("unsupported key %v", k)
			}
			c, err := conv(val)
			if err != nil {
				return nil, err
			}
			m[ks] = c
		}
		return m, nil
	case []interface{}:
		out := make([]interface{}, len(t))
		for i, e := range t {
			c, err := conv(e)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	}
	return v, nil
}

func main() {
	b, _ := io.ReadAll(os.Stdin)
	for _, doc := range strings.Split(string(b), "#---#\n") {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		var v interface{}
		out := ""
		if err := yaml.Unmarshal([]byte(doc), &v); err != nil {
			out = "ERROR"
		} else if c, err := conv(v); err != nil {
			out = "ERROR"
		} else if j, err := json.Marshal(c); err != nil {
			out = "ERROR"
		} else {
			out = string(j)
		}
		fmt.Printf("#---#\n%s=> %s\n", doc, out)
	}
}
