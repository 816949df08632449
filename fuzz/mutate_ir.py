"""mutate_ir.py: structured mutations of the stages' inputs (issue 14).

Two kinds of input: the JSON IR of any stage (docs/ir.md) and PTX text.
mutate_json(doc_bytes, rng, pools) and mutate_ptx(text_bytes, rng) return
(mutant_bytes, [class names]); one to three mutations are applied. The classes
(JSON_CLASSES, PTX_CLASSES) are the ones issue 14 lists:

  delete_key      a key removed from a random object (op, result, attrs, module)
  swap_operand    an operand replaced by another value of the function, of
                  another type or shape where there is one
  undefined_value an operand that names no value, is used before its
                  definition, or is not a string
  result_type     a result's or block argument's type changed (element type,
                  shape, rank, kind) or a scheduled value's layout changed
  empty_region    a region or block emptied, or its terminator removed
  rename_op       an op renamed to another op of the corpus or to none at all
  huge_dims       dimensions, layout sizes and integer attributes made huge,
                  zero or negative
  truncation      the serialized text cut at a random byte
  duplicate_key   an object written with one key twice
  bad_utf8        invalid UTF-8 bytes put into a string
  delete_op / duplicate_op   an op dropped or repeated (values left
                  undefined or defined twice)
  wrong_kind      a value replaced by one of another JSON kind (a number for
                  a string, an object for an array, null)

Nothing here knows the rules the stages check: it only needs the shape of the
JSON IR (ops with "op", "operands", "results" [{"id","type","layout"}],
"attrs", "regions" [[{"args", "ops"}]]). Pure standard library.
"""
import json
import re

JSON_CLASSES = ["delete_key", "swap_operand", "undefined_value", "result_type",
                "empty_region", "rename_op", "huge_dims", "truncation",
                "duplicate_key", "bad_utf8", "delete_op", "duplicate_op",
                "wrong_kind"]
PTX_CLASSES = ["delete_line", "duplicate_line", "swap_lines", "rename_instr",
               "undefined_register", "huge_dims", "truncation", "bad_utf8",
               "target_version"]

HUGE = [0, -1, 2**31 - 1, 2**31, 2**32 + 1, 2**53, 2**63 - 1, -2**63, 10**30, 3]
ELEM_TYPES = ["i1", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64", "tf32",
              "f8E4M3FN", "f8E5M2", "f4E2M1FN", "token", "ptr<f32>", "ptr<i8>", "xyz"]
BAD_UTF8 = [b"\xff", b"\xc3\x28", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80",
            b"\xe2\x82", b"\x80", b"\x00"]


# ------------------------------------------------------------------ JSON walk

def _nodes(x, path=()):
    """every (container, key, value) in the tree, depth first"""
    if isinstance(x, dict):
        for k, v in x.items():
            yield x, k, v
            yield from _nodes(v, path + (k,))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield x, i, v
            yield from _nodes(v, path + (i,))


def _ops(x):
    """every op object (has a string "op") in the tree"""
    if isinstance(x, dict):
        if isinstance(x.get("op"), str):
            yield x
        for v in x.values():
            yield from _ops(v)
    elif isinstance(x, list):
        for v in x:
            yield from _ops(v)


def _blocks(x):
    """every block (a dict with an "ops" list inside a region) in the tree"""
    for op in _ops(x):
        regs = op.get("regions")
        if isinstance(regs, list):
            for r in regs:
                if isinstance(r, list):
                    for b in r:
                        if isinstance(b, dict) and isinstance(b.get("ops"), list):
                            yield op, r, b


def _values(x):
    """every value definition: (dict with "id" and "type")"""
    out = []
    for op in _ops(x):
        for r in op.get("results") or []:
            if isinstance(r, dict) and "id" in r:
                out.append(r)
    for _, _, b in _blocks(x):
        args = b.get("args")
        for a in args if isinstance(args, list) else []:
            if isinstance(a, dict) and "id" in a:
                out.append(a)
    return out


# ------------------------------------------------------------ type mutations

