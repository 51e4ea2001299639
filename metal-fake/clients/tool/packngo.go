package main

// Route extraction for packngo: an abstract interpretation of each function's
// path expressions (string literals, *BasePath constants, path.Join,
// fmt.Sprintf, "+"), followed through helper functions that pass a path on to
// Client.DoRequest.

import (
	"go/ast"
	"go/token"
	"strconv"
	"strings"
)

type partKind int

const (
	pLit partKind = iota
	pParam
	pUnknown
)

type part struct {
	k     partKind
	s     string // literal text, or placeholder name
	param int    // parameter index for pParam
}

type qitem struct {
	name  string // literal query name
	param int    // >=0: options from parameter index
	ptype string // type of that parameter
}

type sym struct {
	parts []part
	query []qitem
}

func lit(s string) sym { return sym{parts: []part{{k: pLit, s: s}}} }

func concat(xs ...sym) sym {
	var out sym
	for _, x := range xs {
		out.parts = append(out.parts, x.parts...)
		out.query = append(out.query, x.query...)
	}
	return out
}

// product of alternatives
func cross(alts [][]sym, f func([]sym) sym) []sym {
	res := []sym{}
	var rec func(i int, cur []sym)
	rec = func(i int, cur []sym) {
		if len(res) > 16 {
			return
		}
		if i == len(alts) {
			c := make([]sym, len(cur))
			copy(c, cur)
			res = append(res, f(c))
			return
		}
		for _, a := range alts[i] {
			rec(i+1, append(cur, a))
		}
	}
	rec(0, nil)
	return res
}

type fwd struct { // a helper that forwards a path to DoRequest
	methodArg int    // -1 if literal
	method    string // literal method
	path      sym    // in terms of the helper's params
	pageLoop  bool
	line      int // line of the DoRequest inside (unused for rows)
	body      tref
	reply     tref
	recv      string // the helper's receiver type ("" for a function)
}

type pkg struct {
	fset   *token.FileSet
	consts map[string]string
	funcs  []*ast.FuncDecl
	fwds   map[string][]fwd // key: func name (method name) -> forwarders
	encode map[string][]string
	root   string
}

type fenv struct {
	p       *pkg
	params  map[string]int
	ptypes  []string
	pnames  []string
	recv    string
	vars    map[string][]sym
	depth   map[string]int
	types   map[string]tref // what each variable holds (fields.go)
	ptexprs []ast.Expr      // parameter type expressions
}

func typeName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return typeName(t.X)
	case *ast.Ident:
		return t.Name
	case *ast.SelectorExpr:
		return t.Sel.Name
	case *ast.Ellipsis:
		return "..." + typeName(t.Elt)
	}
	return "?"
}

func (e *fenv) eval(x ast.Expr) []sym {
	switch v := x.(type) {
	case *ast.BasicLit:
		if v.Kind == token.STRING {
			s, _ := strconv.Unquote(v.Value)
			return []sym{lit(s)}
		}
		return []sym{lit(v.Value)}
	case *ast.ParenExpr:
		return e.eval(v.X)
	case *ast.UnaryExpr:
		return e.eval(v.X)
	case *ast.StarExpr:
		return e.eval(v.X)
	case *ast.Ident:
		if alts, ok := e.vars[v.Name]; ok {
			return alts
		}
		if i, ok := e.params[v.Name]; ok {
			return []sym{{parts: []part{{k: pParam, s: v.Name, param: i}}, query: []qitem{{param: i, ptype: e.ptypes[i]}}}}
		}
		if c, ok := e.p.consts[v.Name]; ok {
			return []sym{lit(c)}
		}
		if v.Name == "nil" {
			return []sym{{}}
		}
		return []sym{{parts: []part{{k: pUnknown, s: v.Name}}}}
	case *ast.SelectorExpr:
		if id, ok := v.X.(*ast.Ident); ok && id.Name == "http" && strings.HasPrefix(v.Sel.Name, "Method") {
			return []sym{lit(strings.ToUpper(strings.TrimPrefix(v.Sel.Name, "Method")))}
		}
		// field of something: a placeholder named after the field
		return []sym{{parts: []part{{k: pUnknown, s: v.Sel.Name}}}}
	case *ast.BinaryExpr:
		if v.Op == token.ADD {
			return cross([][]sym{e.eval(v.X), e.eval(v.Y)}, func(a []sym) sym { return concat(a...) })
		}
	case *ast.CompositeLit:
		s := sym{}
		tn := typeName(v.Type)
		if strings.HasSuffix(tn, "Options") {
			for _, el := range v.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					if k, ok := kv.Key.(*ast.Ident); ok {
						if n := optField[k.Name]; n != "" {
							s.query = append(s.query, qitem{name: n, param: -1})
						}
						if k.Name == "QueryParams" {
							if ml, ok := kv.Value.(*ast.CompositeLit); ok {
								for _, me := range ml.Elts {
									if mkv, ok := me.(*ast.KeyValueExpr); ok {
										for _, a := range e.eval(mkv.Key) {
											s.query = append(s.query, qitem{name: flat(a), param: -1})
										}
									}
								}
							}
						}
					}
				}
			}
		}
		return []sym{s}
	case *ast.CallExpr:
		return e.evalCall(v)
	}
	return []sym{{parts: []part{{k: pUnknown, s: "expr"}}}}
}

