package main

// Body fields sent and reply fields read, for packngo: the Go type of each
// DoRequest's body and reply arguments (followed through forwarders as the
// paths are), walked through its json tags into one row per field and the
// JSON form encoding/json gives it.

import (
	"go/ast"
	"go/token"
	"sort"
	"strconv"
	"strings"
)

// tref: what a body or reply argument is, as far as the tool can tell.
type tref struct {
	expr  ast.Expr          // a Go type expression, in the package
	lit   *ast.CompositeLit // a literal (a map's keys, a struct's constant fields)
	param int               // >=0: the enclosing function's parameter (in forwarders)
}

var noRef = tref{param: -1}

// types: the package's named types, and which decode themselves.
type typeTable struct {
	named  map[string]ast.Expr
	custom map[string]bool // has UnmarshalJSON
	file   map[string]string
	line   map[string]int
}

func buildTypes(p *pkg, files map[string]*ast.File) *typeTable {
	t := &typeTable{named: map[string]ast.Expr{}, custom: map[string]bool{}, file: map[string]string{}, line: map[string]int{}}
	for name, f := range files {
		for _, d := range f.Decls {
			switch v := d.(type) {
			case *ast.GenDecl:
				if v.Tok != token.TYPE {
					continue
				}
				for _, sp := range v.Specs {
					ts := sp.(*ast.TypeSpec)
					t.named[ts.Name.Name] = ts.Type
					t.file[ts.Name.Name] = name
					t.line[ts.Name.Name] = p.fset.Position(ts.Pos()).Line
				}
			case *ast.FuncDecl:
				if v.Recv != nil && v.Name.Name == "UnmarshalJSON" {
					t.custom[recvType(v)] = true
				}
			}
		}
	}
	return t
}

// customForm: the JSON form of the types that decode themselves.
var customForm = map[string]string{
	"Timestamp":          "timestamp", // RFC 3339 text, or a Unix integer
	"BandwidthIO":        "array",     // [inbound, outbound]
	"Datapoint":          "array",     // [rate, when]
	"ReservationPricing": "object",
	// equinix-sdk-go's nullable wrappers, which encode their value
	"NullableString":  "string",
	"NullableInt32":   "integer",
	"NullableInt64":   "integer",
	"NullableFloat32": "number",
	"NullableBool":    "bool",
	"NullableTime":    "timestamp",
}

func basicForm(n string) string {
	switch n {
	case "string":
		return "string"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "integer"
	case "float32", "float64":
		return "number"
	case "bool":
		return "bool"
	case "any":
		return "any"
	}
	return ""
}

// form: the JSON form of a Go type expression.
func (t *typeTable) form(x ast.Expr) string {
	switch v := x.(type) {
	case *ast.StarExpr:
		return t.form(v.X)
	case *ast.ParenExpr:
		return t.form(v.X)
	case *ast.Ident:
		if f := basicForm(v.Name); f != "" {
			return f
		}
		if f, ok := customForm[v.Name]; ok {
			return f
		}
		if u, ok := t.named[v.Name]; ok {
			return t.form(u)
		}
		return "?" + v.Name
	case *ast.SelectorExpr:
		switch typeName(v.X) + "." + v.Sel.Name {
		case "time.Time":
			return "timestamp"
		case "json.RawMessage":
			return "any"
		}
		return "?" + v.Sel.Name
	case *ast.ArrayType:
		if id, ok := v.Elt.(*ast.Ident); ok && id.Name == "byte" {
			return "string" // base64
		}
		return "array-of-" + t.form(v.Elt)
	case *ast.MapType:
		return "object-of-" + t.form(v.Value)
	case *ast.InterfaceType:
		return "any"
	case *ast.StructType:
		return "object"
	}
	return "?"
}

// nullable: whether the Go type takes JSON null as "none" (a pointer, a
// slice, a map, an interface); encoding/json ignores null for any other.
func (t *typeTable) nullable(x ast.Expr) bool {
	switch v := x.(type) {
	case *ast.StarExpr, *ast.ArrayType, *ast.MapType, *ast.InterfaceType:
		return true
	case *ast.Ident:
		if u, ok := t.named[v.Name]; ok && !customForm2(v.Name) {
			return t.nullable(u)
		}
	}
	return false
}

