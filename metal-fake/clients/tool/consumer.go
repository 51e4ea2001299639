package main

// Consumers: find packngo service calls (client.<Field>.<Method>(...)) and
// metalv1 operation calls (svc.<Op>(ctx, ...).<Builder>(...)...Execute()) in
// a client's Go files, and the query parameters each call site sets.

import (
	"bufio"
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

type idxRow struct{ method, path, query, fixed, src string }

func readPackngoIndex(file string) map[string][]idxRow {
	out := map[string][]idxRow{}
	f, _ := os.Open(file)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		if len(c) < 6 {
			continue
		}
		out[c[0]] = append(out[c[0]], idxRow{c[1], c[2], c[3], c[4], c[5]})
	}
	return out
}

var visiting = map[string]bool{}

// names an options expression sets
func optNames(x ast.Expr, fn ast.Node, depth int) (names []string, unknown bool) {
	if depth > 4 {
		return nil, true
	}
	switch v := x.(type) {
	case *ast.ParenExpr:
		return optNames(v.X, fn, depth)
	case *ast.UnaryExpr:
		return optNames(v.X, fn, depth)
	case *ast.CompositeLit:
		if !strings.HasSuffix(typeName(v.Type), "Options") {
			return nil, false
		}
		for _, el := range v.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				if k, ok := kv.Key.(*ast.Ident); ok {
					if n := optField[k.Name]; n != "" {
						names = append(names, n)
					}
					if k.Name == "QueryParams" {
						if ml, ok := kv.Value.(*ast.CompositeLit); ok {
							for _, me := range ml.Elts {
								if mkv, ok := me.(*ast.KeyValueExpr); ok {
									if l, ok := mkv.Key.(*ast.BasicLit); ok {
										s, _ := strconv.Unquote(l.Value)
										names = append(names, s)
									}
								}
							}
						} else {
							unknown = true
						}
					}
				}
			}
		}
		return names, unknown
	case *ast.CallExpr:
		if sel, ok := v.Fun.(*ast.SelectorExpr); ok {
			switch sel.Sel.Name {
			case "Including", "Excluding", "Filter", "AddParam":
				n, u := optNames(sel.X, fn, depth+1)
				switch sel.Sel.Name {
				case "Including":
					n = append(n, "include")
				case "Excluding":
					n = append(n, "exclude")
				default:
					if len(v.Args) > 0 {
						if l, ok := v.Args[0].(*ast.BasicLit); ok {
							s, _ := strconv.Unquote(l.Value)
							n = append(n, s)
						} else {
							u = true
						}
					}
				}
				return n, u
			case "CopyOrNew", "GetOptions":
				return optNames(sel.X, fn, depth+1)
			}
		}
		return nil, false
	case *ast.Ident:
		if v.Name == "nil" || visiting[v.Name] {
			return nil, false
		}
		visiting[v.Name] = true
		defer delete(visiting, v.Name)
		// assignments to the name in the enclosing function
		found := false
		ast.Inspect(fn, func(n ast.Node) bool {
			switch a := n.(type) {
			case *ast.AssignStmt:
				for i, l := range a.Lhs {
					switch lv := l.(type) {
					case *ast.Ident:
						if lv.Name == v.Name && i < len(a.Rhs) && len(a.Lhs) == len(a.Rhs) {
							nn, u := optNames(a.Rhs[i], fn, depth+1)
							names = append(names, nn...)
							unknown = unknown || u
							found = true
						}
					case *ast.SelectorExpr:
						if id, ok := lv.X.(*ast.Ident); ok && id.Name == v.Name {
							if n := optField[lv.Sel.Name]; n != "" {
								names = append(names, n)
							}
						}
					case *ast.IndexExpr:
						if s, ok := lv.X.(*ast.SelectorExpr); ok && s.Sel.Name == "QueryParams" {
							if id, ok := s.X.(*ast.Ident); ok && id.Name == v.Name {
								if l, ok := lv.Index.(*ast.BasicLit); ok {
									q, _ := strconv.Unquote(l.Value)
									names = append(names, q)
								} else {
									unknown = true
								}
							}
						}
					}
				}
			case *ast.ValueSpec:
				for i, nm := range a.Names {
					if nm.Name == v.Name {
						found = true
						if i < len(a.Values) {
							nn, u := optNames(a.Values[i], fn, depth+1)
							names = append(names, nn...)
							unknown = unknown || u
						}
					}
				}
			}
			return true
		})
		if !found {
			if vs, ok := pkgVars[v.Name]; ok {
				nn, u := optNames(vs, fn, depth+1)
				return append(names, nn...), unknown || u
			}
			unknown = true // a parameter or a field: set by a caller
		}
		return names, unknown
	}
	return nil, false
}

type crow struct {
	method, path, query, src, via string
}