def mutate_type(t, rng):
    if not isinstance(t, str):
        return rng.choice(["tile<4xf32>", 7, None])
    r = rng.random()
    m = re.match(r"^tile<(.*)>$", t)
    if m and r < 0.35:  # element type
        inner = m.group(1)
        parts = inner.rsplit("x", 1) if "x" in inner and not inner.startswith("ptr") else ["", inner]
        shape = parts[0] + "x" if len(parts) == 2 and parts[0] else ""
        return "tile<%s%s>" % (shape, rng.choice(ELEM_TYPES))
    if m and r < 0.7:  # shape: a dimension changed, added or removed
        dims = re.findall(r"(\d+)x", m.group(1))
        if dims and rng.random() < 0.5:
            d = rng.choice(dims)
            return t.replace(d + "x", str(rng.choice([1, 2, 3, 7, 64, 4096] + HUGE[:4])) + "x", 1)
        if dims and rng.random() < 0.5:
            return t.replace(dims[0] + "x", "", 1)
        return "tile<%dx%s" % (rng.choice([2, 4, 8, 128]), t[len("tile<"):])
    return rng.choice(["token", "tile<i32>", "tile<128xf16>", "tensor_view<?xf32, strides=[?]>",
                       "tile<ptr<f32>>", "partition_view<tile=(8), tensor_view<?xf32, strides=[1]>>",
                       "", "tile<", "tile<0xf32>", "tile<-4xf32>", "f32"])


def mutate_layout(lay, rng):
    if not isinstance(lay, str) or rng.random() < 0.3:
        return rng.choice(["(1,32,4):(0,1,32)", "(8,32,4):(128,1,32)", "(1):(0)", "", "(", "x",
                           "(1,32,4):(0,0)", "(2,2):(1,1)", 5])
    nums = re.findall(r"-?\d+", lay)
    if not nums:
        return lay + "x"
    n = rng.choice(nums)
    return lay.replace(n, str(rng.choice([0, 1, 2, 3, 5, 64, 4096, -1, 2**31, 2**40])), 1)


# ---------------------------------------------------------------- mutations

def _m_delete_key(doc, rng, pools):
    cands = [(c, k) for c, k, _ in _nodes(doc) if isinstance(c, dict)]
    c, k = rng.choice(cands)
    del c[k]


def _value_id(v):
    return v.get("id") if isinstance(v, dict) else None


def _visible(ops, seen, out):
    """(op, the values defined before it that it may use) for every op under ops"""
    seen = list(seen)
    for op in ops:
        if not isinstance(op, dict):
            continue
        out.append((op, list(seen)))
        for r in op.get("regions") or []:
            for b in r if isinstance(r, list) else []:
                if isinstance(b, dict):
                    args = [a for a in b.get("args") or [] if isinstance(a, dict) and "id" in a]
                    _visible(b.get("ops") or [], seen + args, out)
        seen += [r for r in op.get("results") or [] if isinstance(r, dict) and "id" in r]
    return out


def _m_swap_operand(doc, rng, pools):
    mod = doc.get("module") if isinstance(doc, dict) else None
    top = mod.get("ops") if isinstance(mod, dict) else None
    cands = [(op, vis) for op, vis in _visible(top if isinstance(top, list) else [], [], [])
             if isinstance(op.get("operands"), list) and op["operands"] and vis]
    if not cands:
        return _m_rename_op(doc, rng, pools)
    op, vis = rng.choice(cands)
    i = rng.randrange(len(op["operands"]))
    cur = op["operands"][i]
    types = {_value_id(v): v.get("type") for v in vis if isinstance(_value_id(v), str)}
    cur_type = types.get(cur) if isinstance(cur, str) else None
    other = [v["id"] for v in vis if v.get("type") != cur_type] or [v["id"] for v in vis]
    op["operands"][i] = rng.choice(other)


def _m_undefined_value(doc, rng, pools):
    ops = [o for o in _ops(doc) if isinstance(o.get("operands"), list) and o["operands"]]
    if not ops:
        return _m_delete_key(doc, rng, pools)
    op = rng.choice(ops)
    i = rng.randrange(len(op["operands"]))
    vals = [v["id"] for v in _values(doc) if isinstance(v.get("id"), str)]
    op["operands"][i] = rng.choice(["%999999", "%-1", "", "x", "%" + "9" * 30,
                                    vals[-1] if vals else "%0", 3, None, ["%0"]])


def _m_result_type(doc, rng, pools):
    vals = _values(doc)
    if not vals:
        return _m_delete_key(doc, rng, pools)
    v = rng.choice(vals)
    if "layout" in v and rng.random() < 0.4:
        lays = pools.get("layouts") or []
        v["layout"] = rng.choice(lays) if lays and rng.random() < 0.5 else mutate_layout(v["layout"], rng)
    else:
        v["type"] = mutate_type(v.get("type"), rng)


def _m_empty_region(doc, rng, pools):
    blocks = list(_blocks(doc))
    if not blocks:
        return _m_delete_key(doc, rng, pools)
    op, region, b = rng.choice(blocks)
    r = rng.random()
    if r < 0.3:
        b["ops"] = []
    elif r < 0.6 and b["ops"]:
        b["ops"].pop()                       # the terminator
    elif r < 0.75:
        region.clear()                       # a region with no block
    elif r < 0.9:
        op["regions"] = []                   # no regions at all
    else:
        region.append({"args": [], "ops": []})   # one block too many


