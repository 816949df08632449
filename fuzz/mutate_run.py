"""mutate_run.py: structured mutations of what tile-run reads (issue 36, item 5):
its PTX, its .npy inputs and its command line. Used by scripts/fuzz-run.

mutate_ptx(data, rng) -> (bytes, [classes]): mutate_ir.py's PTX mutations
(lines deleted, repeated, swapped, instruction renamed, register undefined,
number made huge, .target/.version changed, truncation, bad UTF-8) and the ones
an interpreter cares about:

  branch_target   a bra/call's target changed (another label of the file, one
                  that does not exist, the entry), or a bra inserted
  guard           a predicate guard removed, negated, or added to an instruction
  vector_width    .v2/.v4/.v8 changed, or a { } operand list shortened/lengthened
  address_offset  an address [reg+N] given a huge, negative, unaligned offset
  ntid            .reqntid/.maxntid/.minnctapersm/.maxnreg changed, removed, added
  reg_range       a .reg %r<N> range made 0, 1, huge, or its type changed
  param           an entry .param deleted, added, retyped, or its array resized
  async_operand   an operand of tcgen05/mbarrier/setmaxnreg/cp.async/wgmma/
                  bar/shfl changed (an immediate, a register, a modifier)
  shared_size     a .shared array's size made 0 or huge, its alignment changed
  immediate       an immediate operand made 0, -1, 2^31, 2^63, 1e30, NaN bits

mutate_npy(data, rng) -> (bytes, [classes]): the magic or version, the header
length, the header dict (descr, fortran_order, shape: missing keys, bad values,
extra keys, not a dict), the data truncated or extended.

mutate_args(args, rng) -> ([args], [classes]): an argument dropped, added,
repeated or swapped; a number made bad ('', 1e999, 0x, -1, 2^64, 1.5, abc);
FILE.npy@N with N out of range; tmap: specs (argument index, box, swizzle,
oob, dims) damaged; and the options: --grid, --block, --entry, --seed.

Pure standard library.
"""
import re
import struct

import mutate_ir

PTX_CLASSES = ["branch_target", "guard", "vector_width", "address_offset", "ntid", "reg_range",
               "param", "async_operand", "shared_size", "immediate"]
NPY_CLASSES = ["npy_magic", "npy_header_len", "npy_descr", "npy_shape", "npy_fortran", "npy_dict",
               "npy_truncate", "npy_extend"]
ARG_CLASSES = ["arg_drop", "arg_add", "arg_swap", "arg_number", "arg_offset", "arg_tmap", "opt_grid",
               "opt_block", "opt_entry", "opt_seed"]

NUMS = ["0", "-1", "1", "2", "3", "7", "31", "32", "33", "63", "64", "127", "128", "255", "256", "511",
        "512", "513", "1024", "4096", "65535", "2147483647", "2147483648", "4294967295",
        "4294967296", "9223372036854775807", "18446744073709551615", "99999999999999999999999"]


def _num(rng):
    return rng.choice(NUMS)


def _instr_lines(lines):
    return [k for k, ln in enumerate(lines)
            if re.match(rb"\s+(@!?%\w+\s+)?[a-z]", ln) and ln.rstrip().endswith(b";")
            and not re.match(rb"\s+\.(reg|shared|local|param|const|global)\b", ln)]


def _labels(lines):
    return [m.group(1) for ln in lines for m in [re.match(rb"^\s*([$\w]+):", ln)] if m]


def _m_branch_target(lines, rng):
    labels = _labels(lines)
    brs = [k for k, ln in enumerate(lines) if re.search(rb"\b(bra|call)(\.uni)?\b", ln)]
    if brs and rng.random() < 0.7:
        k = rng.choice(brs)
        choices = labels + [b"$NOWHERE", b"0", b"-1", b"%r1", b"%rd1", b""]
        tgt = rng.choice(choices)
        if b"call" in lines[k]:
            lines[k] = re.sub(rb"(call(?:\.uni)?\s+(?:\([^)]*\),\s*)?)([$\w]+)", lambda m: m.group(1) + tgt,
                              lines[k], count=1)
        else:
            lines[k] = re.sub(rb"(bra(?:\.uni)?\s+)([$\w%-]*)", lambda m: m.group(1) + tgt, lines[k], count=1)
        return
    body = _instr_lines(lines)
    if body:
        k = rng.choice(body)
        tgt = rng.choice(labels) if labels else b"$L_none"
        guard = rng.choice([b"", b"@%p1 ", b"@!%p1 "])
        lines.insert(k + rng.choice([0, 1]), b"\t" + guard + b"bra.uni " + tgt + b";")


