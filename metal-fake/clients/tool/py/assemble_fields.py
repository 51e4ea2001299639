"""Normalise, dedupe and write one fields census TSV.
Usage: assemble_fields.py SPEC_JSON RAW_ROWS OUT_TSV SOURCE_PREFIX [ROUTES_TSV]
RAW_ROWS: method, path, direction, field, form, value, source, via, nullable,
omitempty (tab-separated, as `census packngo-fields` prints them).
ROUTES_TSV: keep only the rows of the routes (method, path) that file lists
(a packngo user's routes, for its fields)."""
import json, re, sys

spec, raw, out, prefix = sys.argv[1:5]
routes = None
if len(sys.argv) > 5:
    routes = set()
    for line in list(open(sys.argv[5]))[1:]:
        c = line.rstrip("\n").split("\t")
        routes.add((c[0], c[1]))


def key(p):
    return re.sub(r"\{[^}]*\}", "{}", p)


by_key = {key(p): p for p in json.load(open(spec))["paths"]}


def srckey(s):
    m = re.match(r"(.*):(\d+)$", s)
    return (m.group(1), int(m.group(2))) if m else (s, 0)


rows = {}
for line in open(raw):
    c = line.rstrip("\n").split("\t")
    if len(c) < 10:
        continue
    method, path, direction, field, form, value, source, via, nullable, omitempty = c[:10]
    path = by_key.get(key(path), path)
    if routes is not None and (method, path) not in routes:
        continue
    flags = []
    if omitempty == "true":
        flags.append("omitempty")
    if nullable == "true":
        flags.append("nullable")
    if value:
        flags.append("const:" + value)
    k = (method, path, direction, field, form)
    r = rows.setdefault(k, {"sources": [], "flags": set()})
    r["sources"].append(prefix + source)
    r["flags"] |= set(flags)

with open(out, "w") as f:
    f.write("method\tpath\tdirection\tfield\tform\tsource\tgo\n")
    for (m, p, d, fl, fo), r in sorted(rows.items(), key=lambda x: (x[0][1], x[0][0], x[0][2] != "sent", x[0][3], x[0][4])):
        src = sorted(r["sources"], key=srckey)[0]
        f.write("\t".join([m, p, d, fl, fo, src, ",".join(sorted(r["flags"]))]) + "\n")
n = {}
for (m, p, d, fl, fo) in rows:
    n[d] = n.get(d, 0) + 1
print("%s: %d sent, %d read" % (out.split("/")[-1], n.get("sent", 0), n.get("read", 0)))
