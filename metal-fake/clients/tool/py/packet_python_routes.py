"""Routes of packet-python (packethost/packet-python): every `call_api(path,
type, params)` call in packet/*.py, read with Python's `ast`.
Usage: packet_python_routes.py CLIENT_DIR REPO@REV > RAW_ROWS
RAW_ROWS: method, path, query, source, via (as assemble.py reads them).

- path: the first argument. A literal; `"fmt" % args` (each `%s` becomes a
  placeholder named after its argument: `project_id` -> `{project_id}`,
  `self.id` -> `{id}`); `"fmt".format(...)` likewise for `{0}`; a literal
  `?a=..&b=..` tail gives query names. A reply's `href` followed as the path
  (`data["project"]["href"]`) is the object's own read: `HREF` below. A
  leading `/` is dropped (`call_api` joins `https://api.packet.net/` and the
  path, so `/capacity` is sent as `//capacity`).
- method: `type=` or the second positional argument; `GET` if neither.
- query: `call_api` sends `params` as the query of a GET only (a POST or
  PATCH sends them as the body, a DELETE drops them). The names listed are
  the keys the function itself sets: a dict literal bound to the variable
  passed (`{"page": page}`), `params["include"] = ...`, a literal
  `"cidr=%s"` string. A dict the caller passes (`params={}` by default) is
  free-form and not listed, as packngo's caller-supplied filters are not.
- via: `Class.method` of the function that makes the call.

A path formatted with no `%s` but a `%` operand (`"...{id}/provision" %
connection_id`) raises TypeError in Python before any request: printed on
stderr as never sent, and no row.
"""
import ast, os, re, sys


# a reply's href followed as a path: the key before ["href"] -> the read it is
HREF = {
    "project": "projects/{id}",
    "assigned_to": "projects/{id}",
    "device": "devices/{id}",
    "attachment": "storage/attachments/{attachmentID}",
}


def argname(e):
    """The placeholder name of a format argument."""
    if isinstance(e, ast.Name):
        return e.id
    if isinstance(e, ast.Attribute):
        return e.attr  # self.id -> id, self.volume.id -> id
    return "x"


def consts(fn):
    """Dict literals bound to names in fn, and subscript-assigned keys: name -> set of keys."""
    keys = {}
    for n in ast.walk(fn):
        if isinstance(n, ast.Assign):
            for t in n.targets:
                if isinstance(t, ast.Name) and isinstance(n.value, ast.Dict):
                    keys.setdefault(t.id, set()).update(
                        k.value for k in n.value.keys if isinstance(k, ast.Constant))
                if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) \
                        and isinstance(t.slice, ast.Constant):
                    keys.setdefault(t.value.id, set()).add(t.slice.value)
    return keys


def path_of(e, fn_params):
    """(path, query names) of a call_api path argument, or None if it is a forwarded parameter."""
    q = set()
    if isinstance(e, ast.Constant) and isinstance(e.value, str):
        p = e.value
    elif isinstance(e, ast.BinOp) and isinstance(e.op, ast.Mod) and isinstance(e.left, ast.Constant):
        args = e.right.elts if isinstance(e.right, ast.Tuple) else [e.right]
        fmt = e.left.value
        if fmt.count("%s") != len(args):
            return "never", fmt
        it = iter(args)
        p = re.sub(r"%s", lambda m: "{%s}" % argname(next(it)), fmt)
    elif isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr == "format" \
            and isinstance(e.func.value, ast.Constant):
        args = e.args
        p = re.sub(r"\{(\d+)\}", lambda m: "{%s}" % argname(args[int(m.group(1))]), e.func.value.value)
    elif isinstance(e, ast.Subscript) and isinstance(e.slice, ast.Constant) and e.slice.value == "href":
        base = e.value
        name = None
        if isinstance(base, ast.Subscript) and isinstance(base.slice, ast.Constant):
            name = base.slice.value
        elif isinstance(base, ast.Name):
            name = base.id
        if name not in HREF:
            raise SystemExit("an href of %r followed: add it to HREF" % name)
        p = HREF[name]
    elif isinstance(e, ast.Name) and e.id in fn_params:
        return None  # a forwarder (Manager.call_api)
    else:
        raise SystemExit("unresolved path %s" % ast.dump(e))
    if "?" in p:
        p, qs = p.split("?", 1)
        q |= {kv.split("=")[0] for kv in qs.split("&")}
    return p.lstrip("/"), q


def calls(src):
    """Each request: (method, path, query names, relpath, line, via, class, function, call node)."""
    out = []
    d = os.path.join(src, "packet")
    for fn in sorted(os.listdir(d)):
        if not fn.endswith(".py"):
            continue
        rel = "packet/" + fn
        tree = ast.parse(open(os.path.join(d, fn)).read())
        for cls in tree.body:
            if not isinstance(cls, ast.ClassDef):
                continue
            for f in cls.body:
                if not isinstance(f, ast.FunctionDef):
                    continue
                params = {a.arg for a in f.args.args}
                local = consts(f)
                for n in ast.walk(f):
                    if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                            and n.func.attr == "call_api" and n.args):
                        continue
                    r = path_of(n.args[0], params)
                    if r is None:
                        continue
                    via = "%s.%s" % (cls.name, f.name)
                    if r[0] == "never":
                        print("never sent: %s at %s:%d (%r %% ... raises TypeError)" % (via, rel, n.lineno, r[1]),
                              file=sys.stderr)
                        continue
                    path, q = r
                    method = "GET"
                    pexpr = None
                    if len(n.args) > 1 and isinstance(n.args[1], ast.Constant):
                        method = n.args[1].value
                    if len(n.args) > 2:
                        pexpr = n.args[2]
                    for k in n.keywords:
                        if k.arg == "type" and isinstance(k.value, ast.Constant):
                            method = k.value.value
                        if k.arg == "params":
                            pexpr = k.value
                    if method == "GET" and pexpr is not None:
                        if isinstance(pexpr, ast.Dict):
                            q |= {k.value for k in pexpr.keys if isinstance(k, ast.Constant)}
                        elif isinstance(pexpr, ast.Name):
                            q |= local.get(pexpr.id, set())
                        elif isinstance(pexpr, ast.BinOp) and isinstance(pexpr.left, ast.Constant):
                            q |= {kv.split("=")[0] for kv in pexpr.left.value.split("&")}
                    out.append((method, "/" + path, q, rel, n.lineno, via, cls, f, n, pexpr))
    return out


if __name__ == "__main__":
    src, tag = sys.argv[1], sys.argv[2]
    for method, path, q, rel, line, via, *_ in calls(src):
        print("\t".join((method, path, ",".join(sorted(q)), "%s:%s:%d" % (tag, rel, line), via)))
