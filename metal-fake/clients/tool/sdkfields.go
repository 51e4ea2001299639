package main

// Body fields sent by the clients of equinix-sdk-go's metalv1 (metal-cli,
// terraform-provider-equinix): the fields of the request models the
// client's files fill (`x.SetField(...)` on a variable or field of a model's
// type, and keyed fields of model composite literals), attributed to each
// operation the client calls whose body is that model (or a oneOf wrapper
// holding it), nested models' fields under their parent's field.

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// sdkReplies: operation name -> its reply model's type name.
func sdkReplies(dir string) map[string]string {
	fset := token.NewFileSet()
	out := map[string]string{}
	ents, _ := os.ReadDir(dir)
	for _, en := range ents {
		n := en.Name()
		if !strings.HasPrefix(n, "api_") || !strings.HasSuffix(n, ".go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, 0)
		if err != nil {
			continue
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || !strings.HasSuffix(fd.Name.Name, "Execute") || fd.Type.Results == nil || len(fd.Type.Results.List) != 3 {
				continue
			}
			out[strings.TrimSuffix(fd.Name.Name, "Execute")] = typeName(fd.Type.Results.List[0].Type)
		}
	}
	return out
}

// sdkBodies: operation name -> its body model's type name.
func sdkBodies(dir string) map[string]string {
	fset := token.NewFileSet()
	out := map[string]string{}
	fieldType := map[string]map[string]string{} // request type -> field -> type name
	bodyField := map[string]string{}            // op -> request field
	opReq := map[string]string{}                // op -> request type
	ents, _ := os.ReadDir(dir)
	for _, en := range ents {
		n := en.Name()
		if !strings.HasPrefix(n, "api_") || !strings.HasSuffix(n, ".go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, 0)
		if err != nil {
			continue
		}
		for _, d := range f.Decls {
			switch v := d.(type) {
			case *ast.GenDecl:
				for _, sp := range v.Specs {
					ts, ok := sp.(*ast.TypeSpec)
					if !ok {
						continue
					}
					st, ok := ts.Type.(*ast.StructType)
					if !ok {
						continue
					}
					m := map[string]string{}
					for _, fl := range st.Fields.List {
						for _, id := range fl.Names {
							m[id.Name] = typeName(fl.Type)
						}
					}
					fieldType[ts.Name.Name] = m
				}
			case *ast.FuncDecl:
				if v.Recv == nil || v.Body == nil || !strings.HasSuffix(v.Name.Name, "Execute") || len(v.Type.Params.List) != 1 {
					continue
				}
				op := strings.TrimSuffix(v.Name.Name, "Execute")
				opReq[op] = typeName(v.Type.Params.List[0].Type)
				ast.Inspect(v.Body, func(x ast.Node) bool {
					as, ok := x.(*ast.AssignStmt)
					if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
						return true
					}
					if id, ok := as.Lhs[0].(*ast.Ident); ok && id.Name == "localVarPostBody" {
						if sel, ok := as.Rhs[0].(*ast.SelectorExpr); ok {
							bodyField[op] = sel.Sel.Name
						}
					}
					return true
				})
			}
		}
	}
	for op, fld := range bodyField {
		if t := fieldType[opReq[op]][fld]; t != "" {
			out[op] = t
		}
	}
	return out
}

type sdkSet struct {
	file string
	line int
}

// sdkFieldRows: the rows of a client of metalv1.
func sdkFieldRows(root string, files []string, sdkDir string, routes string) []fieldRow {
	p, pfiles := loadPkg(sdkDir)
	tt := buildTypes(p, pfiles)
	bodies := sdkBodies(sdkDir)
	replies := sdkReplies(sdkDir)
	// model -> Go field -> first place the client reads it (Get<Field>())
	got := map[string]map[string]sdkSet{}
	noteGot := func(model, field, file string, line int) {
		if got[model] == nil {
			got[model] = map[string]sdkSet{}
		}
		if _, ok := got[model][field]; !ok {
			got[model][field] = sdkSet{file, line}
		}
	}
	// model -> Go field -> first place the client sets it
	set := map[string]map[string]sdkSet{}
	note := func(model, field, file string, line int) {
		if set[model] == nil {
			set[model] = map[string]sdkSet{}
		}
		if _, ok := set[model][field]; !ok {
			set[model][field] = sdkSet{file, line}
		}
	}
	// the type of a model's field, by name
	fieldOf := func(model, field string) string {
		st, _ := tt.structOf(&ast.Ident{Name: model})
		if st == nil {
			return ""
		}
		for _, fl := range st.Fields.List {
			for _, id := range fl.Names {
				if id.Name == field {
					return typeName(fl.Type)
				}
			}
		}
		return ""
	}
	// constructors: NewFoo -> the fields it sets from its parameters
	ctor := map[string][]string{}
	for _, fd := range p.funcs {
		if fd.Recv != nil || !strings.HasPrefix(fd.Name.Name, "New") || strings.HasSuffix(fd.Name.Name, "WithDefaults") {
			continue
		}
		params := map[string]bool{}
		for _, fl := range fd.Type.Params.List {
			for _, id := range fl.Names {
				params[id.Name] = true
			}
		}
		ast.Inspect(fd.Body, func(x ast.Node) bool {
			as, ok := x.(*ast.AssignStmt)
			if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
				return true
			}
			sel, ok := as.Lhs[0].(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := as.Rhs[0].(*ast.Ident); ok && params[id.Name] {
				ctor[fd.Name.Name] = append(ctor[fd.Name.Name], sel.Sel.Name)
			}
			return true
		})
	}
	// the element model of a model's slice field
	elemOfField := func(model, field string) string {
		st, _ := tt.structOf(&ast.Ident{Name: model})
		if st == nil {
			return ""
		}
		for _, fl := range st.Fields.List {
			for _, id := range fl.Names {
				if id.Name == field {
					if el := tt.elemOf(fl.Type); el != nil {
						return typeName(el)
					}
				}
			}
		}
		return ""
	}
	fset := token.NewFileSet()
	for _, rel := range files {
		f, err := parser.ParseFile(fset, filepath.Join(root, rel), nil, 0)
		if err != nil {
			continue
		}
		alias := ""
		for _, im := range f.Imports {
			pth, _ := strconv.Unquote(im.Path.Value)
			if strings.HasSuffix(pth, "/metalv1") {
				alias = "metalv1"
				if im.Name != nil {
					alias = im.Name.Name
				}
			}
		}
		if alias == "" {
			continue
		}
		isModel := func(x ast.Expr) string {
			switch v := x.(type) {
			case *ast.StarExpr:
				if s, ok := v.X.(*ast.SelectorExpr); ok {
					if id, ok := s.X.(*ast.Ident); ok && id.Name == alias {
						return s.Sel.Name
					}
				}
			case *ast.SelectorExpr:
				if id, ok := v.X.(*ast.Ident); ok && id.Name == alias {
					return v.Sel.Name
				}
			case *ast.ArrayType:
				return ""
			}
			return ""
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			vars := map[string]string{}
			reqs := map[string]string{} // a variable holding an operation's request -> the operation
			// the operation a call chain names, and whether it ends in Execute
			chainOp := func(x ast.Expr) (string, bool) {
				op, exec := "", false
				for {
					c, ok := x.(*ast.CallExpr)
					if !ok {
						break
					}
					s, ok := c.Fun.(*ast.SelectorExpr)
					if !ok {
						break
					}
					if s.Sel.Name == "Execute" || s.Sel.Name == "ExecuteWithPagination" {
						exec = true
					}
					if _, ok := replies[s.Sel.Name]; ok && op == "" {
						op = s.Sel.Name
					}
					if id, ok := s.X.(*ast.Ident); ok && op == "" {
						op = reqs[id.Name]
					}
					x = s.X
				}
				return op, exec
			}
			for _, fl := range fd.Type.Params.List {
				if m := isModel(fl.Type); m != "" {
					for _, id := range fl.Names {
						vars[id.Name] = m
					}
				}
			}
			var typeOf func(x ast.Expr) string
			typeOf = func(x ast.Expr) string {
				switch v := x.(type) {
				case *ast.ParenExpr:
					return typeOf(v.X)
				case *ast.UnaryExpr:
					return typeOf(v.X)
				case *ast.StarExpr:
					return typeOf(v.X)
				case *ast.Ident:
					return vars[v.Name]
				case *ast.CompositeLit:
					return isModel(v.Type)
				case *ast.SelectorExpr:
					if t := typeOf(v.X); t != "" {
						return fieldOf(t, v.Sel.Name)
					}
				case *ast.CallExpr:
					if s, ok := v.Fun.(*ast.SelectorExpr); ok && strings.HasPrefix(s.Sel.Name, "Get") {
						if t := typeOf(s.X); t != "" {
							return fieldOf(t, strings.TrimPrefix(s.Sel.Name, "Get"))
						}
					}
					if s, ok := v.Fun.(*ast.SelectorExpr); ok {
						if id, ok := s.X.(*ast.Ident); ok && id.Name == alias && strings.HasPrefix(s.Sel.Name, "New") {
							n := strings.TrimPrefix(s.Sel.Name, "New")
							n = strings.TrimSuffix(n, "WithDefaults")
							if _, ok := tt.named[n]; ok {
								return n
							}
						}
					}
				}
				return ""
			}
			ast.Inspect(fd.Body, func(x ast.Node) bool {
				switch v := x.(type) {
				case *ast.RangeStmt:
					if c, ok := v.X.(*ast.CallExpr); ok {
						if s, ok := c.Fun.(*ast.SelectorExpr); ok && strings.HasPrefix(s.Sel.Name, "Get") {
							if m := typeOf(s.X); m != "" {
								if el := elemOfField(m, strings.TrimPrefix(s.Sel.Name, "Get")); el != "" {
									if id, ok := v.Value.(*ast.Ident); ok {
										vars[id.Name] = el
									}
								}
							}
						}
					}
				case *ast.AssignStmt:
					if len(v.Rhs) == 1 {
						if op, exec := chainOp(v.Rhs[0]); op != "" {
							if id, ok := v.Lhs[0].(*ast.Ident); ok {
								if exec {
									vars[id.Name] = replies[op]
								} else {
									reqs[id.Name] = op
								}
							}
						}
					}
					if len(v.Lhs) == len(v.Rhs) {
						for i, l := range v.Lhs {
							if id, ok := l.(*ast.Ident); ok {
								if t := typeOf(v.Rhs[i]); t != "" {
									vars[id.Name] = t
								}
							}
						}
					}
				case *ast.ValueSpec:
					if v.Type != nil {
						if m := isModel(v.Type); m != "" {
							for _, id := range v.Names {
								vars[id.Name] = m
							}
						}
					}
				case *ast.CompositeLit:
					if m := isModel(v.Type); m != "" {
						for _, el := range v.Elts {
							if kv, ok := el.(*ast.KeyValueExpr); ok {
								if k, ok := kv.Key.(*ast.Ident); ok {
									note(m, k.Name, rel, fset.Position(kv.Pos()).Line)
								}
							}
						}
					}
				case *ast.CallExpr:
					s, ok := v.Fun.(*ast.SelectorExpr)
					if !ok {
						return true
					}
					if id, ok := s.X.(*ast.Ident); ok && id.Name == alias {
						// a constructor sets the required fields it takes
						m := strings.TrimPrefix(s.Sel.Name, "New")
						for _, fld := range ctor[s.Sel.Name] {
							note(m, fld, rel, fset.Position(v.Pos()).Line)
						}
						return true
					}
					if strings.HasPrefix(s.Sel.Name, "Get") && len(v.Args) == 0 {
						if m := typeOf(s.X); m != "" {
							field := strings.TrimPrefix(s.Sel.Name, "Get")
							if fieldOf(m, field) != "" {
								noteGot(m, field, rel, fset.Position(v.Pos()).Line)
							}
						}
						return true
					}
					if !strings.HasPrefix(s.Sel.Name, "Set") {
						return true
					}
					if m := typeOf(s.X); m != "" {
						field := strings.TrimPrefix(s.Sel.Name, "Set")
						if fieldOf(m, field) != "" {
							note(m, field, rel, fset.Position(v.Pos()).Line)
						}
					}
				}
				return true
			})
		}
	}
	// the client's operations, from its route file
	type route struct{ method, path, via string }
	var ops []route
	b, _ := os.ReadFile(routes)
	for i, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		c := strings.Split(l, "\t")
		if i == 0 || len(c) < 5 {
			continue
		}
		for _, via := range strings.Split(c[4], ",") {
			if parts := strings.SplitN(via, ".", 2); len(parts) == 2 && strings.HasSuffix(parts[0], "Api") {
				ops = append(ops, route{c[0], c[1], parts[1]})
			}
		}
	}
	var rows []fieldRow
	var walk func(model, prefix string, seen map[string]bool, r route)
	walk = func(model, prefix string, seen map[string]bool, r route) {
		if seen[model] {
			return
		}
		seen = copySeen(seen)
		seen[model] = true
		st, _ := tt.structOf(&ast.Ident{Name: model})
		if st == nil {
			return
		}
		// a oneOf wrapper: untagged pointers to models, each its own body
		wrapper := len(st.Fields.List) > 0
		for _, fl := range st.Fields.List {
			if fl.Tag != nil || len(fl.Names) != 1 {
				wrapper = false
			}
		}
		if wrapper {
			for _, fl := range st.Fields.List {
				walk(typeName(fl.Type), prefix, seen, r)
			}
			return
		}
		for _, jf := range tt.jsonFields(p, st) {
			goName := ""
			for _, fl := range st.Fields.List {
				if p.fset.Position(fl.Pos()).Line == jf.line && len(fl.Names) > 0 {
					goName = fl.Names[0].Name
				}
			}
			at, ok := set[model][goName]
			if !ok {
				continue
			}
			path := prefix + jf.name
			rows = append(rows, fieldRow{method: r.method, path: r.path, direction: "sent", field: path, form: tt.form(jf.typ), source: fmt.Sprintf("%s:%d", at.file, at.line), via: model + "." + goName, nullable: tt.nullable(jf.typ), omitempty: jf.omitempty})
			inner := jf.typ
			sub := path
			if el := tt.elemOf(inner); el != nil {
				inner, sub = el, sub+"[]"
			}
			if _, name := tt.structOf(inner); name != "" {
				walk(name, sub+".", seen, r)
			}
		}
	}
	for _, r := range ops {
		if m := bodies[r.via]; m != "" {
			walk(m, "", map[string]bool{}, r)
		}
	}
	// reads: the reply model's fields the client reads, and for a list
	// (`DeviceList`) its items' under the list's field
	readRows := func(model, prefix string, r route) {
		st, _ := tt.structOf(&ast.Ident{Name: model})
		if st == nil {
			return
		}
		for _, jf := range tt.jsonFields(p, st) {
			goName := ""
			for _, fl := range st.Fields.List {
				if p.fset.Position(fl.Pos()).Line == jf.line && len(fl.Names) > 0 {
					goName = fl.Names[0].Name
				}
			}
			at, ok := got[model][goName]
			if !ok {
				continue
			}
			rows = append(rows, fieldRow{method: r.method, path: r.path, direction: "read", field: prefix + jf.name, form: tt.form(jf.typ), source: fmt.Sprintf("%s:%d", at.file, at.line), via: model + "." + goName, nullable: tt.nullable(jf.typ), omitempty: jf.omitempty})
		}
	}
	for _, r := range ops {
		m := replies[r.via]
		if m == "" {
			continue
		}
		readRows(m, "", r)
		if strings.HasSuffix(m, "List") {
			st, _ := tt.structOf(&ast.Ident{Name: m})
			if st == nil {
				continue
			}
			for _, jf := range tt.jsonFields(p, st) {
				if el := tt.elemOf(jf.typ); el != nil {
					readRows(typeName(el), jf.name+"[].", r)
				}
			}
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return false })
	return rows
}
