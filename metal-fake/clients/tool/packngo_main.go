package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

var _ = parser.ParseFile

func loadPkg(dir string) (*pkg, map[string]*ast.File) {
	p := &pkg{fset: token.NewFileSet(), consts: map[string]string{}, fwds: map[string][]fwd{}, encode: map[string][]string{}, root: dir}
	files := map[string]*ast.File{}
	ents, _ := os.ReadDir(dir)
	for _, en := range ents {
		n := en.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(p.fset, filepath.Join(dir, n), nil, 0)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			continue
		}
		files[n] = f
	}
	// constants (two passes for constants defined from constants)
	for pass := 0; pass < 3; pass++ {
		for _, f := range files {
			for _, d := range f.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || (g.Tok != token.CONST && g.Tok != token.VAR) {
					continue
				}
				for _, sp := range g.Specs {
					vs := sp.(*ast.ValueSpec)
					for i, nm := range vs.Names {
						if i < len(vs.Values) {
							e := &fenv{p: p, params: map[string]int{}, vars: map[string][]sym{}, depth: map[string]int{}}
							v := e.eval(vs.Values[i])
							if len(v) == 1 && len(v[0].parts) > 0 && allLit(v[0]) {
								p.consts[nm.Name] = flat(v[0])
							}
						}
					}
				}
			}
		}
	}
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				p.funcs = append(p.funcs, fd)
			}
		}
	}
	return p, files
}

func allLit(s sym) bool {
	for _, p := range s.parts {
		if p.k != pLit {
			return false
		}
	}
	return true
}

func recvType(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return ""
	}
	return typeName(fd.Recv.List[0].Type)
}

func newEnv(p *pkg, fd *ast.FuncDecl) *fenv {
	e := &fenv{p: p, params: map[string]int{}, vars: map[string][]sym{}, depth: map[string]int{}, recv: recvType(fd)}
	i := 0
	for _, fl := range fd.Type.Params.List {
		for _, n := range fl.Names {
			e.params[n.Name] = i
			e.ptypes = append(e.ptypes, typeName(fl.Type))
			e.ptexprs = append(e.ptexprs, fl.Type)
			e.pnames = append(e.pnames, n.Name)
			i++
		}
		if len(fl.Names) == 0 {
			i++
			e.ptypes = append(e.ptypes, typeName(fl.Type))
			e.ptexprs = append(e.ptexprs, fl.Type)
			e.pnames = append(e.pnames, "_")
		}
	}
	return e
}

func funcKey(fd *ast.FuncDecl) string {
	if r := recvType(fd); r != "" {
		return r + "." + fd.Name.Name
	}
	return fd.Name.Name
}

func (p *pkg) computeForwarders() {
	for pass := 0; pass < 4; pass++ {
		nf := map[string][]fwd{}
		for _, fd := range p.funcs {
			if fd.Name.Name == "DoRequest" || fd.Name.Name == "DoRequestWithHeader" || fd.Name.Name == "NewRequest" {
				continue
			}
			if ast.IsExported(fd.Name.Name) && strings.HasSuffix(recvType(fd), "ServiceOp") {
				continue // top-level service methods are reported, not forwarded
			}
			e := newEnv(p, fd)
			file := filepath.Base(p.fset.Position(fd.Pos()).Filename)
			for _, s := range e.walk(fd.Body, file) {
				f := fwd{methodArg: s.mparam, method: s.method, path: s.path, pageLoop: s.page, line: s.line, body: s.body, reply: s.reply, recv: recvType(fd)}
				nf[fd.Name.Name] = append(nf[fd.Name.Name], f)
			}
		}
		p.fwds = nf
	}
}

// query names an options parameter of the given type lets a caller set
var optsQuery = map[string][]string{
	"GetOptions":    {"include", "exclude"},
	"ListOptions":   {"include", "exclude", "page", "per_page", "search", "sort_by", "sort_direction"},
	"SearchOptions": {"include", "exclude", "page", "per_page", "search", "sort_by", "sort_direction"},
	"BandwidthOpts": {"from", "until"},
}

type row struct {
	method, path, query, fixed, file string
	line                             int
	via                              string
}