def _m_rename_op(doc, rng, pools):
    ops = list(_ops(doc))
    if not ops:
        return _m_delete_key(doc, rng, pools)
    op = rng.choice(ops)
    names = pools.get("ops") or ["cuda_tile.addf"]
    r = rng.random()
    if r < 0.7:
        op["op"] = rng.choice(names)
    elif r < 0.85:
        op["op"] = op["op"].split(".")[0] + ".no_such_op"
    else:
        op["op"] = rng.choice(["", "addf", "nv_tileas.", ".", "cuda_tile.entry"])


def _m_huge_dims(doc, rng, pools):
    r = rng.random()
    if r < 0.4:  # a dimension in a type string
        vals = [v for v in _values(doc) if isinstance(v.get("type"), str) and re.search(r"\d+x", v["type"])]
        if vals:
            v = rng.choice(vals)
            d = rng.choice(re.findall(r"(\d+)x", v["type"]))
            v["type"] = v["type"].replace(d + "x", str(rng.choice(HUGE)) + "x", 1)
            return
    if r < 0.6:  # a layout size or stride
        vals = [v for v in _values(doc) if isinstance(v.get("layout"), str)]
        if vals:
            v = rng.choice(vals)
            nums = re.findall(r"\d+", v["layout"])
            if nums:
                v["layout"] = v["layout"].replace(rng.choice(nums), str(rng.choice(HUGE)), 1)
                return
    ints = [(c, k) for c, k, v in _nodes(doc) if isinstance(v, int) and not isinstance(v, bool)]
    if ints:
        c, k = rng.choice(ints)
        c[k] = rng.choice(HUGE)
    else:
        _m_delete_key(doc, rng, pools)


def _m_delete_op(doc, rng, pools):
    blocks = [b for _, _, b in _blocks(doc) if b["ops"]]
    if not blocks:
        return _m_delete_key(doc, rng, pools)
    b = rng.choice(blocks)
    del b["ops"][rng.randrange(len(b["ops"]))]


def _m_duplicate_op(doc, rng, pools):
    blocks = [b for _, _, b in _blocks(doc) if b["ops"]]
    if not blocks:
        return _m_delete_key(doc, rng, pools)
    b = rng.choice(blocks)
    i = rng.randrange(len(b["ops"]))
    copy = json.loads(json.dumps(b["ops"][i]))
    if rng.random() < 0.7:  # fresh result names: a second computation, not a redefinition
        for n, r in enumerate(copy.get("results") or []):
            if isinstance(r, dict):
                r["id"] = "%%%d" % (900000 + rng.randrange(90000) * 10 + n)
    b["ops"].insert(rng.randrange(i, len(b["ops"]) + 1), copy)


def _m_wrong_kind(doc, rng, pools):
    cands = [(c, k) for c, k, _ in _nodes(doc)]
    c, k = rng.choice(cands)
    c[k] = rng.choice([None, 0, -1, 1.5, True, "", "x", [], {}, [1, 2], {"a": 1}])


_TREE = {
    "delete_key": _m_delete_key, "swap_operand": _m_swap_operand,
    "undefined_value": _m_undefined_value, "result_type": _m_result_type,
    "empty_region": _m_empty_region, "rename_op": _m_rename_op,
    "huge_dims": _m_huge_dims, "delete_op": _m_delete_op,
    "duplicate_op": _m_duplicate_op, "wrong_kind": _m_wrong_kind,
}


# ------------------------------------------------------- byte-level mutations

class _Dup(dict):
    """an object to be written with one key twice"""


def _dump(x, out):
    if isinstance(x, dict):
        items = list(x.items())
        if isinstance(x, _Dup) and items:
            items.insert(x.dup_at, items[x.dup_from])
        out.append("{")
        for i, (k, v) in enumerate(items):
            if i:
                out.append(", ")
            out.append(json.dumps(k))
            out.append(": ")
            _dump(v, out)
        out.append("}")
    elif isinstance(x, list):
        out.append("[")
        for i, v in enumerate(x):
            if i:
                out.append(", ")
            _dump(v, out)
        out.append("]")
    else:
        out.append(json.dumps(x))


def _with_duplicate_key(doc, rng):
    cands = [(c, k) for c, k, v in _nodes(doc) if isinstance(v, dict) and v]
    if isinstance(doc, dict) and doc:
        cands.append((None, None))
    c, k = rng.choice(cands)
    obj = doc if c is None else c[k]
    d = _Dup(obj)
    n = len(d)
    d.dup_from = rng.randrange(n)
    d.dup_at = rng.randrange(n + 1)
    if c is None:
        doc = d
    else:
        c[k] = d
    out = []
    _dump(doc, out)
    return "".join(out).encode()


