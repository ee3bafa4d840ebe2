#!/usr/bin/env python3
"""Doxygen input filter for the Markdown pages (FILTER_PATTERNS in Doxyfile.in).

It gives Doxygen 1.9 the Markdown in a form it renders as a forge or a
checkout shows it. Only the text Doxygen reads changes, never the file.

Links. The Markdown links a file to images and files relative to its own
folder. Doxygen puts every page in one flat html/ folder and keeps such a path
as written, so on the site `../results/x.svg` and `../grading/rubric.txt`
point outside it. Each relative link is rewritten to the same file relative
to the repository root:
- an image then matches its file in IMAGE_PATH by name and folder, and
  Doxygen copies it into html/ and links it by name;
- any other file keeps that root-relative path, and docs/site.cmake copies it
  into html/ at that path after Doxygen ran.
Links to Markdown files are left alone: Doxygen resolves them relative to the
file and turns them into links between pages.

Code spans. Doxygen 1.9 shows a code span as text, its backticks kept and
each "--" an en dash, when the span
- crosses more than one line break: the span is joined onto one line;
- holds a single quote followed by a non-letter (`-L 'a|b'`), which Doxygen
  takes for the end of a quotation: the span gets a two-backtick delimiter;
- stands inside double quotes, whose text Doxygen copies unread: each double
  quote outside code, HTML tags and link targets is written "&quot;", which
  reads the same;
- holds "%word" (outside a double-quoted string), whose "%" Doxygen drops
  (its mark for a word not to link): it is written "%%word", which shows
  "%word". So is prose's, whose double quotes no longer keep it.
In a heading the span's backticks are dropped (Doxygen 1.9 shows
"<tt>...</tt>" in the heading's text) and its "--" kept two dashes (\\--).

The line count is kept, so Doxygen's warnings still name the right lines: a
line that a joined span took is left holding an empty <span></span>, which
shows nothing and, unlike an empty line, does not end the paragraph.

docs/check_code_spans.py reads the Markdown with the same blocks() and
code_spans() and checks the built site against them.

Usage (by Doxygen): markdown_filter.py FILE.md, the filtered text on stdout.
"""
import os
import re
import string
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# ](target) or ](target "title"): the target of an inline link or image.
LINK = re.compile(r'\]\(([^)\s]+)((?:\s+"[^"]*")?\))')
FENCE = re.compile(r"[ \t]*(`{3,}|~{3,})")
HEADING = re.compile(r" {0,3}#{1,6}(\s|$)")
LIST_ITEM = re.compile(r"[ \t]*([-*+]|\d+[.)])[ \t]")
BACKTICKS = re.compile(r"`+")
# In prose: an HTML tag or a link's target (kept as written), a double quote,
# or a "%" before a word.
PROSE_SPECIAL = re.compile(r'(<[A-Za-z/!][^<>]*>|\]\([^)]*\))|"|%(?=[A-Za-z_])')
PROSE_ESCAPE = {'"': "&quot;", "%": "%%"}
PLACEHOLDER = "<span></span>"
# "%word": its "%" dropped by Doxygen, except inside a double-quoted string.
PERCENT_WORD = re.compile(r"%(?=[A-Za-z_])")
QUOTED = re.compile(r'("[^"]*")')


def indent(line):
    """A line's indent, a list item's marker counted (as Doxygen counts it)."""
    return len(re.match(r"[ \t]*(?:(?:[-*+]|\d+[.)])[ \t]+)?", line).group())


def blocks(lines):
    """Yields (kind, first, end) for the runs of lines[first:end]: "fence" (a
    fenced code block with its fences), "code" (an indented code block: after
    an empty line, 4 columns in from the text before it), "blank", "heading",
    or "paragraph" (text lines in a row, a list item starting a new run)."""
    i = 0
    text_indent = 0  # the indent of the last text line
    while i < len(lines):
        line = lines[i]
        fence = FENCE.match(line)
        after_blank = i == 0 or not lines[i - 1].strip()
        if fence:
            mark = fence.group(1)
            end = i + 1
            while end < len(lines) and lines[end].strip() != mark[0] * len(mark):
                end += 1
            yield "fence", i, min(end + 1, len(lines))
            text_indent = indent(line)
            i = end + 1
        elif not line.strip():
            yield "blank", i, i + 1
            i += 1
        elif after_blank and len(line) - len(line.lstrip()) >= text_indent + 4:
            end = i + 1
            while end < len(lines) and (not lines[end].strip() or
                                        len(lines[end]) - len(lines[end].lstrip()) >= text_indent + 4):
                end += 1
            while not lines[end - 1].strip():
                end -= 1
            yield "code", i, end
            i = end
        elif HEADING.match(line):
            yield "heading", i, i + 1
            text_indent = 0
            i += 1
        else:
            end = i + 1
            while (end < len(lines) and lines[end].strip() and not FENCE.match(lines[end])
                   and not HEADING.match(lines[end]) and not LIST_ITEM.match(lines[end])):
                end += 1
            yield "paragraph", i, end
            text_indent = indent(lines[end - 1])
            i = end


