"""The cuTile kernel parameter ABI (docs/abi.md section 4), stdlib only.

* decode_symbol(): what cuTile's mangled entry name says about the kernel's
  parameters (`<name>_Kt1_<param>_<param>...`).
* expand(): the manifest's cuTile-level parameters (arrays, scalars) to the
  flat list of PTX parameters: an array of rank r is ptr, shape[0..r-1],
  stride[0..r-1]; shapes and strides are u32 (index i32) or u64 (index i64);
  scalars take their natural width; f16/bf16 are 2 bytes, align 2.
* layout(): the offset of each flat parameter (natural alignment, in order),
  and the total, as cuLaunchKernel packs them.
* pack(): the bytes of each flat parameter and of the whole buffer.
"""
import re
import struct

# name: (bytes, struct code or None, kind)
DTYPES = {
    "f16": (2, "e", "float"),
    "bf16": (2, None, "float"),
    "f32": (4, "f", "float"),
    "f64": (8, "d", "float"),
    "i8": (1, "b", "int"),
    "i16": (2, "h", "int"),
    "i32": (4, "i", "int"),
    "i64": (8, "q", "int"),
    "u8": (1, "B", "int"),
    "u16": (2, "H", "int"),
    "u32": (4, "I", "int"),
    "u64": (8, "Q", "int"),
}
INDEX_TYPES = {"i32": "u32", "i64": "u64"}


class AbiError(Exception):
    pass


def bf16_bits(x):
    """float -> bf16 bits, round to nearest even (as cvt.rn.bf16.f32)."""
    (u,) = struct.unpack("<I", struct.pack("<f", x))
    if (u & 0x7F800000) == 0x7F800000 and (u & 0x7FFFFF):
        return 0x7FC0
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF


def scalar_bytes(dtype, value):
    size, code, kind = DTYPES[dtype]
    if dtype == "bf16":
        return struct.pack("<H", bf16_bits(float(value)))
    if kind == "float":
        return struct.pack("<" + code, float(value))
    return struct.pack("<" + code, int(value))


# --- cuTile's mangled names --------------------------------------------------

_ARRAY = re.compile(r"^A(\d+)([a-z]+\d+)$")
_SCALAR = re.compile(r"^S([a-z]+\d+)$")
_CONST = re.compile(r"^I(-?\d+)$")
_MOD = re.compile(r"^(\d+)([lt])(\d+)$")


def decode_symbol(symbol):
    """Parameters a cuTile entry name promises, in order.

    Returns (python_name, params) where each param is one of
      {"kind": "array", "dtype": "f32", "rank": 1, "index": "i32",
       "stride_const": {dim: value}, "stride_lower": {dim: bound}}
      {"kind": "scalar", "dtype": "f32"}
      {"kind": "const", "value": 128}     (not a runtime parameter)
    """
    m = re.match(r"^(.*)_K(t\d+)((?:_[A-Za-z0-9-]+)*)$", symbol)
    if not m:
        raise AbiError("not a cuTile symbol (<name>_Kt<n>_<params>): %s" % symbol)
    pyname, toks = m.group(1), [t for t in m.group(3).split("_") if t]
    params = []
    for tok in toks:
        m = _ARRAY.match(tok)
        if m:
            params.append({"kind": "array", "rank": int(m.group(1)), "dtype": m.group(2),
                           "index": "i32", "stride_const": {}, "stride_lower": {}})
            continue
        m = _SCALAR.match(tok)
        if m:
            params.append({"kind": "scalar", "dtype": m.group(1)})
            continue
        m = _CONST.match(tok)
        if m:
            params.append({"kind": "const", "value": int(m.group(1))})
            continue
        m = _MOD.match(tok)
        if m and params and params[-1]["kind"] == "array":
            mask, what, val = int(m.group(1)), m.group(2), int(m.group(3))
            # the mask's bit d names dim d (counted from 0)
            dims = [d for d in range(params[-1]["rank"]) if mask & (1 << d)]
            key = "stride_lower" if what == "l" else "stride_const"
            for d in dims:
                params[-1][key][d] = val
            continue
        if tok == "w" and params and params[-1]["kind"] == "array":
            params[-1]["index"] = "i64"
            continue
        raise AbiError("cannot read token %r of %s" % (tok, symbol))
    for p in params:
        if p["kind"] in ("array", "scalar") and p["dtype"] not in DTYPES:
            raise AbiError("unknown dtype %s in %s" % (p["dtype"], symbol))
    return pyname, params


# --- flat PTX parameter list ---------------------------------------------------

