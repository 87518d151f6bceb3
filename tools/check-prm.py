#!/usr/bin/env python3
# tools/check-prm.py - check prism's PRM field table against DPDK's mlx5_prm.h.
#
#   check-prm.py HEADER TABLE     compare; exit 1 on any mismatch
#   check-prm.py HEADER --show STRUCT[.FIELD...]   print a field's bit offset and width
#
# HEADER is drivers/common/mlx5/mlx5_prm.h from Debian's dpdk source package.
# TABLE is what `prism-prm-table` prints: one field a line,
#   <struct> <field path> <bit offset, hex> <width, hex>
# where <struct> names a `struct mlx5_ifc_<struct>_bits` of the header and the
# path follows nested structs with dots ("qpc.primary_address_path.rlid").
#
# The header's PRM structs are arrays of big-endian bits written as
# `u8 name[0xN];` (N bits), `u8 name[K][0xN];` (K x N bits), nested
# `struct mlx5_ifc_X_bits name;` and anonymous or named unions (as wide as
# their widest member).  Offsets are computed by summing widths, as the
# header's own MLX5_SET/MLX5_GET macros do (__mlx5_bit_off = offsetof of the
# u8 array).  Owns only this parsing and comparison; it knows nothing of the
# backend beyond the table text.
import re
import sys

DECL = re.compile(r"^\s*u8\s+(\w+)\s*((?:\[\s*(?:0x[0-9a-fA-F]+|\d+)\s*\])*)\s*;")
NEST = re.compile(r"^\s*(struct|union)\s+mlx5_ifc_(\w+)_bits\s+(\w+)\s*;")
OPEN = re.compile(r"^\s*(struct|union)\s+mlx5_ifc_(\w+)_bits\s*\{")
ANON = re.compile(r"^\s*(struct|union)\s*\{")
CLOSE = re.compile(r"^\s*\}\s*(\w*)\s*;")


class Body:
    def __init__(self, kind, name):
        self.kind = kind  # "struct" | "union"
        self.name = name
        self.members = []  # (name, ("bits", n) | ("ref", kind, type) | ("inline", Body))


def parse(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    types = {}
    stack = []
    for line in text.splitlines():
        if not stack:
            m = OPEN.match(line)
            if m:
                stack.append(Body(m.group(1), m.group(2)))
            continue
        m = OPEN.match(line) or ANON.match(line)
        if m:
            stack.append(Body(m.group(1), None))
            continue
        m = CLOSE.match(line)
        if m:
            body = stack.pop()
            if stack:
                stack[-1].members.append((m.group(1) or None, ("inline", body)))
            else:
                types[(body.kind, body.name)] = body
            continue
        m = DECL.match(line)
        if m:
            dims = re.findall(r"\[\s*(0x[0-9a-fA-F]+|\d+)\s*\]", m.group(2))
            n = 1
            for d in dims:
                n *= int(d, 0)
            if not dims:  # u8 pas[]; a flexible tail
                n = 0
            stack[-1].members.append((m.group(1), ("bits", n)))
            continue
        m = NEST.match(line)
        if m:
            stack[-1].members.append((m.group(3), ("ref", m.group(1), m.group(2))))
    return types


class Layout:
    def __init__(self, types):
        self.types = types
        self.sizes = {}

    def body(self, kind, name):
        b = self.types.get((kind, name))
        if b is None:
            raise KeyError("%s mlx5_ifc_%s_bits is not in the header" % (kind, name))
        return b

    def width(self, member):
        t = member[1]
        if t[0] == "bits":
            return t[1]
        if t[0] == "ref":
            return self.size(self.body(t[1], t[2]))
        return self.size(t[1])

    def size(self, body):
        key = id(body)
        if key not in self.sizes:
            ws = [self.width(m) for m in body.members]
            self.sizes[key] = (max(ws) if ws else 0) if body.kind == "union" else sum(ws)
        return self.sizes[key]

    def find(self, body, name):
        """(offset, member) of @name in @body, looking through anonymous members."""
        off = 0
        for m in body.members:
            if m[0] == name:
                return off, m
            if m[0] is None and m[1][0] == "inline":
                try:
                    o, found = self.find(m[1][1], name)
                    return off + o, found
                except KeyError:
                    pass
            if body.kind == "struct":
                off += self.width(m)
        raise KeyError(name)

    def locate(self, struct, path):
        try:
            body = self.body("struct", struct)
        except KeyError:
            body = self.body("union", struct)
        off = 0
        member = None
        for part in path.split("."):
            if member is not None:
                t = member[1]
                body = t[1] if t[0] == "inline" else self.body(t[1], t[2])
            try:
                o, member = self.find(body, part)
            except KeyError:
                raise KeyError("%s has no field '%s'" % (struct, path))
            off += o
        return off, self.width(member)


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__ if __doc__ else "usage: check-prm.py HEADER TABLE\n")
        return 2
    with open(argv[1], encoding="utf-8", errors="replace") as f:
        lay = Layout(parse(f.read()))
    if argv[2] == "--show":
        for spec in argv[3:]:
            struct, _, path = spec.partition(".")
            off, w = lay.locate(struct, path)
            print("%s %s 0x%x 0x%x" % (struct, path, off, w))
        return 0
    bad = matched = absent = 0
    with open(argv[2], encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            struct, path, off, width = line.split()[:4]
            off, width = int(off, 16), int(width, 16)
            try:
                hoff, hwidth = lay.locate(struct, path)
            except KeyError as e:
                if "is not in the header" in str(e):
                    print("check-prm: not in this header (unchecked): %s.%s" % (struct, path))
                    absent += 1
                    continue
                print("check-prm: MISMATCH %s.%s: %s" % (struct, path, e))
                bad += 1
                continue
            if (hoff, hwidth) != (off, width):
                print("check-prm: MISMATCH %s.%s: prism 0x%x/0x%x, header 0x%x/0x%x"
                      % (struct, path, off, width, hoff, hwidth))
                bad += 1
            else:
                matched += 1
    print("check-prm: %d fields match the header, %d differ, %d not in it"
          % (matched, bad, absent))
    return 1 if bad or not matched else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
