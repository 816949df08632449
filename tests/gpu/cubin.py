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
    0x19 CBANK_PARAM_SIZE  u16 (format 0x03): bytes of parameters
    0x0a PARAM_CBANK   u32 section index, u16 offset, u16 size: where the
                       parameters start in constant bank 0
    0x10 REQNTID       3 x u32, from PTX .reqntid
    0x05 MAX_THREADS   3 x u32, from PTX .maxntid
    0x66 LANGUAGE      u32 (7 = TILEIR from PTX ".language 7", 3 = PTX;
                       ptxas 13.0 writes no such attribute)
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
        self.param_bytes = None   # EIATTR_CBANK_PARAM_SIZE
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
    symtab = next((s for s in secs if s[1] == 2), None)
    symbols = []
    if symtab is not None:
        strtab = secs[symtab[6]]
        ent = symtab[9] or 24
        for i in range(symtab[5] // ent):
            st_name, st_info, st_other, st_shndx, st_value, st_size = struct.unpack_from(
                "<IBBHQQ", data, symtab[4] + i * ent)
            symbols.append((_cstr(data, strtab[4] + st_name), st_info, st_other, st_shndx, st_size))
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
                elif attr == EIATTR_CBANK_PARAM_SIZE:
                    (e.param_bytes,) = struct.unpack_from("<H", pl)
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


if __name__ == "__main__":
    import json
    import sys
    for p in sys.argv[1:]:
        print(json.dumps({p: load(p).as_dict()}, indent=1))