def expand(params):
    """Manifest params -> flat list of dicts {name, ctype, size, align, src}.

    A manifest param is {"name", "array": dtype, "shape": [...], "index": "i32"}
    or {"name", "scalar": dtype}. src says what the value is: ("ptr", name),
    ("shape", name, d), ("stride", name, d) or ("scalar", name).
    """
    flat = []
    for p in params:
        if "array" in p:
            rank = len(p["shape"])
            it = INDEX_TYPES[p.get("index", "i32")]
            isz = DTYPES[it][0]
            flat.append({"name": p["name"] + ".ptr", "ctype": "u64", "size": 8, "align": 8,
                         "src": ("ptr", p["name"])})
            for d in range(rank):
                flat.append({"name": "%s.shape%d" % (p["name"], d), "ctype": it, "size": isz,
                             "align": isz, "src": ("shape", p["name"], d)})
            for d in range(rank):
                flat.append({"name": "%s.stride%d" % (p["name"], d), "ctype": it, "size": isz,
                             "align": isz, "src": ("stride", p["name"], d)})
        elif "scalar" in p:
            dt = p["scalar"]
            size = DTYPES[dt][0]
            flat.append({"name": p["name"], "ctype": dt, "size": size, "align": size,
                         "src": ("scalar", p["name"])})
        else:
            raise AbiError("param %r is neither array nor scalar" % p.get("name"))
    return flat


def layout(flat):
    """[(ordinal, offset, size)] and the total bytes, natural alignment."""
    out, off = [], 0
    for i, f in enumerate(flat):
        a = f["align"]
        off = (off + a - 1) // a * a
        out.append((i, off, f["size"]))
        off += f["size"]
    return out, off


def values_bytes(flat, values):
    """values: {src tuple: python value}. Returns [bytes] per flat param."""
    out = []
    for f in flat:
        v = values[f["src"]]
        if f["src"][0] == "scalar":
            out.append(scalar_bytes(f["ctype"], v))
        else:
            code = {"u32": "<I", "u64": "<Q"}[f["ctype"]]
            if f["ctype"] == "u32" and not 0 <= int(v) < 1 << 32:
                raise AbiError("%s = %d does not fit u32" % (f["name"], v))
            out.append(struct.pack(code, int(v)))
    return out


def pack(flat, values):
    """(per-param bytes, whole buffer) for cuLaunchKernel."""
    parts = values_bytes(flat, values)
    lay, total = layout(flat)
    buf = bytearray(total)
    for (i, off, size), b in zip(lay, parts):
        buf[off:off + size] = b
    return parts, bytes(buf)


def unpack(flat, buf):
    """Inverse of pack() over a whole buffer: {src: value} (bf16 as bits)."""
    lay, total = layout(flat)
    if len(buf) < total:
        raise AbiError("buffer of %d bytes, need %d" % (len(buf), total))
    vals = {}
    for (i, off, size), f in zip(lay, flat):
        raw = buf[off:off + size]
        if f["src"][0] == "scalar":
            dt = f["ctype"]
            if dt == "bf16":
                (bits,) = struct.unpack("<H", raw)
                vals[f["src"]] = struct.unpack("<f", struct.pack("<I", bits << 16))[0]
            else:
                vals[f["src"]] = struct.unpack("<" + DTYPES[dt][1], raw)[0]
        else:
            vals[f["src"]] = struct.unpack({"u32": "<I", "u64": "<Q"}[f["ctype"]], raw)[0]
    return vals


def check_against_symbol(symbol, params):
    """Differences between manifest params and what the symbol says ([] if none)."""
    problems = []
    try:
        _, sym = decode_symbol(symbol)
    except AbiError as e:
        return [str(e)]
    runtime = [p for p in sym if p["kind"] != "const"]
    if len(runtime) != len(params):
        return ["symbol has %d runtime params, manifest %d" % (len(runtime), len(params))]
    for i, (s, p) in enumerate(zip(runtime, params)):
        name = p.get("name", "#%d" % i)
        if s["kind"] == "array":
            if "array" not in p:
                problems.append("%s: symbol says array, manifest scalar" % name)
                continue
            if p["array"] != s["dtype"]:
                problems.append("%s: dtype %s, symbol %s" % (name, p["array"], s["dtype"]))
            if len(p["shape"]) != s["rank"]:
                problems.append("%s: rank %d, symbol %d" % (name, len(p["shape"]), s["rank"]))
            if p.get("index", "i32") != s["index"]:
                problems.append("%s: index %s, symbol %s" % (name, p.get("index", "i32"), s["index"]))
        else:
            if "scalar" not in p:
                problems.append("%s: symbol says scalar, manifest array" % name)
            elif p["scalar"] != s["dtype"]:
                problems.append("%s: dtype %s, symbol %s" % (name, p["scalar"], s["dtype"]))
    return problems
