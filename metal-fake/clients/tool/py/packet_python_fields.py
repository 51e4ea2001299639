"""Fields of packet-python: the body fields each request sends and the reply
fields it reads, read with Python's `ast` (requests as packet_python_routes.py
finds them).
Usage: packet_python_fields.py CLIENT_DIR SPEC_JSON > RAW_ROWS
RAW_ROWS: method, path, direction, field, form, value, source, via, nullable,
omitempty (as assemble_fields.py reads them); source is `path:line`.

Sent (a POST's or PATCH's `params`: `call_api` sends them as the JSON body):
the keys of the dict passed, a dict literal bound to the name passed, and
`name["k"] = v` in the same function; a nested dict literal's keys under its
key (`snapshot_policies.snapshot_count`); `name["k"].append({...})` under
`k[]`. The form is the value's Python type where the source fixes it (a
literal, or a parameter's default other than None: `always_pxe=False` is
`bool`, `tags={}` is `object`, `project_ssh_keys=[]` is `array-of-any`); for a
value the caller chooses (a parameter without a default, None, an attribute)
the form the spec gives the field (its operation's query parameter of that
name, else its request body's property; its PUT's for a PATCH), else `any`. A literal string value is `const:` (not one set in a branch). `nullable`: the value may be
None (a None default or literal). Python never leaves a key out: no
`omitempty`.

Read: the keys a model class's `__init__(self, data, ...)` reads
(`data.get("k")`, `data["k"]`), for each request whose reply the function
passes to that class: the reply itself (`Device(data, self)`,
`Volume(self.call_api(...))`) or the items of one of its lists (`for j in
data["devices"]: Device(j, self)` gives `devices[].k`); and the keys the
function reads on the reply itself (`data["meta"]`, `data["capacity"]`,
`s["available"]` for `s` in `data["servers"]`). Only the first level below
the resource, as for packngo. The form is `object` for a key passed to a
model class or indexed by a key again (`data["project"]["href"]`), `array`
for one indexed by a number, else `any`. `.get` takes the key's absence
(`omitempty`); both take `null` (`nullable`) unless the value is indexed or
passed to a model class, which fails on None. Of several reads of one key
on a route the most definite form is kept, and `null` or absence is taken
only if every one takes it.
"""
import ast, json, os, re, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from packet_python_routes import calls  # noqa: E402

src, spec_path = sys.argv[1], sys.argv[2]
SPEC = json.load(open(spec_path))


FILE = {}  # model class -> its file


def key(p):
    return re.sub(r"\{[^}]*\}", "{}", p)


PATHS = {key(p): item for p, item in SPEC["paths"].items()}


def resolve(s):
    seen = 0
    while isinstance(s, dict) and "$ref" in s and seen < 20:
        parts = s["$ref"].lstrip("#/").split("/")
        s = SPEC
        for part in parts:
            s = s[part]
        seen += 1
    return s


def props(s):
    s = resolve(s)
    out = dict(s.get("properties", {}))
    for k in ("allOf", "oneOf", "anyOf"):
        for sub in s.get(k, []):
            for name, v in props(sub).items():
                out.setdefault(name, v)
    return out


def schema_form(s):
    s = resolve(s)
    t = s.get("type")
    if t is None:
        for k in ("oneOf", "anyOf", "allOf"):
            if s.get(k):
                return schema_form(s[k][0])
        return "object" if "properties" in s else None
    if t == "string":
        return "timestamp" if s.get("format") == "date-time" else "string"
    if t == "boolean":
        return "bool"
    if t == "array":
        return "array-of-" + (schema_form(s.get("items", {})) or "any")
    return t  # integer, number, object


def spec_form(method, path, field):
    item = PATHS.get(key(path), {})
    op = item.get(method.lower()) or (item.get("put") if method == "PATCH" else None) or {}
    # a query parameter of the operation the client sends in the body (`bulk_disable`)
    for prm in op.get("parameters", []):
        prm = resolve(prm)
        if prm.get("name") == field and prm.get("in") == "query":
            return schema_form(prm.get("schema", {}))
    body = op.get("requestBody")
    if not body:
        return None
    body = resolve(body)
    s = body.get("content", {}).get("application/json", {}).get("schema", {})
    for seg in field.split("."):
        arr = seg.endswith("[]")
        s = props(s).get(seg[:-2] if arr else seg)
        if s is None:
            return None
        if arr:
            s = resolve(s).get("items", {})
    return schema_form(s)


