"""Read what a launcher needs from a CUDA cubin (an NVIDIA CUDA ELF), stdlib only.

Used by scripts/compare-nvidia (ABI comparison), scripts/gpu-check (to check
our parameter packing against the cubin before launching) and its self-test.

What it reads, and how it was established (docs/abi.md section 4; checked
against `cuobjdump -elf` for every corpus cubin by tests/measure.bats):

* ELF64 little-endian section headers and the symbol table. An entry point is
  an STT_FUNC symbol whose st_other has bit 0x10 set (cuobjdump prints it as
  "ENTRY").
* `.nv.info.<entry>`: a list of attributes, each `u8 format, u8 attribute`
  then, for format 0x04 (EIFMT_SVAL), a `u16 size` and that many bytes, and
  for the other formats a 2-byte value. The attributes we use:
    0x17 KPARAM_INFO   u32 index, u16 ordinal, u16 offset, u32 flags with the
                       parameter size in bits 18..31 (one per parameter)
    0x45 KPARAM_INFO_V2  the same 12 bytes, but the u32 holds the size in bits
                       0..15, the pointee's log2 alignment in bits 16..23 and
                       the space in bits 24..31 (4 = global pointer). ptxas
                       13.5 writes V2 instead of KPARAM_INFO when the entry has
                       hidden parameters: NVIDIA's TMA kernels get one
                       `.hidden .param .align 64 .b8 p[128]` per tensor map
                       after the user's, filled by the driver through the
                       .nv.host callbacks (docs/abi.md §5). Hidden parameters
                       have no KPARAM entry.
    0x19 CBANK_PARAM_SIZE  u16 (format 0x03): bytes of parameters, hidden
                       ones included
    0x0a PARAM_CBANK   u32 section index, u16 offset, u16 size: where the
                       parameters start in constant bank 0
    0x10 REQNTID       3 x u32, from PTX .reqntid
    0x05 MAX_THREADS   3 x u32, from PTX .maxntid
    0x66 LANGUAGE      u32 (7 = TILEIR from PTX ".language 7", 3 = PTX;
                       ptxas 13.0 writes no such attribute)
    0x1b MAXREG_COUNT  u16 (format 0x03): register limit (0xff: none)
* `.nv.info` (module-wide): 0x2f REGCOUNT and 0x11 FRAME_SIZE, each
  `u32 symbol index, u32 value`.
* `.nv.shared.<entry>`: static shared memory of the entry (its size).
"""
import struct

EIFMT_SVAL = 0x04
EIATTR_PARAM_CBANK = 0x0A
EIATTR_MAX_THREADS = 0x05
EIATTR_REQNTID = 0x10
EIATTR_FRAME_SIZE = 0x11
EIATTR_KPARAM_INFO = 0x17
EIATTR_KPARAM_INFO_V2 = 0x45
EIATTR_MAXREG_COUNT = 0x1B
EIATTR_CBANK_PARAM_SIZE = 0x19
EIATTR_REGCOUNT = 0x2F
EIATTR_LANGUAGE = 0x66
STO_CUDA_ENTRY = 0x10
LANGUAGES = {3: "PTX", 7: "TILEIR"}


class CubinError(Exception):
    pass


class Entry:
    """One kernel entry point of a cubin."""

    def __init__(self, name):
        self.name = name
        self.params = []          # [(ordinal, offset, size)] sorted by ordinal
        self.param_bytes = None   # what a launcher packs: the end of the last
                                  # listed parameter (EIATTR_CBANK_PARAM_SIZE
                                  # when there are no hidden parameters)
        self.cbank_param_bytes = None  # EIATTR_CBANK_PARAM_SIZE, hidden included
        self.hidden_param_bytes = 0    # cbank_param_bytes - param_bytes
        self.maxreg = None        # EIATTR_MAXREG_COUNT
        self.param_cbank = None   # (offset, size) in constant bank 0
        self.reqntid = None       # (x, y, z) or None
        self.maxntid = None
        self.regs = None
        self.frame = None
        self.shared = 0           # static shared bytes declared by the entry
        self.language = None      # "TILEIR", or None (plain PTX)
        self.code_bytes = 0

    def as_dict(self):
        return {
            "name": self.name,
            "params": [list(p) for p in self.params],
            "param_bytes": self.param_bytes,
            "cbank_param_bytes": self.cbank_param_bytes,
            "hidden_param_bytes": self.hidden_param_bytes,
            "maxreg": self.maxreg,
            "param_cbank": list(self.param_cbank) if self.param_cbank else None,
            "reqntid": list(self.reqntid) if self.reqntid else None,
            "maxntid": list(self.maxntid) if self.maxntid else None,
            "regs": self.regs,
            "frame": self.frame,
            "shared": self.shared,
            "language": self.language,
            "code_bytes": self.code_bytes,
        }


class Cubin:
    def __init__(self):
        self.e_flags = 0
        self.abi_version = 0
        self.sm = None            # e.g. 90 (from e_flags; "a" targets too)
        self.entries = {}         # name -> Entry
        self.sections = []        # names, in order
        self.has_nv_host = False

    def as_dict(self):
        return {
            "e_flags": "0x%x" % self.e_flags,
            "sm": self.sm,
            "has_nv_host": self.has_nv_host,
            "entries": {k: v.as_dict() for k, v in sorted(self.entries.items())},
        }