def _m_guard(lines, rng):
    guarded = [k for k, ln in enumerate(lines) if re.match(rb"\s+@!?%\w+", ln)]
    r = rng.random()
    if guarded and r < 0.4:
        k = rng.choice(guarded)
        lines[k] = re.sub(rb"@!?%\w+\s+", b"", lines[k], count=1)
    elif guarded and r < 0.6:
        k = rng.choice(guarded)
        lines[k] = re.sub(rb"@(!?)", lambda m: b"@" if m.group(1) else b"@!", lines[k], count=1)
    else:
        preds = sorted(set(re.findall(rb"%p\d+", b"\n".join(lines)))) or [b"%p1"]
        body = _instr_lines(lines)
        if body:
            k = rng.choice(body)
            p = rng.choice(preds + [b"%r1", b"%p99999", b"%tid.x"])
            lines[k] = re.sub(rb"^(\s+)(@!?%\w+\s+)?", lambda m: m.group(1) + b"@" + rng.choice([b"", b"!"]) + p + b" ",
                              lines[k], count=1)


def _m_vector_width(lines, rng):
    vec = [k for k, ln in enumerate(lines) if re.search(rb"\.v[248]\b|\{[^}]*\}", ln)]
    if not vec:
        return _m_immediate(lines, rng)
    k = rng.choice(vec)
    if re.search(rb"\.v[248]\b", lines[k]) and rng.random() < 0.5:
        lines[k] = re.sub(rb"\.v[248]\b", rng.choice([b".v2", b".v4", b".v8", b".v3", b".v16", b""]), lines[k], count=1)
    else:
        def edit(m):
            ops = m.group(1).split(b",")
            if rng.random() < 0.5 and len(ops) > 1:
                ops.pop(rng.randrange(len(ops)))
            else:
                ops.insert(rng.randrange(len(ops) + 1), rng.choice(ops))
            return b"{" + b",".join(ops) + b"}"
        lines[k] = re.sub(rb"\{([^}]*)\}", edit, lines[k], count=1)


def _m_address_offset(lines, rng):
    addr = [k for k, ln in enumerate(lines) if re.search(rb"\[[^\]]+\]", ln) and not ln.lstrip().startswith(b".")]
    if not addr:
        return _m_immediate(lines, rng)
    k = rng.choice(addr)
    off = rng.choice([b"+1", b"+2", b"+3", b"+4096", b"+-4", b"-8", b"+2147483647", b"+4294967296",
                      b"+9223372036854775807", b"+-9223372036854775808", b"+0x7fffffffffffffff", b"+"])

    def edit(m):
        inner = re.sub(rb"[+-]\s*-?(0x[0-9a-fA-F]+|\d+)$", b"", m.group(1))
        return b"[" + inner + off + b"]"
    lines[k] = re.sub(rb"\[([^\]]+)\]", edit, lines[k], count=1)


def _m_ntid(lines, rng):
    dirs = [k for k, ln in enumerate(lines) if re.search(rb"\.(reqntid|maxntid|minnctapersm|maxnreg|maxnctapersm)\b", ln)]
    val = rng.choice([b"0", b"1", b"31", b"33", b"64", b"1024", b"1025", b"2048", b"4294967296",
                      b"32, 32, 32", b"32, 0", b"-1", b"", b"32, 2, 2, 2"])
    if dirs and rng.random() < 0.7:
        k = rng.choice(dirs)
        if rng.random() < 0.2:
            lines[k] = re.sub(rb"\.(reqntid|maxntid|minnctapersm|maxnreg|maxnctapersm)\s*[\d, ]*", b"", lines[k])
        else:
            lines[k] = re.sub(rb"(\.(?:reqntid|maxntid|minnctapersm|maxnreg|maxnctapersm))\s*[\d, -]*",
                              lambda m: m.group(1) + b" " + val, lines[k], count=1)
        return
    ents = [k for k, ln in enumerate(lines) if re.search(rb"\.entry\b", ln)]
    if ents:
        # after the parameter list's closing ')'
        k = rng.choice(ents)
        for j in range(k, min(k + 60, len(lines))):
            if b")" in lines[j]:
                lines[j] = lines[j].replace(b")", b")\n" + rng.choice([b".reqntid ", b".maxntid ", b".maxnreg "]) + val, 1)
                break


