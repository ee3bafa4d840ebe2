#!/usr/bin/env python3
"""Checks that the built site shows every code span as the Markdown wrote it
(the docs.code-spans test).

Usage: check_code_spans.py HTML SOURCE   (the html/ folder, the repository root)

- Every code span of the site's Markdown (README.md, CONTRIBUTING.md, docs/)
  must show, its text exact, as a <code> element of its page; one in a
  heading as the page's text (docs/markdown_filter.py makes it text there).
- Every code span of a header's documentation comments (common/include/pp,
  the labs' contracts under tests/) must show as a <code> element of the
  header's page or of a page documented from it (its structs).
- No page's text outside <code> and code blocks holds a backtick (a span
  Doxygen did not read as one), nor an en dash followed by a letter (a
  command-line flag's "--" outside a code span, which Doxygen makes "–").
Exits 1 naming each problem, 2 on bad usage.
"""
import collections
import glob
import html.parser
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from markdown_filter import blocks, code_spans, filtered  # noqa: E402

MARKDOWN = ["README.md", "CONTRIBUTING.md", "docs/*.md", "docs/labs/*.md", "docs/results/*.md",
            "docs/results/*/*.md"]
HEADERS = ["common/include/pp/*.h", "tests/*/*.h"]
# The folders Doxyfile.in's EXCLUDE_PATTERNS keeps off the site.
UNDOCUMENTED = {"harness", "mutants", "submissions", "fixtures"}
# Doxygen reads /** ... */ and /**< ... */ comments; each line's leading "*" is not text.
DOC_COMMENT = re.compile(r"/\*\*<?(.*?)\*/", re.S)
COMMENT_LINE = re.compile(r"^[ \t]*\*?[ \t]?", re.M)
FLAG_AS_DASH = re.compile("\u2013[A-Za-z]")


def normal(text):
    return " ".join(text.split())


class Page(html.parser.HTMLParser):
    """A page's <code> texts, its text outside code, and the files its
    documentation comes from: a file page's own header (its folders in the
    navigation path, then its title), a struct page's "generated from" list."""

    def __init__(self, text):
        super().__init__()
        self.codes = collections.Counter()
        self.prose = []
        self.sources = set()
        self._code = None       # the open <code> element's text
        self._skip = 0          # inside <pre>, <script> or <style>
        self._fragment = 0      # <div> depth inside a code block (div.fragment)
        self._item = None       # the open <li> element's text, and its class
        self._folders = []
        self._generated_from = False
        self._title = None
        self.feed(text)
        self.close()
        if self._title and self._title.endswith(" File Reference"):
            self.sources.add("/".join(self._folders + [self._title[:-len(" File Reference")]]))

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        if tag == "code" and self._code is None:
            self._code = []
        elif tag in ("pre", "script", "style"):
            self._skip += 1
        elif tag == "div" and (self._fragment or "fragment" in classes):
            self._fragment += 1
        elif tag == "div" and "title" in classes:
            self._title = ""
        elif tag == "li" and ("navelem" in classes or self._generated_from):
            self._item = ([], "navelem" in classes)

    def handle_endtag(self, tag):
        if tag == "code" and self._code is not None:
            self.codes[normal("".join(self._code))] += 1
            self._code = None
        elif tag in ("pre", "script", "style"):
            self._skip -= 1
        elif tag == "div" and self._fragment:
            self._fragment -= 1
        elif tag == "li" and self._item is not None:
            text, navelem = self._item
            (self._folders.append if navelem else self.sources.add)("".join(text).strip())
            self._item = None
        elif tag == "ul":
            self._generated_from = False

    def handle_data(self, data):
        if self._item is not None:
            self._item[0].append(data)
        if self._title == "":
            self._title = data.strip()
        if self._code is not None:
            self._code.append(data)
        elif not self._skip and not self._fragment:
            self.prose.append(data)
            if "generated from the following file" in data:
                self._generated_from = True


def markdown_spans(path):
    """(line, code, in_heading) for each code span of a Markdown file."""
    with open(path, encoding="utf-8") as f:
        lines = f.readlines()
    for kind, first, end in blocks(lines):
        if kind in ("paragraph", "heading"):
            text = "".join(lines[first:end])
            for start, _, code in code_spans(text):
                yield first + 1 + text.count("\n", 0, start), code, kind == "heading"