def _cstr(data, off):
    end = data.find(b"\0", off)
    if end < 0:
        raise CubinError("unterminated string at 0x%x" % off)
    return data[off:end].decode("utf-8", "replace")


def _attrs(blob):
    """Yield (format, attribute, payload bytes) of an .nv.info section."""
    p = 0
    while p + 4 <= len(blob):
        fmt, attr = blob[p], blob[p + 1]
        if fmt == EIFMT_SVAL:
            (size,) = struct.unpack_from("<H", blob, p + 2)
            payload = blob[p + 4:p + 4 + size]
            if len(payload) != size:
                raise CubinError("truncated .nv.info attribute 0x%x" % attr)
            p += 4 + size
        else:
            payload = blob[p + 2:p + 4]
            p += 4
        yield fmt, attr, payload


def parse(data):
    """Parse cubin bytes into a Cubin. Raises CubinError on anything odd."""
    if len(data) < 64 or data[:4] != b"\x7fELF":
        raise CubinError("not an ELF file")
    if data[4] != 2 or data[5] != 1:
        raise CubinError("not a 64-bit little-endian ELF")
    cub = Cubin()
    cub.abi_version = data[8]
    (e_machine,) = struct.unpack_from("<H", data, 18)
    if e_machine != 190:
        raise CubinError("ELF machine %d is not NVIDIA CUDA (190)" % e_machine)
    (e_shoff,) = struct.unpack_from("<Q", data, 0x28)
    (cub.e_flags,) = struct.unpack_from("<I", data, 0x30)
    e_shentsize, e_shnum, e_shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    # ABI version 8 (CUDA 12.x+) keeps the SM number in bits 8..15 of e_flags.
    cub.sm = (cub.e_flags >> 8) & 0xFF
    if e_shoff == 0 or e_shnum == 0 or e_shoff + e_shnum * e_shentsize > len(data):
        raise CubinError("bad section header table")
    secs = []
    for i in range(e_shnum):
        secs.append(struct.unpack_from("<IIQQQQIIQQ", data, e_shoff + i * e_shentsize))
    shstr = secs[e_shstrndx]

    def sec_name(s):
        return _cstr(data, shstr[4] + s[0])

    def sec_data(s):
        if s[1] == 8:   # SHT_NOBITS
            return b""
        return data[s[4]:s[4] + s[5]]

    names = [sec_name(s) for s in secs]
    cub.sections = names
    cub.has_nv_host = ".nv.host" in names
    cub.nv_host = None
    if cub.has_nv_host:
        cub.nv_host = sec_data(secs[names.index(".nv.host")])
    symtab = next((s for s in secs if s[1] == 2), None)
    symbols = []
    if symtab is not None:
        strtab = secs[symtab[6]]
        ent = symtab[9] or 24
        for i in range(symtab[5] // ent):
            st_name, st_info, st_other, st_shndx, st_value, st_size = struct.unpack_from(
                "<IBBHQQ", data, symtab[4] + i * ent)
            symbols.append((_cstr(data, strtab[4] + st_name), st_info, st_other, st_shndx, st_size))
    cub.symbols = [sym[0] for sym in symbols]
    for name, st_info, st_other, st_shndx, st_size in symbols:
        if (st_info & 0xF) == 2 and (st_other & STO_CUDA_ENTRY):
            e = Entry(name)
            e.code_bytes = st_size
            cub.entries[name] = e
    for idx, s in enumerate(secs):
        n = names[idx]
        if n.startswith(".nv.info.") and n[9:] in cub.entries:
            e = cub.entries[n[9:]]
            for fmt, attr, pl in _attrs(sec_data(s)):
                if attr == EIATTR_KPARAM_INFO and len(pl) >= 12:
                    _index, ordinal, offset, flags = struct.unpack_from("<IHHI", pl)
                    e.params.append((ordinal, offset, flags >> 18))
                elif attr == EIATTR_KPARAM_INFO_V2 and len(pl) >= 12:
                    _index, ordinal, offset, flags = struct.unpack_from("<IHHI", pl)
                    e.params.append((ordinal, offset, flags & 0xFFFF))
                elif attr == EIATTR_CBANK_PARAM_SIZE:
                    (e.cbank_param_bytes,) = struct.unpack_from("<H", pl)
                elif attr == EIATTR_MAXREG_COUNT:
                    (e.maxreg,) = struct.unpack_from("<H", pl)
                elif attr == EIATTR_PARAM_CBANK and len(pl) >= 8:
                    _sec, off, size = struct.unpack_from("<IHH", pl)
                    e.param_cbank = (off, size)
                elif attr == EIATTR_REQNTID and len(pl) >= 12:
                    e.reqntid = struct.unpack_from("<III", pl)
                elif attr == EIATTR_MAX_THREADS and len(pl) >= 12:
                    e.maxntid = struct.unpack_from("<III", pl)
                elif attr == EIATTR_LANGUAGE and len(pl) >= 4:
                    (lang,) = struct.unpack_from("<I", pl)
                    e.language = LANGUAGES.get(lang, str(lang))
            e.params.sort()
            e.param_bytes = e.cbank_param_bytes
            if e.params:
                e.param_bytes = max(off + size for _o, off, size in e.params)
            if e.cbank_param_bytes is not None and e.param_bytes is not None:
                e.hidden_param_bytes = e.cbank_param_bytes - e.param_bytes
        elif n.startswith(".nv.shared.") and n[11:] in cub.entries:
            cub.entries[n[11:]].shared = s[5]
    by_index = {i: sym[0] for i, sym in enumerate(symbols)}
    for idx, s in enumerate(secs):
        if names[idx] == ".nv.info":
            for fmt, attr, pl in _attrs(sec_data(s)):
                if attr in (EIATTR_REGCOUNT, EIATTR_FRAME_SIZE) and len(pl) >= 8:
                    sym, val = struct.unpack_from("<II", pl)
                    e = cub.entries.get(by_index.get(sym))
                    if e is not None:
                        if attr == EIATTR_REGCOUNT:
                            e.regs = val
                        else:
                            e.frame = val
    return cub


def load(path):
    with open(path, "rb") as f:
        return parse(f.read())


def abi_of(entry):
    """The launch ABI of an entry, for comparisons: params and their bytes."""
    return {"params": [list(p) for p in entry.params], "param_bytes": entry.param_bytes}


LAUNCH_META = "___NV_TILE_LAUNCH_META_DATA___"
# What the driver takes from a cubin when it loads and launches a kernel with
# block (1,1,1) as cuTile does (docs/abi.md §5): compared by launch_diff.
LAUNCH_KEYS = ("e_flags", "language", "reqntid", "maxntid", "params", "param_bytes",
               "param_cbank_offset", "launch_meta", "smem_over_48k", "has_nv_host")
# Reported, not compared: these follow from the code each compiler generates
# (NVIDIA's TMA kernels have hidden tensor-map parameters and host callbacks
# that fill them; ours use no TMA), not from how the kernel is launched.
# maxreg (EIATTR_MAXREG_COUNT) is the register budget ptxas compiled under:
# 0xff without one, the budget of a `.minnctapersm` / `__launch_bounds__` /
# -maxrregcount otherwise (tile-pack's occupancy tuning sets one,
# docs/abi.md §5.1); the driver allocates the registers the code uses.
INFO_KEYS = ("hidden_param_bytes", "shared", "maxreg")


def launch_of(cub, entry):
    """The launch-relevant attributes of one entry of a cubin."""
    return {
        "e_flags": "0x%x" % cub.e_flags,
        "language": entry.language or "PTX",
        "reqntid": list(entry.reqntid) if entry.reqntid else None,
        "maxntid": list(entry.maxntid) if entry.maxntid else None,
        "maxreg": entry.maxreg,
        "params": [list(p) for p in entry.params],
        "param_bytes": entry.param_bytes,
        "param_cbank_offset": entry.param_cbank[0] if entry.param_cbank else None,
        "launch_meta": LAUNCH_META in getattr(cub, "symbols", []),
        "smem_over_48k": entry.shared > 48 * 1024,
        "has_nv_host": cub.has_nv_host,
        "hidden_param_bytes": entry.hidden_param_bytes,
        "shared": entry.shared,
    }


def launch_diff(nv, ours):
    """[(entry, key, nv value, our value)] over LAUNCH_KEYS; entries missing
    on either side are reported with key 'entry'."""
    out = []
    for name in sorted(set(nv.entries) | set(ours.entries)):
        a, b = nv.entries.get(name), ours.entries.get(name)
        if a is None or b is None:
            out.append((name, "entry", a is not None, b is not None))
            continue
        la, lb = launch_of(nv, a), launch_of(ours, b)
        out += [(name, k, la[k], lb[k]) for k in LAUNCH_KEYS if la[k] != lb[k]]
    return out


if __name__ == "__main__":
    import json
    import sys
    if sys.argv[1:2] == ["--launch-diff"] and len(sys.argv) == 4:
        # cubin.py --launch-diff NVIDIA.cubin OURS.cubin: one line per launch-
        # relevant difference (exit 1), then the reported-only facts
        nv, ours = load(sys.argv[2]), load(sys.argv[3])
        diffs = launch_diff(nv, ours)
        for name, key, a, b in diffs:
            print("DIFF %s %s: NVIDIA %s, ours %s" % (name, key, json.dumps(a), json.dumps(b)))
        for name in sorted(set(nv.entries) & set(ours.entries)):
            la, lb = launch_of(nv, nv.entries[name]), launch_of(ours, ours.entries[name])
            print("info %s %s" % (name, " ".join("%s=%s/%s" % (k, json.dumps(la[k]), json.dumps(lb[k]))
                                                for k in INFO_KEYS)))
        sys.exit(1 if diffs else 0)
    for p in sys.argv[1:]:
        print(json.dumps({p: load(p).as_dict()}, indent=1))
