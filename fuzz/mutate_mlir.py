"""mutate_mlir.py: mutations of the cuda_tile dialect's text (issue 43), for
scripts/fuzz-read --mlir (fuzz/fuzz_mlir.py runs tile-read on each).

mutate(text, rng, other) -> (bytes, [classes]), one to three of:

  truncate      cut at a random byte (often inside a token)
  line          a line deleted, repeated, or two swapped
  token         a token deleted, repeated, two swapped, or one replaced by
                a token from elsewhere (or from `other`, another seed)
  char          a byte replaced: punctuation the grammar cares about,
                a letter, a digit, a control byte, a byte >= 0x80
  number        a number made huge, negative, 0, a float, hex, 1e999
  nest          a deep run of openers (tile<, [, {, (, loc(callsite(,
                if %x {) inserted, closed or not
  long          a long line: 100k spaces, digits, letters or commas

Pure standard library.
"""
import re

CLASSES = ["truncate", "line", "token", "char", "number", "nest", "long"]

TOKEN = re.compile(rb'"(?:[^"\\\n]|\\.)*"|[%#@^!][\w$.-]*|-?0x[0-9a-fA-F]+|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|'
                   rb'[A-Za-z_][\w.$-]*|->|::|\S')
NUMBER = re.compile(rb"-?(?:0x[0-9a-fA-F]+|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)")
NUMS = [b"0", b"-1", b"1", b"3", b"63", b"64", b"65", b"255", b"256", b"257", b"1024", b"65536",
        b"2147483647", b"2147483648", b"-2147483649", b"4294967296", b"9223372036854775807",
        b"9223372036854775808", b"-9223372036854775808", b"18446744073709551615",
        b"99999999999999999999999999999", b"0x", b"0xffffffffffffffffff", b"1e999", b"-1e-999",
        b"1.5", b"0.0", b"nan", b"inf", b"-0", b"0x7fc00000", b"?"]
PUNCT = b"<>{}()[],:=%#@\"\\!^.-x?*/"
OPENERS = [b"tile<", b"[", b"{", b"(", b"<", b"loc(callsite(", b"if %c {", b"tensor_view<", b"ptr<",
           b"{a = ", b"<i32: [", b"loc(fused<"]


def _tokens(data):
    return [(m.start(), m.end()) for m in TOKEN.finditer(data)]


def _lines(data):
    return data.split(b"\n")


def m_truncate(data, rng, other):
    return data[:rng.randrange(len(data) + 1)]


def m_line(data, rng, other):
    lines = _lines(data)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    how = rng.randrange(3)
    if how == 0:
        del lines[i]
    elif how == 1:
        lines.insert(i, lines[j])
    else:
        lines[i], lines[j] = lines[j], lines[i]
    return b"\n".join(lines)


def m_token(data, rng, other):
    toks = _tokens(data)
    if not toks:
        return data
    s, e = rng.choice(toks)
    how = rng.randrange(4)
    if how == 0:
        return data[:s] + data[e:]
    if how == 1:
        return data[:s] + data[s:e] + b" " + data[s:e] + data[e:]
    src = other if how == 3 and other else data
    otoks = _tokens(src) or toks
    s2, e2 = rng.choice(otoks)
    piece = src[s2:e2]
    if how == 2 and src is data and (s2, e2) != (s, e):
        a, b = sorted([(s, e), (s2, e2)])
        if a[1] <= b[0]:
            return data[:a[0]] + data[b[0]:b[1]] + data[a[1]:b[0]] + data[a[0]:a[1]] + data[b[1]:]
    return data[:s] + piece + data[e:]


def m_char(data, rng, other):
    if not data:
        return bytes([rng.randrange(256)])
    i = rng.randrange(len(data))
    kind = rng.randrange(5)
    if kind == 0:
        c = rng.choice(PUNCT)
    elif kind == 1:
        c = rng.choice(b"abcdefghijklmnopqrstuvwxyzAEFIMNX_")
    elif kind == 2:
        c = rng.choice(b"0123456789")
    elif kind == 3:
        c = rng.choice([0, 1, 9, 10, 13, 27, 127])
    else:
        c = rng.randrange(128, 256)
    return data[:i] + bytes([c]) + data[i + 1:]


def m_number(data, rng, other):
    nums = [(m.start(), m.end()) for m in NUMBER.finditer(data)]
    if not nums:
        return data
    s, e = rng.choice(nums)
    return data[:s] + rng.choice(NUMS) + data[e:]


def m_nest(data, rng, other):
    i = rng.randrange(len(data) + 1)
    op = rng.choice(OPENERS)
    n = rng.choice([9, 17, 33, 65, 129, 1000, 20000])
    closer = {b"<": b">", b"[": b"]", b"{": b"}", b"(": b")"}
    run = op * n
    if rng.randrange(2):
        close = b"".join(closer.get(bytes([c]), b"") for c in reversed(op) if bytes([c]) in closer) * n
        run += b"i32" + close
    return data[:i] + run + data[i:]


def m_long(data, rng, other):
    i = rng.randrange(len(data) + 1)
    piece = rng.choice([b" ", b"9", b"a", b",", b"%x, ", b"// ", b"0x"]) * rng.choice([4096, 100000])
    return data[:i] + piece + data[i:]


MUTATORS = {"truncate": m_truncate, "line": m_line, "token": m_token, "char": m_char,
            "number": m_number, "nest": m_nest, "long": m_long}
WEIGHTS = {"truncate": 1, "line": 3, "token": 5, "char": 3, "number": 3, "nest": 1, "long": 1}


def mutate(data, rng, other=None):
    names = list(WEIGHTS)
    w = [WEIGHTS[n] for n in names]
    classes = rng.choices(names, weights=w, k=rng.choice([1, 1, 1, 2, 3]))
    for c in classes:
        data = MUTATORS[c](data, rng, other)
    return data, classes