def literal_form(v):
    """(form, const value, nullable) of a literal, or None if not one."""
    if isinstance(v, ast.Constant):
        x = v.value
        if x is None:
            return None, "", True
        if isinstance(x, bool):
            return "bool", "", False
        if isinstance(x, int):
            return "integer", "", False
        if isinstance(x, float):
            return "number", "", False
        if isinstance(x, str):
            return "string", x, False
    if isinstance(v, ast.UnaryOp) and isinstance(v.operand, ast.Constant):
        f, _, n = literal_form(v.operand)
        return f, "", n
    if isinstance(v, ast.Dict):
        return "object", "", False
    if isinstance(v, ast.List):
        if v.elts and all(isinstance(e, ast.Dict) for e in v.elts):
            return "array-of-object", "", False
        return "array-of-any", "", False
    return None


def defaults(fn):
    a = fn.args
    return dict(zip([x.arg for x in a.args][len(a.args) - len(a.defaults):], a.defaults))


def value_form(v, fn, method, path, field):
    """(form, const, nullable) of a value put in a body."""
    lit = literal_form(v)
    if lit is None and isinstance(v, ast.Name):
        d = defaults(fn).get(v.id)
        lit = literal_form(d) if d is not None else None
        if lit is not None:
            lit = (lit[0], "", lit[2])  # a default is not always sent
    form, const, nullable = lit if lit is not None else (None, "", False)
    if form is None:
        form = spec_form(method, path, field) or "any"
    return form, const, nullable


def body_fields(pexpr, fn, method, path):
    """(field, form, const, nullable, line) of a request's body."""
    out = []

    def walk_dict(d, prefix):
        for k, v in zip(d.keys, d.values):
            if not isinstance(k, ast.Constant):
                continue
            name = prefix + k.value
            form, const, nullable = value_form(v, fn, method, path, name)
            out.append((name, form, const, nullable, k.lineno))
            if isinstance(v, ast.Dict):
                walk_dict(v, name + ".")

    if isinstance(pexpr, ast.Dict):
        walk_dict(pexpr, "")
    elif isinstance(pexpr, ast.Name):
        var = pexpr.id
        top = set(fn.body)  # a literal value set in a branch is not always sent: no const:
        for n in ast.walk(fn):
            if isinstance(n, ast.Assign):
                for t in n.targets:
                    if isinstance(t, ast.Name) and t.id == var and isinstance(n.value, ast.Dict):
                        walk_dict(n.value, "")
                    if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == var \
                            and isinstance(t.slice, ast.Constant):
                        form, const, nullable = value_form(n.value, fn, method, path, t.slice.value)
                        const = const if n in top else ""
                        out.append((t.slice.value, form, const, nullable, t.lineno))
                        if isinstance(n.value, ast.Dict):
                            walk_dict(n.value, t.slice.value + ".")
            # name["k"].append({...})
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "append" \
                    and isinstance(n.func.value, ast.Subscript) and isinstance(n.func.value.value, ast.Name) \
                    and n.func.value.value.id == var and isinstance(n.func.value.slice, ast.Constant) \
                    and n.args and isinstance(n.args[0], ast.Dict):
                walk_dict(n.args[0], n.func.value.slice.value + "[].")
    return out


def model_reads(tree_by_class):
    """class name -> [(key, form, nullable, omitempty, line)] its __init__ reads on `data`."""
    out = {}
    for name, cls in tree_by_class.items():
        init = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
        if init is None or len(init.args.args) < 2:
            continue
        data = init.args.args[1].arg
        out[name] = [r[:4] + ("%s:%d" % (FILE[name], r[4]),) for r in reads_on(init, data, tree_by_class)]
    return out


def parents(fn):
    p = {}
    for n in ast.walk(fn):
        for c in ast.iter_child_nodes(n):
            p[c] = n
    return p


def reads_on(fn, var, classes, aliases=None):
    """[(key, form, nullable, omitempty, line)] of the keys fn reads on the dict named var (or any of aliases)."""
    names = {var} | (aliases or set())
    par = parents(fn)
    # local names bound to a key's value: facility = data.get("facility")
    bound = {}
    rows = []
    for n in ast.walk(fn):
        k = None
        omit = False
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id in names \
                and isinstance(n.slice, ast.Constant) and isinstance(n.slice.value, str):
            k = n.slice.value
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "get" \
                and isinstance(n.func.value, ast.Name) and n.func.value.id in names and n.args \
                and isinstance(n.args[0], ast.Constant):
            k, omit = n.args[0].value, True
        if k is None:
            continue
        up = par.get(n)
        form = "any"
        if isinstance(up, ast.Subscript) and up.value is n:
            form = "array" if isinstance(up.slice, ast.Constant) and isinstance(up.slice.value, int) else "object"
        elif isinstance(up, (ast.For, ast.comprehension)) and up.iter is n:
            form = "array"
        elif isinstance(up, ast.Call) and n in up.args and isinstance(up.func, ast.Name) and up.func.id in classes:
            form = "object"
        elif isinstance(up, ast.Assign) and len(up.targets) == 1 and isinstance(up.targets[0], ast.Name):
            bound[up.targets[0].id] = len(rows)
        rows.append([k, form, form == "any", omit, n.lineno])
    # a bound name later passed to a model class (guarded: `Facility(f) if f else None`)
    for n in ast.walk(fn):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in classes:
            for a in n.args:
                if isinstance(a, ast.Name) and a.id in bound:
                    rows[bound[a.id]][1] = "object"
    return [tuple(r) for r in rows]