def _m_reg_range(lines, rng):
    regs = [k for k, ln in enumerate(lines) if re.match(rb"\s*\.reg\b", ln)]
    if not regs:
        return _m_immediate(lines, rng)
    k = rng.choice(regs)
    r = rng.random()
    if r < 0.6:
        lines[k] = re.sub(rb"<\d+>", b"<" + rng.choice([b"0", b"1", b"2", b"65536", b"2147483647",
                                                        b"4294967296", b"-1", b""]) + b">", lines[k], count=1)
    elif r < 0.85:
        lines[k] = re.sub(rb"\.(b|u|s|f)(8|16|32|64|128)|\.pred", rng.choice(
            [b".b32", b".b64", b".pred", b".f16", b".b16", b".f64", b".b128", b".v4.b32", b".x"]), lines[k], count=1)
    else:
        del lines[k]


def _m_param(lines, rng):
    params = [k for k, ln in enumerate(lines) if re.search(rb"\.param\b", ln) and not re.search(rb"\b(ld|st|cvta|mov)\.", ln)]
    if not params:
        return _m_immediate(lines, rng)
    k = rng.choice(params)
    r = rng.random()
    if r < 0.3:
        # delete the declaration (keep the line's comma structure loosely)
        lines[k] = re.sub(rb"\.param\s+[^,)]*,?", b"", lines[k], count=1)
    elif r < 0.55:
        lines[k] = re.sub(rb"\.param\s+((\.align\s+\d+\s+)?)\.(u|s|b|f)(8|16|32|64)",
                          lambda m: b".param " + m.group(1) + rng.choice([b".u32", b".u64", b".b8", b".f32", b".b16",
                                                                         b".f64", b".s8", b".pred"]),
                          lines[k], count=1)
    elif r < 0.75:
        if re.search(rb"\[\d+\]", lines[k]):
            lines[k] = re.sub(rb"\[\d+\]", b"[" + rng.choice([b"0", b"1", b"4", b"127", b"129", b"4096",
                                                             b"2147483648"]) + b"]", lines[k], count=1)
        else:
            lines[k] = re.sub(rb"(\.param\s+[^,)]*?)(\s*[,)])", lambda m: m.group(1) + b"[" +
                              rng.choice([b"2", b"128", b"0"]) + b"]" + m.group(2), lines[k], count=1)
    else:
        extra = rng.choice([b".param .u64 fz_extra", b".param .u32 fz_extra", b".param .align 64 .b8 fz_map[128]",
                            b".param .f32 fz_f"])
        lines[k] = re.sub(rb"\.param\b", extra + b", .param", lines[k], count=1)


ASYNC = rb"\b(tcgen05|mbarrier|setmaxnreg|cp\.async|wgmma|bar|barrier|shfl|elect|vote|redux|ldmatrix|stmatrix|mma|fence|griddepcontrol|cp\.reduce|multimem|atom|red)\b"
MODIFIERS = [(rb"\.cta_group::\d", [b".cta_group::1", b".cta_group::2", b".cta_group::3", b""]),
             (rb"\.shared::(cta|cluster)", [b".shared::cta", b".shared::cluster", b".global", b""]),
             (rb"\.(inc|dec)\b", [b".inc", b".dec", b""]),
             (rb"\.sync\.aligned", [b".sync", b".aligned", b""]),
             (rb"\.kind::\w+", [b".kind::f16", b".kind::tf32", b".kind::i8", b".kind::f8f6f4", b".kind::mxf4", b""]),
             (rb"\.(32x32b|16x64b|16x128b|16x256b|16x32bx2)", [b".32x32b", b".16x64b", b".16x256b", b".16x32bx2", b".8x8b"]),
             (rb"\.x\d+\b", [b".x1", b".x2", b".x4", b".x128", b".x256", b".x3", b""]),
             (rb"\.m\d+n\d+k\d+", [b".m64n8k16", b".m64n256k16", b".m16n8k16", b".m64n7k16", b".m128n256k16"]),
             (rb"\.(expect_tx|complete_tx)", [b".expect_tx", b".complete_tx", b""])]


