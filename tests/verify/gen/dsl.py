import json, os, copy

class Fn:
    """Builds one entry: values get unique ids; ops go into the current block."""
    def __init__(self, params, name="k", hints=None):
        self.n = 0
        self.params = params
        self.args = [self.new() for _ in params]
        self.name = name
        self.hints = hints
        self.stack = [[]]
    def new(self):
        self.n += 1
        return "%%%d" % (self.n - 1)
    def op(self, name, results=(), operands=(), attrs=None, regions=None, loc=None):
        ids = [self.new() for _ in results]
        d = {"op": "cuda_tile." + name}
        if results:
            d["results"] = [{"id": i, "type": t} for i, t in zip(ids, results)]
        if operands:
            d["operands"] = list(operands)
        if attrs:
            d["attrs"] = attrs
        if regions is not None:
            d["regions"] = regions
        if loc:
            d["loc"] = loc
        self.stack[-1].append(d)
        if len(ids) == 1:
            return ids[0]
        return ids
    def block(self, argtypes=()):
        """with fn.block([...]) as (blk, args): ...  -> blk is the block dict"""
        fn = self
        class Ctx:
            def __enter__(s):
                s.args = [fn.new() for _ in argtypes]
                fn.stack.append([])
                s.blk = {"args": [{"id": i, "type": t} for i, t in zip(s.args, argtypes)]} if argtypes else {}
                return s
            def __exit__(s, *a):
                s.blk["ops"] = fn.stack.pop()
        return Ctx()
    def entry(self):
        ops = self.stack[0]
        attrs = {"sym_name": self.name,
                 "function_type": {"type": "(" + ", ".join(self.params) + ") -> ()"}}
        if self.hints is not None:
            attrs["optimization_hints"] = self.hints
        blk = {"ops": ops}
        if self.params:
            blk = {"args": [{"id": i, "type": t} for i, t in zip(self.args, self.params)], "ops": ops}
        return {"op": "cuda_tile.entry", "attrs": attrs, "regions": [[blk]]}

def module(tops, ver="13.3", mattrs=None):
    attrs = {}
    if ver:
        attrs["bytecode_version"] = ver
    if mattrs:
        attrs.update(mattrs)
    m = {"name": "kernels", "ops": tops}
    if attrs:
        m = {"name": "kernels", "attrs": attrs, "ops": tops}
    return {"format": "tile-ir", "version": 1, "stage": "cuda_tile", "module": m}

def dump_op(d, ind):
    """one op per line, regions expanded"""
    pad = " " * ind
    if "regions" not in d:
        return pad + json.dumps(d, separators=(", ", ": "))
    head = {k: v for k, v in d.items() if k != "regions"}
    s = pad + json.dumps(head, separators=(", ", ": "))[:-1] + ', "regions": [\n'
    regs = []
    for r in d["regions"]:
        blks = []
        for b in r:
            bh = {k: v for k, v in b.items() if k != "ops"}
            bs = pad + "  " + json.dumps(bh, separators=(", ", ": "))[:-1]
            bs += (", " if bh else "") + '"ops": [\n'
            bs += ",\n".join(dump_op(o, ind + 4) for o in b["ops"])
            bs += "\n" + pad + "  ]}"
            blks.append(bs)
        regs.append(pad + " [\n" + ",\n".join(blks) + "\n" + pad + " ]")
    s += ",\n".join(regs) + "\n" + pad + "]}"
    return s

def dump(mod):
    m = mod["module"]
    s = '{"format": "tile-ir", "version": 1, "stage": "%s",\n "module": {"name": "kernels", ' % mod["stage"]
    if "attrs" in m:
        s += '"attrs": ' + json.dumps(m["attrs"], separators=(", ", ": ")) + ", "
    s += '"ops": [\n'
    s += ",\n".join(dump_op(o, 2) for o in m["ops"])
    s += "\n ]}}\n"
    json.loads(s)
    return s

def write(path, mod):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(dump(mod))