def main():
    d = os.path.join(src, "packet")
    classes = {}
    for fn in sorted(os.listdir(d)):
        if fn.endswith(".py"):
            for c in ast.parse(open(os.path.join(d, fn)).read()).body:
                if isinstance(c, ast.ClassDef):
                    classes[c.name] = c
                    FILE[c.name] = "packet/" + fn
    models = model_reads(classes)
    rows = []
    for method, path, q, rel, line, via, cls, fn, call, pexpr in calls(src):
        if method in ("POST", "PATCH") and pexpr is not None:
            for field, form, const, nullable, fline in body_fields(pexpr, fn, method, path):
                rows.append((method, path, "sent", field, form, const, "%s:%d" % (rel, fline), via,
                             "true" if nullable else "false", "false"))
        # the reply: the name it is bound to, or the model class it is passed to directly
        par = parents(fn)
        up = par.get(call)
        reads = []
        if isinstance(up, ast.Call) and isinstance(up.func, ast.Name) and up.func.id in models and call in up.args:
            reads += [("", r) for r in models[up.func.id]]
        var = None
        if isinstance(up, ast.Assign) and len(up.targets) == 1 and isinstance(up.targets[0], ast.Name):
            var = up.targets[0].id
        elif isinstance(up, ast.Subscript) and up.value is call and isinstance(up.slice, ast.Constant):
            reads.append(("", (up.slice.value, "any", True, False, "%s:%d" % (rel, up.lineno))))  # call_api(...)["capacity"]
        if var is not None:
            for r in reads_on(fn, var, models):
                reads.append(("", r[:4] + ("%s:%d" % (rel, r[4]),)))
            for n in ast.walk(fn):
                # Model(var, ...)
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in models \
                        and n.args and isinstance(n.args[0], ast.Name) and n.args[0].id == var:
                    reads += [("", r) for r in models[n.func.id]]
                # for item in var["list"] / in (...) for item in var["list"]
                it = None
                if isinstance(n, (ast.For, ast.comprehension)):
                    it = n
                if it is not None and isinstance(it.iter, ast.Subscript) and isinstance(it.iter.value, ast.Name) \
                        and it.iter.value.id == var and isinstance(it.iter.slice, ast.Constant) \
                        and isinstance(it.target, ast.Name):
                    lst, item = it.iter.slice.value, it.target.id
                    for m in ast.walk(fn):
                        if isinstance(m, ast.Call) and isinstance(m.func, ast.Name) and m.func.id in models \
                                and m.args and isinstance(m.args[0], ast.Name) and m.args[0].id == item:
                            reads += [(lst + "[].", r) for r in models[m.func.id]]
                    for r in reads_on(fn, item, models):
                        reads.append((lst + "[].", r[:4] + ("%s:%d" % (rel, r[4]),)))
        for prefix, (k, form, nullable, omit, where) in reads:
            rows.append((method, path, "read", prefix + k, form, "", where, via,
                         "true" if nullable else "false", "true" if omit else "false"))
    # one row a (method, path, direction, field): the most definite form, and
    # null or absence taken only if every read of it takes them
    merged = {}
    for r in rows:
        k = (r[0], r[1], r[2], r[3])
        if k not in merged:
            merged[k] = list(r)
            continue
        m = merged[k]
        if m[4] == "any" and r[4] != "any":
            m[4], m[6] = r[4], r[6]
        if r[2] == "read":
            m[8] = "true" if m[8] == "true" and r[8] == "true" else "false"
            m[9] = "true" if m[9] == "true" and r[9] == "true" else "false"
        else:
            m[5] = ",".join(sorted({c for c in (m[5].split(",") + r[5].split(",")) if c}))
            m[8] = "true" if "true" in (m[8], r[8]) else "false"
    for r in merged.values():
        print("\t".join(r))


main()