def _m_async_operand(lines, rng):
    cands = [k for k, ln in enumerate(lines) if re.search(ASYNC, ln) and ln.rstrip().endswith(b";")]
    if not cands:
        return _m_immediate(lines, rng)
    k = rng.choice(cands)
    ln = lines[k]
    r = rng.random()
    mods = [(pat, alts) for pat, alts in MODIFIERS if re.search(pat, ln)]
    if mods and r < 0.4:
        pat, alts = rng.choice(mods)
        lines[k] = re.sub(pat, rng.choice(alts), ln, count=1)
        return
    # an operand: immediate -> another, register -> another register of its kind
    m = re.match(rb"(\s*(?:@!?%\w+\s+)?[\w.:]+\s+)(.*);", ln)
    if not m:
        return
    ops = m.group(2).split(b",")
    i = rng.randrange(len(ops))
    op = ops[i]
    if rng.random() < 0.15 and len(ops) > 1:
        del ops[i]
    elif re.search(rb"%[a-z]+\d+", op) and rng.random() < 0.6:
        regs = sorted(set(re.findall(rb"%[a-z]+\d+", b"\n".join(lines))))
        ops[i] = re.sub(rb"%[a-z]+\d+", lambda _: rng.choice(regs), op, count=1)
    else:
        ops[i] = re.sub(rb"-?\b\d+\b", lambda _: _num(rng).encode(), op, count=1) if re.search(rb"\d", op) \
            else b" " + _num(rng).encode()
    lines[k] = m.group(1) + b",".join(ops) + b";"


def _m_shared_size(lines, rng):
    sh = [k for k, ln in enumerate(lines) if re.search(rb"\.(shared|local|global|const)\b.*\[\d*\]", ln)
          and ln.lstrip().startswith(b".")]
    if not sh:
        return _m_immediate(lines, rng)
    k = rng.choice(sh)
    if rng.random() < 0.7:
        lines[k] = re.sub(rb"\[\d*\]", b"[" + rng.choice([b"0", b"1", b"3", b"", b"49152", b"232448", b"232449",
                                                          b"1073741824", b"4294967296",
                                                          b"9223372036854775807"]) + b"]", lines[k], count=1)
    else:
        lines[k] = re.sub(rb"\.align\s+\d+", b".align " + rng.choice([b"0", b"3", b"1024", b"4096", b"2147483648"]),
                          lines[k], count=1)


def _m_immediate(lines, rng):
    body = [k for k in _instr_lines(lines) if re.search(rb"[, \[+-]-?(0x[0-9a-fA-F]+|0[fFdD][0-9a-fA-F]+|\d+)\b", lines[k])]
    if not body:
        return
    k = rng.choice(body)
    v = rng.choice([b"0", b"-1", b"1", b"2147483648", b"-2147483648", b"4294967295", b"9223372036854775807",
                    b"18446744073709551616", b"0x7fffffff", b"0f7FC00000", b"0fFF800000", b"0d7FF8000000000000",
                    b"1e30", b"0x", b"33", b"-33"])
    nums = list(re.finditer(rb"(?<=[, \[+-])-?(0x[0-9a-fA-F]+|0[fFdD][0-9a-fA-F]+|\d+)\b", lines[k]))
    # skip the numbers inside register names (%r12) by requiring a separator before
    if not nums:
        return
    m = rng.choice(nums)
    lines[k] = lines[k][:m.start()] + v + lines[k][m.end():]


_PTX = {"branch_target": _m_branch_target, "guard": _m_guard, "vector_width": _m_vector_width,
        "address_offset": _m_address_offset, "ntid": _m_ntid, "reg_range": _m_reg_range, "param": _m_param,
        "async_operand": _m_async_operand, "shared_size": _m_shared_size, "immediate": _m_immediate}
_PTX_WEIGHTS = {"branch_target": 3, "guard": 3, "vector_width": 2, "address_offset": 3, "ntid": 2,
                "reg_range": 2, "param": 2, "async_operand": 5, "shared_size": 1, "immediate": 3}


def mutate_ptx(data, rng):
    """one mutant of a PTX kernel -> (bytes, [classes]); one time in four
    mutate_ir's line-level mutations instead"""
    if rng.random() < 0.25:
        return mutate_ir.mutate_ptx(data, rng)
    lines = data.split(b"\n")
    classes = []
    names = list(_PTX_WEIGHTS)
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        c = rng.choices(names, [_PTX_WEIGHTS[n] for n in names])[0]
        try:
            _PTX[c](lines, rng)
        except (IndexError, ValueError):
            continue
        classes.append(c)
    return b"\n".join(lines), classes


# ---------------------------------------------------------------------- .npy

