package main

import (
	"fmt"
	"os"
	"sort"
	"strings"
)

func main() {
	switch os.Args[1] {
	case "packngo-index":
		// via -> every request the method makes, itself or through the service methods it calls
		rows := packngoRows(os.Args[2])
		by := map[string][]row{}
		for _, r := range rows {
			by[r.via] = append(by[r.via], r)
		}
		vias := map[string]bool{}
		for v := range by {
			vias[v] = true
		}
		for v := range lastDelegations {
			vias[v] = true
		}
		for v := range vias {
			seen := map[string]bool{}
			var visit func(x string)
			visit = func(x string) {
				if seen[x] {
					return
				}
				seen[x] = true
				for _, r := range by[x] {
					fmt.Printf("%s\t%s\t%s\t%s\t%s\t%s:%d\n", v, r.method, r.path, r.query, r.fixed, r.file, r.line)
				}
				for _, d := range lastDelegations[x] {
					visit(d)
				}
			}
			visit(v)
		}
	case "sdk":
		ops := sdkOps(os.Args[2])
		names := []string{}
		for k := range ops {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			o := ops[k]
			bs := []string{}
			for b, q := range o.builders {
				bs = append(bs, b+"="+q)
			}
			sort.Strings(bs)
			fmt.Printf("%s.%s\t%s\t%s\t%s\t%s:%d\t%v\n", o.api, o.op, o.method, o.path, strings.Join(bs, ","), o.file, o.line, o.paginated)
		}
	case "consumer":
		// consumer ROOT PREFIX FILELIST [packngo-index|-] [sdk-dir|-]
		root, prefix, list := os.Args[2], os.Args[3], os.Args[4]
		var pidx map[string][]idxRow
		fields := map[string]bool{}
		if os.Args[5] != "-" {
			pidx = readPackngoIndex(os.Args[5])
			for k := range pidx {
				fields[strings.SplitN(k, ".", 2)[0]] = true
			}
		}
		var ops map[string]*sdkOp
		if os.Args[6] != "-" {
			ops = sdkOps(os.Args[6])
		}
		b, _ := os.ReadFile(list)
		var files []string
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if l != "" {
				files = append(files, l)
			}
		}
		for _, r := range scanConsumer(root, files, pidx, fields, ops, prefix) {
			fmt.Printf("%s\t%s\t%s\t%s\t%s\n", r.method, r.path, r.query, r.src, r.via)
		}
	case "packngo-fields":
		// method, path, direction, field, form, value, source, via, nullable, omitempty
		for _, r := range packngoFieldRows(os.Args[2]) {
			fmt.Printf("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%v\t%v\n", r.method, r.path, r.direction, r.field, r.form, r.value, r.source, r.via, r.nullable, r.omitempty)
		}
	case "sdk-fields":
		// sdk-fields ROOT FILELIST SDK_DIR ROUTES_TSV: a metalv1 client's body fields
		b, _ := os.ReadFile(os.Args[3])
		var files []string
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if l != "" {
				files = append(files, l)
			}
		}
		for _, r := range sdkFieldRows(os.Args[2], files, os.Args[4], os.Args[5]) {
			fmt.Printf("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%v\t%v\n", r.method, r.path, r.direction, r.field, r.form, r.value, r.source, r.via, r.nullable, r.omitempty)
		}
	case "packngo":
		for _, r := range packngoRows(os.Args[2]) {
			fmt.Printf("%s\t%s\t%s\t%s:%d\t%s\n", r.method, r.path, r.query, r.file, r.line, r.via)
		}
	}
}