def code_spans(text):
    """The code spans of a paragraph's text, as CommonMark reads them: a list
    of (start, end, code), text[start:end] the span with its backticks, code
    what it shows (line breaks as spaces)."""
    spans = []
    i = 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in string.punctuation:
            i += 2
            continue
        if text[i] != "`":
            i += 1
            continue
        opening = BACKTICKS.match(text, i)
        closing = BACKTICKS.search(text, opening.end())
        while closing and len(closing.group()) != len(opening.group()):
            closing = BACKTICKS.search(text, closing.end())
        if not closing:
            i = opening.end()
            continue
        code = re.sub(r"[ \t]*\n[ \t]*", " ", text[opening.end():closing.start()])
        if len(code) > 2 and code[0] == code[-1] == " " and code.strip():
            code = code[1:-1]
        spans.append((i, closing.end(), code))
        i = closing.end()
    return spans


def span_for_doxygen(code):
    """A one-line code span that Doxygen 1.9 reads as CommonMark would."""
    code = "".join(part if part.startswith('"') else PERCENT_WORD.sub("%%", part)
                   for part in QUOTED.split(code))
    longest = max((len(run) for run in BACKTICKS.findall(code)), default=0)
    ticks = "`" * max(longest + 1, 2 if "'" in code else 1)
    pad = " " if code.startswith("`") or code.endswith("`") else ""
    return ticks + pad + code + pad + ticks


def rewrite_link(folder, match):
    target, rest = match.groups()
    if re.match(r"[a-z]+:|#|/", target) or re.search(r"\.md(#.*)?$", target):
        return match.group(0)
    path = os.path.relpath(os.path.normpath(os.path.join(folder, target)), ROOT)
    # Doxygen takes a target with neither '/' nor '.' (LICENSE) for a word, not a link.
    if "/" not in path:
        path = "./" + path
    return "](" + path + rest


def prose(folder, text):
    text = LINK.sub(lambda m: rewrite_link(folder, m), text)
    return PROSE_SPECIAL.sub(lambda m: m.group(1) or PROSE_ESCAPE[m.group()], text)


def paragraph(folder, text):
    """The paragraph with each code span on one line, and the lines a span
    took as placeholders (each with its indent) after the line it ends on."""
    out = []
    taken = []

    def add_prose(segment):
        nonlocal taken
        if taken and "\n" in segment:
            cut = segment.index("\n") + 1
            out.append(prose(folder, segment[:cut]))
            out.extend(indent + PLACEHOLDER + "\n" for indent in taken)
            taken = []
            segment = segment[cut:]
        out.append(prose(folder, segment))

    at = 0
    for start, end, code in code_spans(text):
        add_prose(text[at:start])
        out.append(span_for_doxygen(code))
        taken += re.findall(r"\n([ \t]*)", text[start:end])
        at = end
    add_prose(text[at:])
    # (A paragraph that ends the file without a line break.)
    out.extend("\n" + indent + PLACEHOLDER for indent in taken)
    return "".join(out)


def heading(folder, line):
    out = []
    at = 0
    for start, end, code in code_spans(line):
        out.append(line[at:start] + code.replace("--", "\\--"))
        at = end
    out.append(line[at:])
    return LINK.sub(lambda m: rewrite_link(folder, m), "".join(out))


def filtered(name):
    """The text of the Markdown file name as Doxygen is to read it."""
    folder = os.path.dirname(os.path.abspath(name))
    with open(name, encoding="utf-8") as f:
        lines = f.readlines()
    out = []
    for kind, first, end in blocks(lines):
        text = "".join(lines[first:end])
        if kind == "paragraph":
            text = paragraph(folder, text)
        elif kind == "heading":
            text = heading(folder, text)
        out.append(text)
    return "".join(out)


if __name__ == "__main__":
    sys.stdout.write(filtered(sys.argv[1]))