def _split_npy(data):
    """(version, header text, payload) or None"""
    if len(data) < 10 or data[:6] != b"\x93NUMPY":
        return None
    major = data[6]
    if major == 1:
        n = struct.unpack("<H", data[8:10])[0]
        return major, data[10:10 + n], data[10 + n:]
    if len(data) < 12:
        return None
    n = struct.unpack("<I", data[8:12])[0]
    return major, data[12:12 + n], data[12 + n:]


def _join_npy(major, header, payload, pad=True):
    if pad:
        header = header.rstrip(b"\n ")
        total = (10 if major == 1 else 12) + len(header) + 1
        header = header + b" " * ((64 - total % 64) % 64) + b"\n"
    if major == 1:
        return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header) & 0xffff) + header + payload
    return b"\x93NUMPY" + bytes([major & 0xff, 0]) + struct.pack("<I", len(header)) + header + payload


def mutate_npy(data, rng):
    parts = _split_npy(data)
    c = rng.choice(NPY_CLASSES)
    if parts is None:
        return data[:rng.randrange(len(data) + 1)], ["npy_truncate"]
    major, hdr, payload = parts
    if c == "npy_magic":
        b = bytearray(data)
        k = rng.randrange(8)
        b[k] = rng.choice([0, 0xff, ord("X"), 2, 3, 4]) if k >= 6 else rng.randrange(256)
        return bytes(b), [c]
    if c == "npy_header_len":
        n = rng.choice([0, 1, 5, len(hdr) - 1, len(hdr) + 1, len(hdr) + 4096, 0xffff])
        if major == 1:
            return data[:8] + struct.pack("<H", n & 0xffff) + data[10:], [c]
        return data[:8] + struct.pack("<I", n) + data[12:], [c]
    if c == "npy_descr":
        d = rng.choice(["<f8", "<f2", "|b1", "<c8", ">f4", ">i4", "<U4", "|O", "|V16", "<i16", "<f4", "|u1",
                        "<M8[s]", "", "f4", "<f0", "<f99999999999", "[('a','<f4')]", "|S0"])
        new = re.sub(rb"'descr':\s*('[^']*'|\[[^\]]*\])", ("'descr': '%s'" % d).encode() if not d.startswith("[")
                     else ("'descr': %s" % d).encode(), hdr, count=1)
        return _join_npy(major, new, payload), [c]
    if c == "npy_shape":
        s = rng.choice(["()", "(0,)", "(1,)", "(-1,)", "(3,)", "(1000000,)", "(4294967296,)", "(9223372036854775807,)",
                        "(2, 3)", "(65536, 65536)", "(4294967296, 4294967296)", "(1, 1, 1, 1, 1, 1, 1, 1, 1, 1)",
                        "(1.5,)", "('a',)", "[4]", "None", "(18446744073709551616,)", "(3037000500, 3037000500)"])
        new = re.sub(rb"'shape':\s*\([^)]*\)", ("'shape': %s" % s).encode(), hdr, count=1)
        return _join_npy(major, new, payload), [c]
    if c == "npy_fortran":
        v = rng.choice(["True", "1", "'x'", "None"])
        new = re.sub(rb"'fortran_order':\s*\w+", ("'fortran_order': %s" % v).encode(), hdr, count=1)
        return _join_npy(major, new, payload), [c]
    if c == "npy_dict":
        r = rng.random()
        if r < 0.3:      # a key removed
            key = rng.choice([b"descr", b"fortran_order", b"shape"])
            new = re.sub(rb"'" + key + rb"':\s*(\([^)]*\)|'[^']*'|\w+),?\s*", b"", hdr, count=1)
        elif r < 0.5:
            new = hdr.replace(b"{", b"{'extra': 1, ", 1)
        elif r < 0.7:
            new = rng.choice([b"[1, 2]", b"{", b"}", b"", b"{'descr': '<f4', 'descr': '<f8', 'fortran_order': False, 'shape': (4,), }",
                              b"{'descr': '<f4' 'fortran_order': False, 'shape': (4,)}", hdr.replace(b"'", b'"'),
                              hdr.replace(b"'", b""), hdr + b"\x00junk", b"\xff\xfe" + hdr])
        else:
            return _join_npy(major, hdr.rstrip(b"\n ") + b"  ", payload, pad=False), ["npy_dict"]
        return _join_npy(major, new, payload), [c]
    if c == "npy_truncate":
        return data[:rng.randrange(len(data) + 1)], [c]
    return data + bytes(rng.randrange(256) for _ in range(rng.choice([1, 3, 4, 64]))), [c]


# ---------------------------------------------------------------------- args

