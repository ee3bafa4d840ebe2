#!/usr/bin/env python3
"""Cuts functions out of a cuobjdump -sass listing, for the fixtures of tests/technique/.

    cut_listing.py DUMP OUT FUNCTION[=NEW_NAME]...

OUT gets DUMP's headers (the PTX's and the ELF's, up to its first function)
and each FUNCTION's code as listed, under NEW_NAME where given: a rung's code
under the name of the next rung's kernel is that rung without its technique,
as nvcc compiled it.
"""
import sys


def main(dump, out, wanted):
    lines = open(dump).read().split("\n")
    first = next(i for i, line in enumerate(lines) if line.strip().startswith("Function : "))
    functions, name = {}, None
    for line in lines[first:]:
        if line.strip().startswith("Function : "):
            name = line.split("Function : ")[1].strip()
            functions[name] = []
        if name is not None:
            functions[name].append(line)
        if line.strip().startswith(".........."):
            name = None
    text = lines[:first]
    for spec in wanted:
        old, _, new = spec.partition("=")
        code = functions[old]
        if new:
            code = [code[0].replace(old, new)] + code[1:]
        text += code + ["", ""]
    open(out, "w").write("\n".join(text) + "\n")


if __name__ == "__main__":
    if sys.argv[1:2] in (["-h"], ["--help"]):
        print(__doc__)
        sys.exit(0)
    if len(sys.argv) < 4:
        sys.stderr.write(__doc__)
        sys.exit(2)
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