func customForm2(n string) bool { _, ok := customForm[n]; return ok }

// structOf: the struct a type expression names, with its name ("" for an
// anonymous one); nil for anything else (and for types that decode
// themselves).
func (t *typeTable) structOf(x ast.Expr) (*ast.StructType, string) {
	switch v := x.(type) {
	case *ast.StarExpr:
		return t.structOf(v.X)
	case *ast.Ident:
		if customForm2(v.Name) {
			return nil, ""
		}
		if u, ok := t.named[v.Name]; ok {
			s, _ := t.structOf(u)
			return s, v.Name
		}
	case *ast.StructType:
		return v, ""
	}
	return nil, ""
}

// elemOf: the element type of a slice (through pointers and names).
func (t *typeTable) elemOf(x ast.Expr) ast.Expr {
	switch v := x.(type) {
	case *ast.StarExpr:
		return t.elemOf(v.X)
	case *ast.Ident:
		if u, ok := t.named[v.Name]; ok && !customForm2(v.Name) {
			return t.elemOf(u)
		}
	case *ast.ArrayType:
		return v.Elt
	}
	return nil
}

type jfield struct {
	depth     int // 0 for the struct's own, 1 and more for embedded structs'
	name      string
	typ       ast.Expr
	omitempty bool
	line      int
	file      string
}

// jsonFields: a struct's fields as encoding/json sees them (embedded
// structs inlined, `json:"-"` and unexported fields left out; of two of
// one name the shallower wins, as in encoding/json).
func (t *typeTable) jsonFields(p *pkg, s *ast.StructType) []jfield {
	all := t.jsonFieldsAll(p, s)
	best := map[string]int{}
	for _, f := range all {
		if d, ok := best[f.name]; !ok || f.depth < d {
			best[f.name] = f.depth
		}
	}
	var out []jfield
	for _, f := range all {
		if best[f.name] == f.depth {
			out = append(out, f)
			best[f.name] = -1 // once
		}
	}
	return out
}

func (t *typeTable) jsonFieldsAll(p *pkg, s *ast.StructType) []jfield {
	var out []jfield
	for _, f := range s.Fields.List {
		tag := ""
		if f.Tag != nil {
			raw, _ := strconv.Unquote(f.Tag.Value)
			tag = reflectTag(raw, "json")
		}
		parts := strings.Split(tag, ",")
		name, omit := parts[0], false
		for _, o := range parts[1:] {
			if o == "omitempty" {
				omit = true
			}
		}
		if name == "-" && len(parts) == 1 {
			continue
		}
		pos := p.fset.Position(f.Pos())
		if len(f.Names) == 0 { // embedded
			if name == "" {
				if st, _ := t.structOf(f.Type); st != nil {
					for _, inner := range t.jsonFieldsAll(p, st) {
						inner.depth++
						out = append(out, inner)
					}
					continue
				}
			}
			n := typeName(f.Type)
			if name == "" {
				name = n
			}
			out = append(out, jfield{name: name, typ: f.Type, omitempty: omit, line: pos.Line, file: pos.Filename})
			continue
		}
		for _, id := range f.Names {
			if !ast.IsExported(id.Name) {
				continue
			}
			n := name
			if n == "" {
				n = id.Name
			}
			out = append(out, jfield{name: n, typ: f.Type, omitempty: omit, line: pos.Line, file: pos.Filename})
		}
	}
	return out
}

