// hcl-oracle: evaluates HCL expressions with the reference Go implementation
// (hashicorp/hcl v2 hclsyntax + zclconf/go-cty stdlib, from Debian's packages).
// Input: JSON lines {"id":..., "expr": "...", "vars": {...}} on stdin.
// Output: JSON lines {"id":..., "value": <json>, "type": "<type>"} or {"id":..., "error": "..."}.
// A reference for expression semantics and a source of test vectors; not part of the product.
//
// Project copy of shared/tools/hcl-oracle with two test conventions added
// (the same as `fn-hcl eval --jsonl`): a vars value that is exactly
// {"$unknown": "<type>"} is an unknown value of that type (type syntax as
// Terraform's type() prints it), and {"$sensitive": <json>} is the value
// with the sensitive mark; marked results are reported with
// "sensitive": true.
package main

import (
	"bufio"
	"sort"
	"strings"
	"encoding/json"
	"fmt"
	"os"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/tryfunc"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
	ctyjson "github.com/zclconf/go-cty/cty/json"
	yaml "github.com/zclconf/go-cty-yaml"
)

type in struct {
	ID   string          `json:"id"`
	Expr string          `json:"expr"`
	Vars json.RawMessage `json:"vars"`
}

func convFunc(t cty.Type) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "v", Type: cty.DynamicPseudoType, AllowNull: true, AllowDynamicType: true}},
		Type: func(args []cty.Value) (cty.Type, error) {
			if t == cty.DynamicPseudoType {
				return args[0].Type(), nil
			}
			return t, nil
		},
		Impl: func(args []cty.Value, rt cty.Type) (cty.Value, error) {
			return convert.Convert(args[0], rt)
		},
	})
}

// typeString prints a type on one line the way the conformance vectors do:
// list(string), tuple([string, number]), object({a: string, b: number}), dynamic.
func typeString(t cty.Type) string {
	switch {
	case t == cty.DynamicPseudoType:
		return "dynamic"
	case t.IsPrimitiveType():
		return t.FriendlyName()
	case t.IsListType():
		return "list(" + typeString(t.ElementType()) + ")"
	case t.IsSetType():
		return "set(" + typeString(t.ElementType()) + ")"
	case t.IsMapType():
		return "map(" + typeString(t.ElementType()) + ")"
	case t.IsTupleType():
		parts := []string{}
		for _, et := range t.TupleElementTypes() {
			parts = append(parts, typeString(et))
		}
		return "tuple([" + strings.Join(parts, ", ") + "])"
	case t.IsObjectType():
		names := []string{}
		for n := range t.AttributeTypes() {
			names = append(names, n)
		}
		sort.Strings(names)
		parts := []string{}
		for _, n := range names {
			parts = append(parts, n+": "+typeString(t.AttributeType(n)))
		}
		return "object({" + strings.Join(parts, ", ") + "})"
	}
	return t.FriendlyName()
}

func funcs() map[string]function.Function {
	return map[string]function.Function{
		"abs": stdlib.AbsoluteFunc, "ceil": stdlib.CeilFunc, "floor": stdlib.FloorFunc, "log": stdlib.LogFunc,
		"max": stdlib.MaxFunc, "min": stdlib.MinFunc, "parseint": stdlib.ParseIntFunc, "pow": stdlib.PowFunc,
		"signum": stdlib.SignumFunc, "chomp": stdlib.ChompFunc, "format": stdlib.FormatFunc,
		"formatlist": stdlib.FormatListFunc, "indent": stdlib.IndentFunc, "join": stdlib.JoinFunc,
		"lower": stdlib.LowerFunc, "regex": stdlib.RegexFunc, "regexall": stdlib.RegexAllFunc,
		"split": stdlib.SplitFunc, "strrev": stdlib.ReverseFunc, "substr": stdlib.SubstrFunc,
		"title": stdlib.TitleFunc, "trim": stdlib.TrimFunc, "trimprefix": stdlib.TrimPrefixFunc,
		"trimsuffix": stdlib.TrimSuffixFunc, "trimspace": stdlib.TrimSpaceFunc, "upper": stdlib.UpperFunc,
		"chunklist": stdlib.ChunklistFunc, "coalescelist": stdlib.CoalesceListFunc, "compact": stdlib.CompactFunc,
		"concat": stdlib.ConcatFunc, "contains": stdlib.ContainsFunc, "distinct": stdlib.DistinctFunc,
		"element": stdlib.ElementFunc, "flatten": stdlib.FlattenFunc, "keys": stdlib.KeysFunc,
		"length": stdlib.LengthFunc, "lookup": stdlib.LookupFunc, "merge": stdlib.MergeFunc,
		"range": stdlib.RangeFunc, "reverse": stdlib.ReverseListFunc, "setintersection": stdlib.SetIntersectionFunc,
		"setproduct": stdlib.SetProductFunc, "setsubtract": stdlib.SetSubtractFunc, "setunion": stdlib.SetUnionFunc,
		"slice": stdlib.SliceFunc, "sort": stdlib.SortFunc, "values": stdlib.ValuesFunc, "zipmap": stdlib.ZipmapFunc,
		"csvdecode": stdlib.CSVDecodeFunc, "jsondecode": stdlib.JSONDecodeFunc, "jsonencode": stdlib.JSONEncodeFunc,
		"yamldecode": yaml.YAMLDecodeFunc, "yamlencode": yaml.YAMLEncodeFunc,
		"try": tryfunc.TryFunc, "can": tryfunc.CanFunc,
		"tobool": convFunc(cty.Bool), "tonumber": convFunc(cty.Number), "tostring": convFunc(cty.String),
		"tolist": convFunc(cty.List(cty.DynamicPseudoType)), "toset": convFunc(cty.Set(cty.DynamicPseudoType)),
		"tomap": convFunc(cty.Map(cty.DynamicPseudoType)),
		"formatdate": stdlib.FormatDateFunc, "timeadd": stdlib.TimeAddFunc,
	}
}

