#!/usr/bin/env python3
"""parse_remarks.py FILE: check that FILE is remark YAML in the document
shape NVIDIA's tileiras writes, and print its documents as JSON lines.

Shape (LLVM's optimization-remark YAML):
    --- !Passed|!Missed|!Failure|!Analysis
    Pass:            P
    Name:            N
    DebugLoc:        { File: 'F', Line: L, Column: C }     (optional)
    Function:        FN                                    (optional)
    Args:
      - Key:         value                                 (one or more)
    ...
Exits 1 with a message on the first line out of shape. Where PyYAML is
installed the file is also loaded with it and must give the same documents.
"""
import json
import re
import sys

TOP = ["Pass", "Name", "DebugLoc", "Function", "Args"]


def scalar(s):
    s = s.strip()
    if s.startswith("'"):
        if not s.endswith("'") or len(s) < 2:
            raise ValueError("unterminated quoted scalar")
        return s[1:-1].replace("''", "'")
    return s


def parse(lines):
    docs, doc, state = [], None, "out"
    for n, line in enumerate(lines, 1):
        def bad(why):
            sys.exit(f"line {n}: {why}: {line!r}")
        if state == "out":
            m = re.fullmatch(r"--- !(Passed|Missed|Failure|Analysis)", line)
            if not m:
                bad("expected '--- !Kind'")
            doc, state, seen = {"kind": m.group(1), "Args": []}, "top", []
            continue
        if line == "...":
            if state != "args" or not doc["Args"]:
                bad("document ends before its Args")
            for k in ("Pass", "Name"):
                if k not in doc:
                    bad(f"document without {k}")
            docs.append(doc)
            state = "out"
            continue
        if state == "top":
            m = re.fullmatch(r"(\w+):( +)(.*)", line) or re.fullmatch(r"(Args):()()", line)
            if not m or m.group(1) not in TOP:
                bad("expected a top-level key")
            key = m.group(1)
            if seen and TOP.index(key) <= TOP.index(seen[-1]):
                bad("top-level keys out of order")
            seen.append(key)
            if key == "Args":
                state = "args"
            elif key == "DebugLoc":
                d = re.fullmatch(r"\{ File: ('(?:[^']|'')*'), Line: (\d+), Column: (\d+) \}", m.group(3))
                if not d:
                    bad("DebugLoc not { File: '...', Line: N, Column: N }")
                doc["DebugLoc"] = {"File": scalar(d.group(1)), "Line": int(d.group(2)), "Column": int(d.group(3))}
            else:
                doc[key] = scalar(m.group(3))
            continue
        m = re.fullmatch(r"  - (\w+):( +)(.+)", line)
        if not m:
            bad("expected '  - Key: value'")
        doc["Args"].append({m.group(1): scalar(m.group(3))})
    if state != "out":
        sys.exit("file ends inside a document")
    return docs


def main():
    text = open(sys.argv[1]).read()
    docs = parse(text.splitlines())
    try:
        import yaml
    except ImportError:
        yaml = None
    if yaml:
        class L(yaml.SafeLoader):
            pass
        L.add_multi_constructor("!", lambda l, s, n: l.construct_mapping(n, deep=True))
        ys = [d for d in yaml.load_all(text, Loader=L) if d is not None]
        if len(ys) != len(docs):
            sys.exit(f"PyYAML reads {len(ys)} documents, the shape check {len(docs)}")
        for y, d in zip(ys, docs):
            if y["Name"] != d["Name"] or [list(a)[0] for a in y["Args"]] != [list(a)[0] for a in d["Args"]]:
                sys.exit(f"PyYAML reads {y} differently")
            if "DebugLoc" in d and y["DebugLoc"] != d["DebugLoc"]:
                sys.exit(f"PyYAML reads DebugLoc {y['DebugLoc']} differently")
    for d in docs:
        print(json.dumps(d))


main()