func reflectTag(tag, key string) string {
	for tag != "" {
		i := strings.Index(tag, ":")
		if i < 0 {
			return ""
		}
		k := strings.TrimSpace(tag[:i])
		rest := tag[i+1:]
		if !strings.HasPrefix(rest, `"`) {
			return ""
		}
		j := 1
		for j < len(rest) && rest[j] != '"' {
			if rest[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(rest) {
			return ""
		}
		v, _ := strconv.Unquote(rest[:j+1])
		if k == key {
			return v
		}
		tag = rest[j+1:]
	}
	return ""
}

// frow: one field of a body or a reply.
type frow struct {
	field, form, value, file string
	line                     int
	nullable, omitempty      bool
}

// expand: the rows of a type. Sent bodies are walked whole (a type met
// again on the way is not entered twice); replies are walked through their
// unexported wrappers (`devicesRoot`) and anonymous structs, into the
// first exported type (the resource) and its own fields, not further:
// below it only each field's JSON form is given.
func (t *typeTable) expand(p *pkg, x ast.Expr, prefix string, sent bool, inResource bool, seen map[string]bool, out *[]frow) {
	st, name := t.structOf(x)
	if st == nil {
		return
	}
	if name != "" {
		if seen[name] {
			return
		}
		seen = copySeen(seen)
		seen[name] = true
	}
	for _, f := range t.jsonFields(p, st) {
		path := prefix + f.name
		*out = append(*out, frow{field: path, form: t.form(f.typ), file: baseName(f.file), line: f.line, nullable: t.nullable(f.typ), omitempty: f.omitempty})
		t.descend(p, f.typ, path, sent, inResource, seen, out)
	}
}

func (t *typeTable) descend(p *pkg, typ ast.Expr, path string, sent, inResource bool, seen map[string]bool, out *[]frow) {
	if el := t.elemOf(typ); el != nil {
		typ, path = el, path+"[]"
	}
	st, name := t.structOf(typ)
	if st == nil {
		return
	}
	exported := name == "" || ast.IsExported(name)
	switch {
	case sent:
		t.expand(p, typ, path+".", sent, inResource, seen, out)
	case name == "" || !ast.IsExported(name):
		t.expand(p, typ, path+".", sent, inResource, seen, out)
	case exported && !inResource:
		t.expand(p, typ, path+".", sent, true, seen, out)
	}
}

func copySeen(m map[string]bool) map[string]bool {
	c := map[string]bool{}
	for k, v := range m {
		c[k] = v
	}
	return c
}

func baseName(f string) string {
	if i := strings.LastIndex(f, "/"); i >= 0 {
		return f[i+1:]
	}
	return f
}

// rowsOf: the rows of a body or reply reference.
func (t *typeTable) rowsOf(p *pkg, r tref, sent bool) []frow {
	var out []frow
	if r.lit != nil {
		pos := p.fset.Position(r.lit.Pos())
		if _, ok := r.lit.Type.(*ast.MapType); ok {
			for _, el := range r.lit.Elts {
				kv, ok := el.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				k, ok := kv.Key.(*ast.BasicLit)
				if !ok {
					continue
				}
				name, _ := strconv.Unquote(k.Value)
				form, value := litForm(kv.Value)
				out = append(out, frow{field: name, form: form, value: value, file: baseName(pos.Filename), line: p.fset.Position(kv.Pos()).Line})
			}
			return out
		}
		// a struct literal: its type's rows, with the constants it sets
		consts := map[string]string{}
		if st, _ := t.structOf(r.lit.Type); st != nil {
			fields := t.jsonFields(p, st)
			for i, el := range r.lit.Elts {
				var key string
				var val ast.Expr
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					if id, ok := kv.Key.(*ast.Ident); ok {
						key, val = id.Name, kv.Value
					}
				} else if i < len(st.Fields.List) {
					fl := st.Fields.List[i]
					if len(fl.Names) > 0 {
						key = fl.Names[0].Name
					} else if inner, ok := el.(*ast.CompositeLit); ok {
						// an embedded struct given positionally: its constants
						for _, row := range t.rowsOf(p, tref{lit: inner, param: -1}, sent) {
							if row.value != "" {
								consts[row.field] = row.value
							}
						}
					}
					val = el
				}
				if key == "" || val == nil {
					continue
				}
				if _, v := litForm(val); v != "" {
					for _, fl := range st.Fields.List {
						for _, id := range fl.Names {
							if id.Name == key {
								for _, jf := range fields {
									if jf.line == p.fset.Position(fl.Pos()).Line {
										consts[jf.name] = v
									}
								}
							}
						}
					}
				}
			}
		}
		t.expand(p, r.lit.Type, "", sent, false, map[string]bool{}, &out)
		for i := range out {
			out[i].value = consts[out[i].field]
		}
		return out
	}
	if r.expr != nil {
		if _, name := t.structOf(r.expr); name == "" || !ast.IsExported(name) {
			t.expand(p, r.expr, "", sent, false, map[string]bool{}, &out)
		} else {
			t.expand(p, r.expr, "", sent, true, map[string]bool{}, &out)
		}
		if len(out) == 0 && !sent {
			// a reply that is not a struct: a list or a map at the top
			if el := t.elemOf(r.expr); el != nil {
				out = append(out, frow{field: "[]", form: t.form(r.expr)})
				t.expand(p, el, "[].", sent, true, map[string]bool{}, &out)
			}
		}
	}
	return out
}

// litForm: the form and, for a constant, the value of a literal.
func litForm(x ast.Expr) (string, string) {
	switch v := x.(type) {
	case *ast.BasicLit:
		switch v.Kind {
		case token.STRING:
			s, _ := strconv.Unquote(v.Value)
			return "string", s
		case token.INT:
			return "integer", v.Value
		case token.FLOAT:
			return "number", v.Value
		}
	case *ast.Ident:
		if v.Name == "true" || v.Name == "false" {
			return "bool", v.Name
		}
	}
	return "?", ""
}

// typeOf: what an argument expression is, in a function's environment.
func (e *fenv) typeOf(x ast.Expr) tref {
	switch v := x.(type) {
	case *ast.ParenExpr:
		return e.typeOf(v.X)
	case *ast.UnaryExpr:
		return e.typeOf(v.X)
	case *ast.StarExpr:
		return e.typeOf(v.X)
	case *ast.CompositeLit:
		return tref{lit: v, param: -1}
	case *ast.CallExpr:
		if id, ok := v.Fun.(*ast.Ident); ok && id.Name == "new" && len(v.Args) == 1 {
			return tref{expr: v.Args[0], param: -1}
		}
	case *ast.Ident:
		if r, ok := e.types[v.Name]; ok {
			return r
		}
		if i, ok := e.params[v.Name]; ok {
			return tref{expr: e.ptexprs[i], param: i}
		}
	}
	return noRef
}

// noteType: records what a variable holds after an assignment or a
// declaration.
func (e *fenv) noteType(name string, rhs ast.Expr, declared ast.Expr) {
	if e.types == nil {
		e.types = map[string]tref{}
	}
	if declared != nil {
		e.types[name] = tref{expr: declared, param: -1}
		return
	}
	if r := e.typeOf(rhs); r.expr != nil || r.lit != nil {
		e.types[name] = r
	}
}

// fieldRows: for each exported service method, the rows of its requests'
// bodies and replies.
type fieldRow struct {
	method, path, direction, field, form, value, source, via string
	nullable, omitempty                                      bool
}

func packngoFieldRows(dir string) []fieldRow {
	p, files := loadPkg(dir)
	p.computeForwarders()
	fields := serviceFields(files)
	tt := buildTypes(p, files)
	var rows []fieldRow
	for _, fd := range p.funcs {
		rt := recvType(fd)
		if !ast.IsExported(fd.Name.Name) || !strings.HasSuffix(rt, "ServiceOp") {
			continue
		}
		e := newEnv(p, fd)
		file := baseName(p.fset.Position(fd.Pos()).Filename)
		via := fields[rt]
		if via == "" {
			via = rt
		}
		for _, s := range e.walk(fd.Body, file) {
			pth, _, _ := resolve(e, s)
			for _, dir := range []string{"sent", "read"} {
				r := s.body
				if dir == "read" {
					r = s.reply
				}
				for _, fr := range tt.rowsOf(p, r, dir == "sent") {
					rows = append(rows, fieldRow{method: s.method, path: pth, direction: dir, field: fr.field, form: fr.form, value: fr.value, source: fr.file + ":" + strconv.Itoa(fr.line), via: via + "." + fd.Name.Name, nullable: fr.nullable, omitempty: fr.omitempty})
				}
			}
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return false })
	return rows
}
