#!/usr/bin/env python3
"""Doxygen input filter for the Markdown pages (FILTER_PATTERNS in Doxyfile.in).

The Markdown links a file to images and files relative to its own folder, as a
forge or a checkout reads it. Doxygen puts every page in one flat html/ folder
and keeps such a path as written, so on the site `../results/x.svg` and
`../grading/rubric.txt` point outside it. This filter rewrites each relative
link, for Doxygen only, to the same file relative to the repository root:
- an image then matches its file in IMAGE_PATH by name and folder, and
  Doxygen copies it into html/ and links it by name;
- any other file keeps that root-relative path, and docs/site.cmake copies it
  into html/ at that path after Doxygen ran.
Links to Markdown files are left alone: Doxygen resolves them relative to the
file and turns them into links between pages.

It also drops the backticks of a code span in a heading, which Doxygen 1.9
shows as "<tt>...</tt>" in the page's text, and keeps the span's "--" two
dashes (Doxygen's \--) rather than an en dash.

The line count is kept, so Doxygen's warnings still name the right lines.

Usage (by Doxygen): markdown_filter.py FILE.md, the filtered text on stdout.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# ](target) or ](target "title"): the target of an inline link or image.
LINK = re.compile(r'\]\(([^)\s]+)((?:\s+"[^"]*")?\))')
CODE = re.compile(r"`([^`]*)`")


def rewrite(folder, match):
    target, rest = match.groups()
    if re.match(r"[a-z]+:|#|/", target) or re.search(r"\.md(#.*)?$", target):
        return match.group(0)
    path = os.path.relpath(os.path.normpath(os.path.join(folder, target)), ROOT)
    # Doxygen takes a target with neither '/' nor '.' (LICENSE) for a word, not a link.
    if "/" not in path:
        path = "./" + path
    return "](" + path + rest


def main():
    name = sys.argv[1]
    folder = os.path.dirname(os.path.abspath(name))
    fenced = False
    with open(name, encoding="utf-8") as f:
        for line in f:
            if line.startswith(("```", "~~~")):
                fenced = not fenced
            elif not fenced and line.startswith("#"):
                line = CODE.sub(lambda m: m.group(1).replace("--", "\\--"), line)
            sys.stdout.write(LINK.sub(lambda m: rewrite(folder, m), line))


if __name__ == "__main__":
    main()