var optField = map[string]string{"Includes": "include", "Excludes": "exclude", "Page": "page", "PerPage": "per_page", "Search": "search", "SortBy": "sort_by", "SortDirection": "sort_direction"}

func flat(s sym) string {
	var b strings.Builder
	for _, p := range s.parts {
		if p.k == pLit {
			b.WriteString(p.s)
		} else {
			b.WriteString("{" + p.s + "}")
		}
	}
	return b.String()
}

func (e *fenv) evalCall(c *ast.CallExpr) []sym {
	args := make([][]sym, len(c.Args))
	for i, a := range c.Args {
		args[i] = e.eval(a)
	}
	switch f := c.Fun.(type) {
	case *ast.SelectorExpr:
		if id, ok := f.X.(*ast.Ident); ok && (id.Name == "path" || id.Name == "fmt" || id.Name == "strconv" || id.Name == "url" || id.Name == "strings") {
			switch id.Name + "." + f.Sel.Name {
			case "path.Join":
				return cross(args, func(a []sym) sym {
					var out []sym
					for i, x := range a {
						if i > 0 {
							out = append(out, lit("/"))
						}
						out = append(out, x)
					}
					return concat(out...)
				})
			case "fmt.Sprintf":
				if len(c.Args) == 0 {
					break
				}
				return cross(args, func(a []sym) sym {
					format := flat(a[0])
					var out []sym
					ai := 1
					for i := 0; i < len(format); i++ {
						if format[i] == '%' && i+1 < len(format) {
							if format[i+1] == '%' {
								out = append(out, lit("%"))
							} else if ai < len(a) {
								out = append(out, a[ai])
								ai++
							}
							i++
							continue
						}
						out = append(out, lit(string(format[i])))
					}
					return concat(out...)
				})
			default:
				if len(args) > 0 { // conversions and escapes keep the placeholder
					return args[0]
				}
			}
		}
		recv := e.eval(f.X)
		switch f.Sel.Name {
		case "WithQuery":
			return cross([][]sym{args[0], recv}, func(a []sym) sym {
				return sym{parts: a[0].parts, query: append(append([]qitem{}, a[0].query...), a[1].query...)}
			})
		case "Including", "Excluding":
			n := map[string]string{"Including": "include", "Excluding": "exclude"}[f.Sel.Name]
			return cross([][]sym{recv}, func(a []sym) sym {
				return sym{query: append(append([]qitem{}, a[0].query...), qitem{name: n, param: -1})}
			})
		case "Filter", "AddParam":
			return cross([][]sym{recv, args[0]}, func(a []sym) sym {
				return sym{query: append(append([]qitem{}, a[0].query...), qitem{name: flat(a[1]), param: -1})}
			})
		case "CopyOrNew", "GetOptions":
			return recv
		}
		return []sym{{parts: []part{{k: pUnknown, s: f.Sel.Name + "()"}}}}
	case *ast.Ident:
		if f.Name == "string" && len(args) == 1 {
			return args[0]
		}
	}
	return []sym{{parts: []part{{k: pUnknown, s: "call"}}}}
}

type site struct {
	method string
	path   sym
	line   int
	file   string
	page   bool
	mparam int
	body   tref
	reply  tref
}

