package main

// equinix-sdk-go metalv1: operation -> method, path template, builder -> query name.

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

type sdkOp struct {
	api, op, method, path, file string
	line                        int
	builders                    map[string]string // builder method -> query param name
	paginated                   bool
}

func sdkOps(dir string) map[string]*sdkOp {
	fset := token.NewFileSet()
	ops := map[string]*sdkOp{}               // op name
	fieldQ := map[string]map[string]string{} // request type -> field -> query
	bField := map[string]map[string]string{} // request type -> builder -> field
	paged := map[string]bool{}
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
			if !ok || fd.Recv == nil || fd.Body == nil {
				continue
			}
			rt := typeName(fd.Recv.List[0].Type)
			name := fd.Name.Name
			if strings.HasSuffix(rt, "ApiService") && strings.HasSuffix(name, "Execute") && len(fd.Type.Params.List) == 1 {
				op := strings.TrimSuffix(name, "Execute")
				reqT := typeName(fd.Type.Params.List[0].Type)
				o := &sdkOp{api: strings.TrimSuffix(rt, "Service"), op: op, file: n, line: fset.Position(fd.Pos()).Line}
				fq := map[string]string{}
				ast.Inspect(fd.Body, func(x ast.Node) bool {
					switch v := x.(type) {
					case *ast.ValueSpec:
						if len(v.Names) == 1 && v.Names[0].Name == "localVarHTTPMethod" && len(v.Values) == 1 {
							if s, ok := v.Values[0].(*ast.SelectorExpr); ok {
								o.method = strings.ToUpper(strings.TrimPrefix(s.Sel.Name, "Method"))
							}
						}
					case *ast.AssignStmt:
						if id, ok := v.Lhs[0].(*ast.Ident); ok && id.Name == "localVarPath" && v.Tok == token.DEFINE {
							if b, ok := v.Rhs[0].(*ast.BinaryExpr); ok {
								if l, ok := b.Y.(*ast.BasicLit); ok {
									o.path, _ = strconv.Unquote(l.Value)
								}
							}
						}
					case *ast.CallExpr:
						if id, ok := v.Fun.(*ast.Ident); ok && id.Name == "parameterAddToHeaderOrQuery" && len(v.Args) >= 3 {
							if q, ok := v.Args[0].(*ast.Ident); ok && q.Name == "localVarQueryParams" {
								if l, ok := v.Args[1].(*ast.BasicLit); ok {
									qn, _ := strconv.Unquote(l.Value)
									fld := ""
									switch a := v.Args[2].(type) {
									case *ast.SelectorExpr:
										fld = a.Sel.Name
									case *ast.StarExpr:
										if s, ok := a.X.(*ast.SelectorExpr); ok {
											fld = s.Sel.Name
										}
									}
									if fld != "" {
										fq[fld] = qn
									} else {
										fq["?"+qn] = qn
									}
								}
							}
						}
					}
					return true
				})
				// some generated code adds list parameters element by element: t := *r.field ... parameterAddToHeaderOrQuery(.., "name", s.Index(i)...)
				ast.Inspect(fd.Body, func(x ast.Node) bool {
					ifs, ok := x.(*ast.IfStmt)
					if !ok {
						return true
					}
					be, ok := ifs.Cond.(*ast.BinaryExpr)
					if !ok {
						return true
					}
					sel, ok := be.X.(*ast.SelectorExpr)
					if !ok {
						return true
					}
					ast.Inspect(ifs.Body, func(y ast.Node) bool {
						c, ok := y.(*ast.CallExpr)
						if !ok {
							return true
						}
						if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "parameterAddToHeaderOrQuery" && len(c.Args) >= 2 {
							if q, ok := c.Args[0].(*ast.Ident); ok && q.Name == "localVarQueryParams" {
								if l, ok := c.Args[1].(*ast.BasicLit); ok {
									qn, _ := strconv.Unquote(l.Value)
									if _, seen := fq[sel.Sel.Name]; !seen {
										fq[sel.Sel.Name] = qn
									}
								}
							}
						}
						return true
					})
					return true
				})
				fieldQ[reqT] = fq
				ops[op] = o
				ops[op].builders = map[string]string{}
				ops["\x00"+reqT] = o
				continue
			}
			if strings.HasPrefix(rt, "Api") && strings.HasSuffix(rt, "Request") {
				if name == "ExecuteWithPagination" {
					paged[rt] = true
					continue
				}
				// builder: r.field = arg
				if len(fd.Body.List) >= 1 {
					if as, ok := fd.Body.List[0].(*ast.AssignStmt); ok {
						if s, ok := as.Lhs[0].(*ast.SelectorExpr); ok {
							if bField[rt] == nil {
								bField[rt] = map[string]string{}
							}
							bField[rt][name] = s.Sel.Name
						}
					}
				}
			}
		}
	}
	out := map[string]*sdkOp{}
	for k, o := range ops {
		if !strings.HasPrefix(k, "\x00") {
			continue
		}
		reqT := k[1:]
		for b, fld := range bField[reqT] {
			if q, ok := fieldQ[reqT][fld]; ok {
				o.builders[b] = q
			}
		}
		o.paginated = paged[reqT]
		out[o.op] = o
	}
	return out
}