// parseType reads a type in type() syntax via HCL's type expressions.
func parseType(s string) (cty.Type, error) {
	h := strings.ReplaceAll(s, ":", "=")
	h = strings.ReplaceAll(h, "dynamic", "any")
	expr, diags := hclsyntax.ParseExpression([]byte(h), "type", hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() {
		return cty.NilType, diags
	}
	t, diags := typeexpr.TypeConstraint(expr)
	if diags.HasErrors() {
		return cty.NilType, diags
	}
	return t, nil
}

// toValue converts decoded JSON (numbers as json.Number) to cty with the
// implied types, honouring $unknown and $sensitive.
func toValue(x any) (cty.Value, error) {
	switch v := x.(type) {
	case nil:
		return cty.NullVal(cty.DynamicPseudoType), nil
	case bool:
		return cty.BoolVal(v), nil
	case string:
		return cty.StringVal(v), nil
	case json.Number:
		return cty.ParseNumberVal(string(v))
	case []any:
		vals := make([]cty.Value, 0, len(v))
		for _, e := range v {
			ev, err := toValue(e)
			if err != nil {
				return cty.NilVal, err
			}
			vals = append(vals, ev)
		}
		return cty.TupleVal(vals), nil
	case map[string]any:
		if len(v) == 1 {
			if t, ok := v["$unknown"].(string); ok {
				ty, err := parseType(t)
				if err != nil {
					return cty.NilVal, err
				}
				return cty.UnknownVal(ty), nil
			}
			if inner, ok := v["$sensitive"]; ok {
				iv, err := toValue(inner)
				if err != nil {
					return cty.NilVal, err
				}
				return iv.Mark("sensitive"), nil
			}
		}
		attrs := map[string]cty.Value{}
		for k, e := range v {
			ev, err := toValue(e)
			if err != nil {
				return cty.NilVal, err
			}
			attrs[k] = ev
		}
		return cty.ObjectVal(attrs), nil
	}
	return cty.NilVal, fmt.Errorf("unsupported JSON value %T", x)
}

func main() {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	out := json.NewEncoder(os.Stdout)
	fns := funcs()
	for sc.Scan() {
		var q in
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			out.Encode(map[string]any{"error": "bad input line: " + err.Error()})
			continue
		}
		ctx := &hcl.EvalContext{Functions: fns, Variables: map[string]cty.Value{}}
		if len(q.Vars) > 0 {
			dec := json.NewDecoder(strings.NewReader(string(q.Vars)))
			dec.UseNumber()
			var raw map[string]any
			if err := dec.Decode(&raw); err == nil {
				for k, x := range raw {
					v, err := toValue(x)
					if err != nil {
						out.Encode(map[string]any{"id": q.ID, "error": "bad vars: " + err.Error()})
						continue
					}
					ctx.Variables[k] = v
				}
			}
		}
		res := map[string]any{"id": q.ID}
		expr, diags := hclsyntax.ParseExpression([]byte(q.Expr), "expr.hcl", hcl.Pos{Line: 1, Column: 1})
		if diags.HasErrors() {
			res["error"] = diags.Error()
			res["phase"] = "parse"
			out.Encode(res)
			continue
		}
		v, diags := expr.Value(ctx)
		if diags.HasErrors() {
			res["error"] = diags.Error()
			res["phase"] = "eval"
			out.Encode(res)
			continue
		}
		v, marks := v.UnmarkDeep()
		if len(marks) > 0 {
			res["sensitive"] = true
		}
		res["type"] = typeString(v.Type())
		if !v.IsWhollyKnown() {
			res["unknown"] = true
			out.Encode(res)
			continue
		}
		b, err := ctyjson.Marshal(v, v.Type())
		if err != nil {
			res["error"] = fmt.Sprintf("marshal: %s", err)
			out.Encode(res)
			continue
		}
		res["value"] = json.RawMessage(b)
		out.Encode(res)
	}
}