def _bad_utf8(data, rng):
    quotes = [m.start() for m in re.finditer(rb'"', data)]
    at = rng.choice(quotes) + 1 if quotes else rng.randrange(len(data) + 1)
    return data[:at] + rng.choice(BAD_UTF8) + data[at:]


def _truncate(data, rng):
    return data[:rng.randrange(len(data))] if data else data


# how often each tree mutation is drawn: the ones that keep the document
# well formed JSON IR (and so reach the stage's own code) most
_WEIGHTS = {"result_type": 6, "swap_operand": 5, "huge_dims": 4, "rename_op": 4,
            "empty_region": 3, "delete_key": 3, "duplicate_op": 2, "delete_op": 1,
            "undefined_value": 1, "wrong_kind": 2}


def mutate_json(data, rng, pools):
    """one mutant of a JSON IR document (bytes) -> (bytes, [classes])"""
    doc = json.loads(data)
    classes = []
    n = rng.choice([1, 1, 1, 2, 3])
    names = list(_WEIGHTS)
    weights = [_WEIGHTS[c] for c in names]
    for _ in range(n):
        c = rng.choices(names, weights)[0]
        try:
            _TREE[c](doc, rng, pools)
            classes.append(c)
        except (TypeError, AttributeError, KeyError, IndexError, ValueError):
            pass    # an earlier mutation left a shape this one does not expect
    r = rng.random()
    if r < 0.04:
        out = _with_duplicate_key(doc, rng)
        classes.append("duplicate_key")
    else:
        out = json.dumps(doc, indent=1).encode()
    if 0.04 <= r < 0.08:
        out = _truncate(out, rng)
        classes.append("truncation")
    elif 0.08 <= r < 0.12:
        out = _bad_utf8(out, rng)
        classes.append("bad_utf8")
    return out, classes


def json_pools(docs):
    """what the mutations draw from: every op name and layout of the seeds"""
    ops, lays = set(), set()
    for d in docs:
        for o in _ops(d):
            ops.add(o["op"])
        for v in _values(d):
            if isinstance(v.get("layout"), str):
                lays.add(v["layout"])
    return {"ops": sorted(ops), "layouts": sorted(lays)}


# ---------------------------------------------------------------------- PTX

_INSTR = ["add.s32", "mov.u32", "ld.global.f32", "st.global.f32", "bar.sync", "shfl.sync.bfly.b32",
          "cvt.rn.f16.f32", "mul.wide.s32", "setp.lt.s32", "bra.uni", "ret", "fma.rn.f32", "nosuch.op"]


def mutate_ptx(data, rng):
    """one mutant of a PTX file (bytes) -> (bytes, [classes])"""
    lines = data.split(b"\n")
    classes = []
    for _ in range(rng.choice([1, 1, 2, 3])):
        c = rng.choice(PTX_CLASSES)
        classes.append(c)
        i = rng.randrange(len(lines))
        if c == "delete_line" and len(lines) > 1:
            del lines[i]
        elif c == "duplicate_line":
            lines.insert(i, lines[rng.randrange(len(lines))])
        elif c == "swap_lines":
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif c == "rename_instr":
            body = [k for k, ln in enumerate(lines) if re.match(rb"\s+[a-z]", ln) and ln.rstrip().endswith(b";")]
            if body:
                k = rng.choice(body)
                lines[k] = re.sub(rb"^(\s+)[a-z][\w.]*", lambda m: m.group(1) + rng.choice(_INSTR).encode(),
                                  lines[k], count=1)
        elif c == "undefined_register":
            regs = [k for k, ln in enumerate(lines) if re.search(rb"%[a-z]+\d+", ln)]
            if regs:
                k = rng.choice(regs)
                lines[k] = re.sub(rb"%([a-z]+)\d+", rb"%\g<1>99999", lines[k], count=1)
        elif c == "huge_dims":
            nums = [k for k, ln in enumerate(lines) if re.search(rb"\d+", ln)]
            if nums:
                k = rng.choice(nums)
                lines[k] = re.sub(rb"\d+", str(rng.choice(HUGE)).encode(), lines[k], count=1)
        elif c == "target_version":
            for k, ln in enumerate(lines):
                if ln.startswith(b".target") or ln.startswith(b".version"):
                    lines[k] = rng.choice([b".target sm_999", b".version 99.9", b".target", b"",
                                           b".version 7.0", b".target sm_75", b".address_size 16"])
                    break
        elif c == "truncation":
            out = b"\n".join(lines)
            lines = out[:rng.randrange(len(out) + 1)].split(b"\n")
        elif c == "bad_utf8":
            lines[i] = lines[i] + rng.choice(BAD_UTF8)
    return b"\n".join(lines), classes
