"""Normalise, dedupe and write one census TSV; report rows the spec lacks.
Usage: assemble.py SPEC_JSON RAW_ROWS OUT_TSV [SOURCE_PREFIX]
RAW_ROWS: method, path, query, source, via (tab-separated); SOURCE_PREFIX is
prepended to sources that carry no repo@rev yet."""
import json, re, sys

spec, raw, out = sys.argv[1], sys.argv[2], sys.argv[3]
prefix = sys.argv[4] if len(sys.argv) > 4 else ""

def key(p):
    return re.sub(r"\{[^}]*\}", "{}", p)

paths = json.load(open(spec))["paths"]
by_key = {key(p): p for p in paths}
ops = {(m.upper(), key(p)) for p, item in paths.items() for m in item if m in ("get", "put", "post", "patch", "delete", "head", "options")}

def srckey(s):
    m = re.match(r"(.*):(\d+)$", s)
    return (m.group(1), int(m.group(2))) if m else (s, 0)

rows = {}
for line in open(raw):
    c = line.rstrip("\n").split("\t")
    if len(c) < 5:
        continue
    method, path, query, source, via = c[:5]
    if "@" not in source.split(":")[0]:
        source = prefix + source
    k = key(path)
    path = by_key.get(k, path)  # the spec's placeholder names where the route is there
    r = rows.setdefault((method, k), {"method": method, "path": path, "query": set(), "sources": [], "via": set()})
    r["query"] |= {q for q in query.split(",") if q}
    r["sources"].append(source)
    r["via"].add(via)

with open(out, "w") as f:
    f.write("method\tpath\tquery\tsource\tvia\n")
    for (m, k), r in sorted(rows.items(), key=lambda x: (x[1]["path"], x[0][0])):
        src = sorted(r["sources"], key=srckey)[0]
        f.write("\t".join([m, r["path"], ",".join(sorted(r["query"])), src, ",".join(sorted(r["via"]))]) + "\n")

legacy = [(r["method"], r["path"], sorted(r["sources"], key=srckey)[0]) for (m, k), r in sorted(rows.items(), key=lambda x: (x[1]["path"], x[0][0])) if (m, k) not in ops]
print("%s: %d routes, %d not in the spec" % (out.split("/")[-1], len(rows), len(legacy)))
for m, p, s in legacy:
    print("  %-6s %s\t%s" % (m, p, s))