func resolve(e *fenv, s site) (string, string, string) {
	raw := ""
	for _, pt := range s.path.parts {
		switch pt.k {
		case pLit:
			raw += pt.s
		default:
			raw += "{" + pt.s + "}"
		}
	}
	q := map[string]bool{}
	fixed := map[string]bool{}
	if i := strings.Index(raw, "?"); i >= 0 {
		for _, kv := range strings.Split(raw[i+1:], "&") {
			k := strings.SplitN(kv, "=", 2)[0]
			if k != "" && !strings.HasPrefix(k, "{") {
				q[k] = true
				fixed[k] = true
			}
		}
		raw = raw[:i]
	}
	for strings.Contains(raw, "//") {
		raw = strings.ReplaceAll(raw, "//", "/")
	}
	raw = strings.TrimSuffix(raw, "/")
	for _, qi := range s.path.query {
		if qi.param >= 0 {
			t := qi.ptype
			if qi.param < len(e.ptypes) {
				t = e.ptypes[qi.param]
			}
			for _, n := range optsQuery[t] {
				q[n] = true
			}
		} else if qi.name != "" {
			q[qi.name] = true
			fixed[qi.name] = true
		}
	}
	if s.page {
		q["page"] = true
		fixed["page"] = true
	}
	var fs []string
	for k := range fixed {
		fs = append(fs, k)
	}
	sort.Strings(fs)
	var qs []string
	for k := range q {
		qs = append(qs, k)
	}
	sort.Strings(qs)
	return raw, strings.Join(qs, ","), strings.Join(fs, ",")
}

// Client field names by implementation type, from NewClient's assignments.
func serviceFields(files map[string]*ast.File) map[string]string {
	m := map[string]string{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
				return true
			}
			sel, ok := as.Lhs[0].(*ast.SelectorExpr)
			if !ok {
				return true
			}
			var cl *ast.CompositeLit
			switch r := as.Rhs[0].(type) {
			case *ast.UnaryExpr:
				cl, _ = r.X.(*ast.CompositeLit)
			case *ast.CompositeLit:
				cl = r
			}
			if cl != nil {
				m[typeName(cl.Type)] = sel.Sel.Name
			}
			return true
		})
	}
	return m
}

// delegation edges: exported service methods that call other service methods
// (i.client.Ports.Assign(...), s.ProjectList(...)).
func delegations(p *pkg, fields map[string]string) map[string][]string {
	out := map[string][]string{}
	for _, fd := range p.funcs {
		rt := recvType(fd)
		if !ast.IsExported(fd.Name.Name) || !strings.HasSuffix(rt, "ServiceOp") {
			continue
		}
		me := fields[rt] + "." + fd.Name.Name
		recvName := ""
		if len(fd.Recv.List[0].Names) > 0 {
			recvName = fd.Recv.List[0].Names[0].Name
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			c, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := c.Fun.(*ast.SelectorExpr)
			if !ok || !ast.IsExported(sel.Sel.Name) {
				return true
			}
			switch x := sel.X.(type) {
			case *ast.Ident:
				if x.Name == recvName {
					out[me] = append(out[me], fields[rt]+"."+sel.Sel.Name)
				}
			case *ast.SelectorExpr:
				if inner, ok := x.X.(*ast.SelectorExpr); ok && inner.Sel.Name == "client" {
					out[me] = append(out[me], x.Sel.Name+"."+sel.Sel.Name)
				}
			}
			return true
		})
	}
	return out
}

var lastDelegations map[string][]string

func packngoRows(dir string) []row {
	p, files := loadPkg(dir)
	p.computeForwarders()
	fields := serviceFields(files)
	lastDelegations = delegations(p, fields)
	var rows []row
	for _, fd := range p.funcs {
		rt := recvType(fd)
		if !ast.IsExported(fd.Name.Name) || !strings.HasSuffix(rt, "ServiceOp") {
			continue
		}
		e := newEnv(p, fd)
		file := filepath.Base(p.fset.Position(fd.Pos()).Filename)
		via := fields[rt]
		if via == "" {
			via = rt
		}
		sites := e.walk(fd.Body, file)
		if len(sites) == 0 {
			fmt.Fprintf(os.Stderr, "no request: %s.%s (%s)\n", rt, fd.Name.Name, file)
		}
		for _, s := range sites {
			pth, q, fx := resolve(e, s)
			rows = append(rows, row{method: s.method, path: pth, query: q, fixed: fx, file: file, line: s.line, via: via + "." + fd.Name.Name})
		}
	}
	return rows
}
