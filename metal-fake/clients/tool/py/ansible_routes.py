"""Routes of the Ansible collection equinix.cloud: the SDK functions named in
plugins/module_utils/metal/api_routes.py (and direct SDK calls in plugins/),
mapped to method+path+query through equinix-sdk-python's metalv1 serializers.
Usage: ansible_routes.py COLLECTION_DIR PYSDK_DIR REPO@REV"""
import ast, os, re, sys

coll, pysdk, tag = sys.argv[1], sys.argv[2], sys.argv[3]

def sdk_ops():
    ops = {}
    d = os.path.join(pysdk, "equinix/services/metalv1/api")
    for fn in sorted(os.listdir(d)):
        if not fn.endswith("_api.py"):
            continue
        tree = ast.parse(open(os.path.join(d, fn)).read())
        for cls in tree.body:
            if not isinstance(cls, ast.ClassDef):
                continue
            for f in cls.body:
                if not isinstance(f, ast.FunctionDef) or not (f.name.startswith("_") and f.name.endswith("_serialize")):
                    continue
                op = f.name[1:-len("_serialize")]
                method = path = None
                query = {}
                for n in ast.walk(f):
                    if isinstance(n, ast.keyword) and n.arg == "method" and isinstance(n.value, ast.Constant):
                        method = n.value.value
                    if isinstance(n, ast.keyword) and n.arg == "resource_path" and isinstance(n.value, ast.Constant):
                        path = n.value.value
                    if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "append" \
                            and isinstance(n.func.value, ast.Name) and n.func.value.id == "_query_params" and n.args \
                            and isinstance(n.args[0], ast.Tuple) and isinstance(n.args[0].elts[0], ast.Constant):
                        q = n.args[0].elts[0].value
                        v = n.args[0].elts[1]
                        kw = v.id if isinstance(v, ast.Name) else q
                        query[kw] = q
                # parameter names of the serializer are the SDK kwargs
                kws = [a.arg for a in f.args.args if a.arg != "self"]
                for k in kws:  # query parameters appended through an intermediate variable
                    if k in query.values() and k not in query:
                        query[k] = k
                ops[op] = (cls.name, method, path, query)
    return ops

OPS = sdk_ops()

def rows_for(op, kwargs, line, relpath):
    paged = op.endswith("_all_pages")
    base = op[:-len("_all_pages")] if paged else op
    if base not in OPS:
        print("unknown SDK op %s at %s:%d" % (op, relpath, line), file=sys.stderr)
        return []
    cls, method, path, query = OPS[base]
    qs = {query[k] for k in kwargs if k in query}
    if paged:
        qs.add("page")
    return [(method, path, ",".join(sorted(qs)), "%s:%s:%d" % (tag, relpath, line), "%s.%s" % (cls, base))]

out = []
# 1. api_routes.py: Specs(equinix_metal.XApi(mpc).op, {sdk_kwarg: module_param}, ..., extra_kwargs={...})
rel = "plugins/module_utils/metal/api_routes.py"
tree = ast.parse(open(os.path.join(coll, rel)).read())
for n in ast.walk(tree):
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "Specs" and n.args:
        fn = n.args[0]
        if not isinstance(fn, ast.Attribute):
            continue
        kwargs = set()
        if len(n.args) > 1 and isinstance(n.args[1], ast.Dict):
            kwargs |= {k.value for k in n.args[1].keys if isinstance(k, ast.Constant)}
        extra = [k.value for k in n.keywords if k.arg == "extra_kwargs"]
        if len(n.args) > 4:
            extra.append(n.args[4])
        for e in extra:
            if isinstance(e, ast.Dict):
                kwargs |= {k.value for k in e.keys if isinstance(k, ast.Constant)}
        out += rows_for(fn.attr, kwargs, fn.lineno, rel)
# 2. direct SDK calls elsewhere in plugins/: <XApi(...) or a variable holding one>.op(args)
for root, _, files in os.walk(os.path.join(coll, "plugins")):
    for f in sorted(files):
        p = os.path.join(root, f)
        r = os.path.relpath(p, coll)
        if not f.endswith(".py") or r == rel:
            continue
        t = ast.parse(open(p).read())
        apivars = set()
        for n in ast.walk(t):
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Attribute) \
                    and n.value.func.attr.endswith("Api"):
                apivars |= {x.id for x in n.targets if isinstance(x, ast.Name)}
        for n in ast.walk(t):
            if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)):
                continue
            v = n.func.value
            isapi = (isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr.endswith("Api")) or \
                    (isinstance(v, ast.Name) and v.id in apivars)
            if not isapi:
                continue
            base = n.func.attr[:-len("_all_pages")] if n.func.attr.endswith("_all_pages") else n.func.attr
            if base not in OPS:
                continue
            out.append(("POS", n.func.attr, len(n.args), {k.arg for k in n.keywords}, n.lineno, r))
# positional kwargs need the SDK function's parameter order
def params_of(op):
    d = os.path.join(pysdk, "equinix/services/metalv1/api")
    for fn in sorted(os.listdir(d)):
        if not fn.endswith("_api.py"):
            continue
        t = ast.parse(open(os.path.join(d, fn)).read())
        for n in ast.walk(t):
            if isinstance(n, ast.FunctionDef) and n.name == op:
                return [a.arg for a in n.args.args if a.arg != "self"]
    return []
final = []
for o in out:
    if o[0] == "POS":
        _, op, npos, kw, line, r = o
        names = set(params_of(op)[:npos]) | kw
        final += rows_for(op, names, line, r)
    else:
        final.append(o)
for row in final:
    print("\t".join(row))