def header_spans(path):
    """(line, code) for each code span of a header's documentation comments."""
    with open(path, encoding="utf-8") as f:
        source = f.read()
    for comment in DOC_COMMENT.finditer(source):
        text = COMMENT_LINE.sub("", comment.group(1))
        lines = text.splitlines(keepends=True)
        line0 = source.count("\n", 0, comment.start(1)) + 1
        for kind, first, end in blocks(lines):
            if kind in ("paragraph", "heading"):
                para = "".join(lines[first:end])
                for start, _, code in code_spans(para):
                    yield line0 + first + para.count("\n", 0, start), code


def missing(source, spans, codes, where):
    """A problem for each span of source whose text fewer <code> elements
    show (codes counts them by text) than source has spans of."""
    wanted = collections.Counter(normal(code) for _, code in spans)
    return [f"{source}:{line}: `{code}` is not a <code> element of {where}"
            + (f" (shown {codes[normal(code)]} of {wanted[normal(code)]} times)" if codes[normal(code)] else "")
            for line, code in spans if codes[normal(code)] < wanted[normal(code)]]


def md_page(path):
    """Doxygen's page for a Markdown file (README.md is the main page)."""
    if path == "README.md":
        return "index.html"
    return "md_" + re.sub(r"[/-]", "_", path[:-len(".md")]) + ".html"


def main():
    if len(sys.argv) != 3:
        print("usage: check_code_spans.py HTML SOURCE", file=sys.stderr)
        return 2
    site, root = sys.argv[1:]
    if not os.path.isfile(os.path.join(site, "index.html")):
        print(f"check_code_spans.py: no {site}/index.html: build the site first", file=sys.stderr)
        return 2

    pages = {}
    for file in sorted(glob.glob(os.path.join(site, "*.html"))):
        with open(file, encoding="utf-8") as f:
            pages[os.path.basename(file)] = Page(f.read())
    problems = []

    for name, page in pages.items():
        text = normal("".join(page.prose))
        for found in re.finditer(r".{0,40}`.{0,40}", text):
            problems.append(f"{name}: a backtick outside code: ...{found.group()}...")
        for found in FLAG_AS_DASH.finditer(text):
            context = text[max(0, found.start() - 40):found.end() + 40]
            problems.append(f"{name}: a flag's -- shown as an en dash: ...{context}...")

    checked = 0
    for pattern in MARKDOWN:
        for path in sorted(glob.glob(os.path.join(root, pattern))):
            relative = os.path.relpath(path, root)
            name = md_page(relative)
            if name not in pages:
                problems.append(f"{relative}: no page {name}")
                continue
            with open(path, encoding="utf-8") as f:
                lines = f.read().count("\n")
            if filtered(path).count("\n") != lines:
                problems.append(f"{relative}: markdown_filter.py changed its line count")
            text = normal("".join(pages[name].prose))
            spans = []
            for line, code, in_heading in markdown_spans(path):
                checked += 1
                if not in_heading:
                    spans.append((line, code))
                elif normal(code) not in text:
                    problems.append(f"{relative}:{line}: `{code}` is not in the text of {name}")
            problems += missing(relative, spans, pages[name].codes, name)

    for pattern in HEADERS:
        for path in sorted(glob.glob(os.path.join(root, pattern))):
            relative = os.path.relpath(path, root)
            if UNDOCUMENTED & set(relative.split("/")):
                continue
            names = [name for name, page in pages.items() if relative in page.sources]
            spans = list(header_spans(path))
            checked += len(spans)
            codes = sum((pages[name].codes for name in names), collections.Counter())
            problems += missing(relative, spans, codes, ", ".join(names) or "no page")

    if problems:
        print("\n".join(problems))
        print(f"check_code_spans.py: {len(problems)} problems ({checked} code spans checked)")
        return 1
    print(f"check_code_spans.py: {checked} code spans, each shown as written; no backtick outside code "
          f"and no flag's -- as an en dash in {len(pages)} pages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