// walk a function body in source order, tracking assignments; collect request sites.
func (e *fenv) walk(body *ast.BlockStmt, file string) []site {
	var sites []site
	hasNext := false
	ast.Inspect(body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "nextPage" {
				hasNext = true
			}
		}
		return true
	})
	var stmt func(s ast.Stmt, depth int)
	assign := func(lhs ast.Expr, rhs ast.Expr, define bool, depth int) {
		id, ok := lhs.(*ast.Ident)
		if !ok || id.Name == "_" {
			return
		}
		v := e.eval(rhs)
		e.noteType(id.Name, rhs, nil)
		if c, ok := rhs.(*ast.CallExpr); ok {
			if fid, ok := c.Fun.(*ast.Ident); ok && fid.Name == "nextPage" {
				return // next pages: same route, "page" recorded separately
			}
		}
		d, known := e.depth[id.Name]
		if define || !known || d >= depth {
			e.vars[id.Name] = v
			e.depth[id.Name] = depth
		} else {
			e.vars[id.Name] = append(append([]sym{}, e.vars[id.Name]...), v...)
		}
	}
	var scanCalls func(n ast.Node)
	scanCalls = func(n ast.Node) {
		ast.Inspect(n, func(n ast.Node) bool {
			if _, ok := n.(*ast.FuncLit); ok {
				return false
			}
			c, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			name := ""
			switch f := c.Fun.(type) {
			case *ast.SelectorExpr:
				name = f.Sel.Name
			case *ast.Ident:
				name = f.Name
			}
			line := e.p.fset.Position(c.Pos()).Line
			if name == "DoRequest" || name == "DoRequestWithHeader" {
				pi := 1
				if name == "DoRequestWithHeader" {
					pi = 2
				}
				if len(c.Args) > pi {
					ms := e.eval(c.Args[0])
					ps := e.eval(c.Args[pi])
					body, reply := noRef, noRef
					if len(c.Args) > pi+2 {
						body, reply = e.typeOf(c.Args[pi+1]), e.typeOf(c.Args[pi+2])
					}
					for _, m := range ms {
						for _, p := range ps {
							sites = append(sites, site{method: flat(m), path: p, line: line, file: file, page: hasNext, mparam: paramOf(m), body: body, reply: reply})
						}
					}
				}
				return true
			}
			sameRecv := false
			if _, ok := c.Fun.(*ast.SelectorExpr); ok {
				for _, fw := range e.p.fwds[name] {
					sameRecv = sameRecv || (fw.recv != "" && fw.recv == e.recv)
				}
			}
			for _, fw := range e.p.fwds[name] {
				if sameRecv && fw.recv != e.recv {
					continue // another type's helper of the same name
				}
				// substitute arguments into the helper's template
				args := make([][]sym, len(c.Args))
				for i, a := range c.Args {
					args[i] = e.eval(a)
				}
				var methods []sym
				if fw.methodArg >= 0 && fw.methodArg < len(args) {
					methods = args[fw.methodArg]
				} else {
					methods = []sym{lit(fw.method)}
				}
				body, reply := fw.body, fw.reply
				if body.param >= 0 && body.param < len(c.Args) {
					body = e.typeOf(c.Args[body.param])
				}
				if reply.param >= 0 && reply.param < len(c.Args) {
					reply = e.typeOf(c.Args[reply.param])
				}
				for _, m := range methods {
					for _, p := range subst(fw.path, args) {
						sites = append(sites, site{method: flat(m), path: p, line: line, file: file, page: hasNext || fw.pageLoop, mparam: paramOf(m), body: body, reply: reply})
					}
				}
			}
			return true
		})
	}
	stmt = func(s ast.Stmt, depth int) {
		switch v := s.(type) {
		case *ast.AssignStmt:
			scanCalls(v)
			if len(v.Lhs) == len(v.Rhs) {
				for i := range v.Lhs {
					assign(v.Lhs[i], v.Rhs[i], v.Tok == token.DEFINE, depth)
				}
			}
		case *ast.DeclStmt:
			if g, ok := v.Decl.(*ast.GenDecl); ok {
				for _, sp := range g.Specs {
					if vs, ok := sp.(*ast.ValueSpec); ok && len(vs.Values) == len(vs.Names) {
						for i := range vs.Names {
							assign(vs.Names[i], vs.Values[i], true, depth)
						}
					}
					if vs, ok := sp.(*ast.ValueSpec); ok && len(vs.Values) == 0 && vs.Type != nil {
						for _, n := range vs.Names {
							e.noteType(n.Name, nil, vs.Type)
						}
					}
				}
			}
		case *ast.BlockStmt:
			for _, x := range v.List {
				stmt(x, depth+1)
			}
		case *ast.IfStmt:
			if v.Init != nil {
				stmt(v.Init, depth)
			}
			scanCalls(v.Cond)
			stmt(v.Body, depth)
			if v.Else != nil {
				stmt(v.Else, depth)
			}
		case *ast.ForStmt:
			if v.Init != nil {
				stmt(v.Init, depth)
			}
			stmt(v.Body, depth)
		case *ast.RangeStmt:
			stmt(v.Body, depth)
		case *ast.SwitchStmt:
			if v.Init != nil {
				stmt(v.Init, depth)
			}
			for _, cc := range v.Body.List {
				for _, x := range cc.(*ast.CaseClause).Body {
					stmt(x, depth+1)
				}
			}
		default:
			scanCalls(s)
		}
	}
	for _, s := range body.List {
		stmt(s, 0)
	}
	return sites
}

func paramOf(m sym) int {
	if len(m.parts) == 1 && m.parts[0].k == pParam {
		return m.parts[0].param
	}
	return -1
}

func subst(t sym, args [][]sym) []sym {
	alts := [][]sym{}
	// build alternatives per param used
	idx := map[int]int{}
	for _, p := range t.parts {
		if p.k == pParam {
			if _, ok := idx[p.param]; !ok && p.param < len(args) {
				idx[p.param] = len(alts)
				alts = append(alts, args[p.param])
			}
		}
	}
	for _, q := range t.query {
		if q.param >= 0 {
			if _, ok := idx[q.param]; !ok && q.param < len(args) {
				idx[q.param] = len(alts)
				alts = append(alts, args[q.param])
			}
		}
	}
	return cross(alts, func(a []sym) sym {
		var out sym
		for _, p := range t.parts {
			if p.k == pParam {
				if j, ok := idx[p.param]; ok {
					out.parts = append(out.parts, a[j].parts...)
					continue
				}
			}
			out.parts = append(out.parts, p)
		}
		for _, q := range t.query {
			if q.param >= 0 {
				if j, ok := idx[q.param]; ok {
					out.query = append(out.query, a[j].query...)
					continue
				}
			}
			out.query = append(out.query, q)
		}
		return out
	})
}