func uniqSorted(xs []string) string {
	m := map[string]bool{}
	for _, x := range xs {
		for _, y := range strings.Split(x, ",") {
			if y != "" {
				m[y] = true
			}
		}
	}
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

func looksCtx(x ast.Expr) bool {
	switch v := x.(type) {
	case *ast.Ident:
		return strings.Contains(strings.ToLower(v.Name), "ctx") || strings.Contains(strings.ToLower(v.Name), "context")
	case *ast.CallExpr:
		if s, ok := v.Fun.(*ast.SelectorExpr); ok {
			if id, ok := s.X.(*ast.Ident); ok && id.Name == "context" {
				return true
			}
			return strings.Contains(strings.ToLower(s.Sel.Name), "context") || strings.Contains(strings.ToLower(s.Sel.Name), "ctx")
		}
	case *ast.SelectorExpr:
		return strings.Contains(strings.ToLower(v.Sel.Name), "ctx") || strings.Contains(strings.ToLower(v.Sel.Name), "context")
	}
	return false
}

// package-level variables of the file's directory (a package)
var pkgVars map[string]ast.Expr

func loadPkgVars(dir string) {
	pkgVars = map[string]ast.Expr{}
	fset := token.NewFileSet()
	ents, _ := os.ReadDir(dir)
	for _, en := range ents {
		if !strings.HasSuffix(en.Name(), ".go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, en.Name()), nil, 0)
		if err != nil {
			continue
		}
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
				for _, sp := range g.Specs {
					vs := sp.(*ast.ValueSpec)
					for i, n := range vs.Names {
						if i < len(vs.Values) {
							pkgVars[n.Name] = vs.Values[i]
						}
					}
				}
			}
		}
	}
}

func scanConsumer(root string, files []string, pidx map[string][]idxRow, fields map[string]bool, ops map[string]*sdkOp, prefix string) []crow {
	var rows []crow
	for _, rel := range files {
		loadPkgVars(filepath.Join(root, filepath.Dir(rel)))
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, filepath.Join(root, rel), nil, 0)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			continue
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			var stack []ast.Node
			ast.Inspect(fd, func(n ast.Node) bool {
				if n == nil {
					stack = stack[:len(stack)-1]
					return true
				}
				stack = append(stack, n)
				c, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := c.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				line := fset.Position(c.Pos()).Line
				src := fmt.Sprintf("%s%s:%d", prefix, rel, line)
				// packngo: X.<Field>.<Method>(...)
				if inner, ok := sel.X.(*ast.SelectorExpr); ok && fields[inner.Sel.Name] {
					via := inner.Sel.Name + "." + sel.Sel.Name
					if ir, ok := pidx[via]; ok {
						var set []string
						unknown := false
						for _, a := range c.Args {
							n, u := optNames(a, fd, 0)
							set = append(set, n...)
							if u && isOptsArg(a) {
								unknown = true
							}
						}
						for _, r := range ir {
							q := uniqSorted(append([]string{r.fixed}, set...))
							if unknown {
								fmt.Fprintf(os.Stderr, "options set by a caller at %s (%s)\n", src, via)
							}
							rows = append(rows, crow{r.method, r.path, q, src, via})
						}
					} else if ops == nil {
						fmt.Fprintf(os.Stderr, "unmatched packngo-like call %s at %s\n", via, src)
					}
				}
				// SDK op
				if o, ok := ops[sel.Sel.Name]; ok && len(c.Args) >= 1 && looksCtx(c.Args[0]) {
					var builders []string
					// ascend the chain
					i := len(stack) - 1
					var top ast.Node = c
					for i-2 >= 0 {
						s, ok1 := stack[i-1].(*ast.SelectorExpr)
						call, ok2 := stack[i-2].(*ast.CallExpr)
						if !ok1 || !ok2 || call.Fun != s || s.X != top {
							break
						}
						builders = append(builders, s.Sel.Name)
						top = call
						i -= 2
					}
					// assigned to a variable: later calls on it in this function
					if i-1 >= 0 {
						var vname string
						switch a := stack[i-1].(type) {
						case *ast.AssignStmt:
							for k, r := range a.Rhs {
								if r == top && k < len(a.Lhs) {
									if id, ok := a.Lhs[k].(*ast.Ident); ok {
										vname = id.Name
									}
								}
							}
						case *ast.ValueSpec:
							for k, r := range a.Values {
								if r == top && k < len(a.Names) {
									vname = a.Names[k].Name
								}
							}
						}
						if vname != "" && vname != "_" {
							ast.Inspect(fd, func(m ast.Node) bool {
								if cc, ok := m.(*ast.CallExpr); ok {
									if s2, ok := cc.Fun.(*ast.SelectorExpr); ok {
										if id, ok := s2.X.(*ast.Ident); ok && id.Name == vname {
											builders = append(builders, s2.Sel.Name)
										}
									}
								}
								return true
							})
						}
					}
					var qs []string
					for _, b := range builders {
						if q, ok := o.builders[b]; ok {
							qs = append(qs, q)
						}
						if b == "ExecuteWithPagination" {
							qs = append(qs, "page")
						}
					}
					rows = append(rows, crow{o.method, o.path, uniqSorted(qs), src, o.api + "." + o.op})
				}
				return true
			})
		}
	}
	return rows
}

func isOptsArg(a ast.Expr) bool {
	switch v := a.(type) {
	case *ast.Ident:
		n := strings.ToLower(v.Name)
		return strings.Contains(n, "opt") || strings.Contains(n, "param") || strings.Contains(n, "filter") || strings.Contains(n, "get") || strings.Contains(n, "list")
	case *ast.SelectorExpr:
		n := strings.ToLower(v.Sel.Name)
		return strings.Contains(n, "opt")
	}
	return false
}