BAD_NUMBERS = ["", "-", "1e999", "-1e999", "0x", "0x1p", "-1", "18446744073709551616", "99999999999999999999",
               "1.5", "abc", "nan", "-nan", "inf", "-inf", "0x1p-3", "1e-400", "0b101", "1_000", " 1", "1 ",
               "0x8000000000000000", "-9223372036854775809", "2147483648", "-2147483649", "4294967296",
               "%d", "\xff", "1\n2", "4\t", "\x1b[2J", "x\ry"]
BAD_TMAPS = ["tmap:", "tmap:0", "tmap:0,", "tmap:99,64x64", "tmap:-1,64x64", "tmap:0,0x0", "tmap:0,64x",
             "tmap:0,x64", "tmap:0,64x64,swizzle=7", "tmap:0,64x64,swizzle=", "tmap:0,64x64,oob=zero",
             "tmap:0,64x64,dims=", "tmap:0,64x64,dims=0.0", "tmap:0,64x64,dims=9.9.9.9.9.9",
             "tmap:0,4294967296x64", "tmap:0,256x256", "tmap:0,1x1x1x1x1x1", "tmap:0,64x64,tf32,tf32",
             "tmap:0,64x64,bogus", "tmap:1,16x16,swizzle=128", "tmap:0,64x64,swizzle=32,oob=nan,tf32",
             "tmap:0,64x64\n,swizzle=32"]


def mutate_args(cmd, rng, npys):
    """cmd: {"opts": [...], "args": [...]} -> new dict, [classes]; npys: the
    .npy paths that may stand in for an argument"""
    opts, args = list(cmd["opts"]), list(cmd["args"])
    classes = []
    for _ in range(rng.choice([1, 1, 2])):
        c = rng.choice(ARG_CLASSES)
        classes.append(c)
        if c == "arg_drop" and args:
            del args[rng.randrange(len(args))]
        elif c == "arg_add":
            args.insert(rng.randrange(len(args) + 1), rng.choice(args + ["7", "tmap:0,64x64"] + npys) if args else "7")
        elif c == "arg_swap" and len(args) > 1:
            i, j = rng.randrange(len(args)), rng.randrange(len(args))
            args[i], args[j] = args[j], args[i]
        elif c == "arg_number" and args:
            i = rng.randrange(len(args))
            args[i] = rng.choice(BAD_NUMBERS + NUMS)
        elif c == "arg_offset":
            arr = [i for i, a in enumerate(args) if a.endswith(".npy") or ".npy@" in a]
            if arr:
                i = rng.choice(arr)
                base = args[i].split("@")[0]
                args[i] = base + "@" + rng.choice(["0", "1", "4", "255", "256", "-1", "", "x", "99999999999999999999"])
        elif c == "arg_tmap":
            tm = [i for i, a in enumerate(args) if a.startswith("tmap:")]
            i = rng.choice(tm) if tm and rng.random() < 0.7 else (rng.randrange(len(args)) if args else None)
            if i is not None:
                if tm and i in tm and rng.random() < 0.5:
                    args[i] = re.sub(r"\d+", lambda _: rng.choice(NUMS[:20]), args[i], count=rng.choice([1, 2, 3]))
                else:
                    args[i] = rng.choice(BAD_TMAPS)
        elif c == "opt_grid":
            _set_opt(opts, "--grid", rng.choice(["0", "1", "2", "3", "1,2", "2,1,2", "1,1,1,1", "", "x", "-1",
                                                 "2147483648", "4294967297", "1,", ",1", "1,0,1"]))
        elif c == "opt_block":
            _set_opt(opts, "--block", rng.choice(["0", "1", "31", "32", "33", "64", "128", "160", "384", "1024",
                                                  "1025", "2048", "32,32", "32,33", "1,1,1025", "", "x",
                                                  "4294967296", "65536,65536"]))
        elif c == "opt_entry":
            _set_opt(opts, "--entry", rng.choice(["", "nosuch", "x" * 300, "main", "vprintf", "__assertfail", "a\nb"]))
        elif c == "opt_seed":
            _set_opt(opts, "--seed", rng.choice(["0", "1", "12345", "-1", "x", "18446744073709551616"]))
    return {"opts": opts, "args": args}, classes


def _set_opt(opts, name, value):
    if name in opts:
        i = opts.index(name)
        if i + 1 < len(opts):
            opts[i + 1] = value
            return
        opts.append(value)
        return
    opts += [name, value]
