#!/usr/bin/env python3
"""A lab's sweep over sizes (tools/sweep.sh) as a Markdown table and an SVG.

  sweep-table.py [--counters LAB-counters.csv] [--note TEXT] [--prefix TEXT] [--no-svg] SWEEP_DIR OUT_DIR

SWEEP_DIR is one lab's folder of tools/sweep.sh: the runner's --json report of
each size, every variant and the library peer timed in the same run. Writes

  OUT_DIR/<lab>-sweep.md   one row per size, smallest first: each variant's
                           median time, the peer's, the fastest variant, its
                           speed relative to the peer (peer time / its time),
                           its % of the copy bandwidth measured in that run
                           and the spread of its runs and the peer's; a lab
                           that counts flops (lab 05) gets a row per shape
                           with each one's TFLOP/s instead of % of copy
  OUT_DIR/<lab>-sweep.svg  each variant's median speed relative to the peer
                           against the size (log2 axis), shaded from its
                           slowest to its fastest run against the peer's, the
                           fastest one marked by a band, and the 1.00x line;
                           for a lab that counts flops, a bar per shape on a
                           linear axis, whiskers over the runs

--counters names the lab's tools/counters.sh CSV: the kernels launched by one
timed run of each variant, one row each, which the page then counts (launches
are not in the reports). --note adds one line of provenance under the title
(commit, driver). --prefix goes in front of both file names (h200- for a second
GPU's pages: Doxygen finds an image by its file name alone, so two GPUs' SVGs
need two names). --no-svg writes the table only, with any python3.

The same reports give the same files, byte for byte (with the same matplotlib
for the SVG). Both files are written whole, or neither.
Exit codes: 0 written; 2 bad usage, or a report or CSV it cannot read (every
report is checked before anything is written); 77 no matplotlib (nothing
written: --no-svg for the table alone). Needs matplotlib for the SVG, as
tools/plot-results.py does (on Debian, python3-matplotlib with /usr/bin/python3).
"""
import argparse
import glob
import math
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from pp_results import (InputError, field, matplotlib_pyplot, partial_file, publish,  # noqa: E402
                        read_counters, read_report, render_svg)

# "1048576 (2^20)", "1537", "1024 (2^10) in sections of 1024": elements, and a section length.
ELEMENTS = re.compile(r"^([0-9]+)(?: \(2\^([0-9]+)\))?(?: in sections of ([0-9]+))?$")
SHAPE = re.compile(r"^([0-9]+)x([0-9]+)x([0-9]+)$")  # MxNxK


def timing(entry, where):
    """name, index, correct, median/min/max ms, % of copy and GFLOP/s of one result, checked:
    a correct result has a positive median."""
    t = {"name": field(entry, "name", "text", where), "index": field(entry, "index", "number", where),
         "correct": field(entry, "correct", "bool", where)}
    for key in ("median_ms", "min_ms", "max_ms", "percent_of_copy", "gflops"):
        t[key] = field(entry, key, "rate", where)
    if t["correct"] and not (t["median_ms"] and t["median_ms"] > 0 and t["min_ms"] is not None
                             and t["max_ms"] is not None):
        raise InputError("%s is correct but has no positive median time" % where.rstrip("."))
    return t


def parse_size(text, flops):
    """(sort key, label, section) of the report's size text."""
    if flops:
        m = SHAPE.match(text)
        if not m:
            raise InputError("size '%s' is not a shape MxNxK" % text)
        m_, n_, k_ = (int(x) for x in m.groups())
        return (m_ * n_ * k_, m_, n_, k_), text, None
    m = ELEMENTS.match(text)
    if not m:
        raise InputError("size '%s' is not a number of elements" % text)
    count = int(m.group(1))
    if m.group(2) is not None and (int(m.group(2)) > 64 or count != 1 << int(m.group(2))):
        raise InputError("size '%s': %s is not 2^%s" % (text, m.group(1), m.group(2)))
    label = "2^%s" % m.group(2) if m.group(2) is not None else m.group(1)
    return (count, int(m.group(3) or 0)), label, m.group(3)


def load_sweep(folder):
    """Every report of the folder, checked and sorted by size; InputError for anything odd."""
    if not os.path.isdir(folder):
        raise InputError("no folder %s" % folder)
    paths = sorted(glob.glob(os.path.join(folder, "*.json")))
    if not paths:
        raise InputError("no reports (*.json) in %s" % folder)
    rows, first, seen = [], None, {}
    for path in paths:
        try:
            report = read_report(path)
            flops = field(report, "flops_per_run", "number")
            facts = {
                "lab": report["lab"], "title": field(report, "title", "text"),
                "gpu": field(report, "device.name", "text"),
                "sms": field(report, "device.sm_count", "number"),
                "capability": field(report, "device.compute_capability", "text"),
                "driver": field(report, "device.driver_version", "number"),
                "runtime": field(report, "device.runtime_version", "number"),
                "dataset": field(report, "dataset", "text"), "seed": field(report, "seed", "number"),
                "reps": field(report, "reps", "number"), "warmup": field(report, "warmup", "number"),
                "flops": flops > 0,
            }
            copy = field(report, "copy_gbps", "number")
            if copy <= 0 or flops < 0:
                raise InputError("copy_gbps must be positive and flops_per_run not negative")
            key, label, section = parse_size(field(report, "size", "text"), facts["flops"])
            peer = timing(report_entry(report, "peer"), "peer.")
            variants = [timing(v, "variants[%d]." % i)
                        for i, v in enumerate(field(report, "variants", "list"))]
            if not variants:
                raise InputError("no variants")
            names = [v["name"] for v in variants]
            if len(set(names)) != len(names):
                raise InputError("a variant is named twice")
        except InputError as e:
            raise InputError("%s: %s" % (path, e))
        if first is None:
            first = dict(facts, peer=peer["name"])
        else:
            for what in ("lab", "gpu", "peer", "flops"):
                mine = peer["name"] if what == "peer" else facts[what]
                if mine != first[what]:
                    raise InputError("%s: %s '%s', but %s has '%s': one lab and one GPU per folder"
                                     % (path, what, mine, paths[0], first[what]))
        if key in seen:
            raise InputError("%s and %s have the same size" % (seen[key], path))
        seen[key] = path
        rows.append({"key": key, "label": label, "section": section, "copy": copy,
                     "flops": flops, "peer": peer, "variants": variants, "facts": facts})
    rows.sort(key=lambda r: r["key"])
    return first, rows


def report_entry(report, key):
    """report[key], which must be an object."""
    value = report.get(key)
    if not isinstance(value, dict):
        raise InputError("no object '%s'" % key)
    return value


def read_launches(path, variant_names):
    """Kernel launches per variant: the rows of each in a tools/counters.sh CSV."""
    header, kernels = read_counters(path, variant_names)
    column = header.index("Variant")
    launches = {}
    for row in kernels:
        launches[row[column]] = launches.get(row[column], 0) + 1
    return launches


def variant_order(rows):
    """Every variant that appears, in ladder order."""
    index = {}
    for row in rows:
        for v in row["variants"]:
            index.setdefault(v["name"], v["index"])
    return sorted(index, key=lambda name: (index[name], name))


def best_of(row):
    """The fastest correct variant of a row, or None."""
    correct = [v for v in row["variants"] if v["correct"]]
    return min(correct, key=lambda v: (v["median_ms"], v["index"])) if correct else None


def vs_peer(row, v):
    """How many times faster than the peer @p v ran (peer time / its time), or None."""
    if v is None or not v["correct"] or not row["peer"]["correct"]:
        return None
    return row["peer"]["median_ms"] / v["median_ms"]


def ratio_range(row, v):
    """The lowest and highest ratio any timed run of @p v and of the peer give (the peer's fastest
    over its slowest, the peer's slowest over its fastest), or None."""
    if vs_peer(row, v) is None:
        return None
    return row["peer"]["min_ms"] / v["max_ms"], row["peer"]["max_ms"] / v["min_ms"]


def spread(t):
    return 100.0 * (t["max_ms"] - t["min_ms"]) / t["median_ms"]


def ratio_text(x):
    return "-" if x is None else "%.2fx" % x


def percent_text(x):
    """A percentage with one decimal, or two significant digits for one under 1."""
    if x is None:
        return "-"
    return "%.1f" % x if x >= 1 else "%.2g" % x


def time_cell(t, flops, bold=False):
    if t is None:
        return "-"
    if not t["correct"]:
        return "wrong"
    text = "%.3f" % t["median_ms"] if flops else "%.1f" % (t["median_ms"] * 1e3)
    return "**%s**" % text if bold else text


def tflops_cell(t):
    if t is None or not t["correct"] or t["gflops"] is None:
        return "-"
    return "%.1f" % (t["gflops"] / 1e3)


def subject(names, possessive=""):
    """What the sweep measured against the peer: the one variant, or each of several."""
    return names[0] + possessive if len(names) == 1 else "each variant" + possessive


def markdown(first, rows, names, launches, counters_link, source_link, note, svg_name):
    flops = first["flops"]
    facts = rows[0]["facts"]
    peer = first["peer"]
    unit = "ms" if flops else "µs"
    sections = {row["section"] for row in rows}
    common_section = sections.pop() if len(sections) == 1 else None
    lines = ["# %s over %s: %s against %s" % (first["lab"], "shapes" if flops else "sizes",
                                             subject(names), peer), ""]
    gpu = "%s (%d SMs, compute capability %s), CUDA runtime %d.%d (the driver's CUDA: %d.%d)" % (
        first["gpu"], first["sms"], first["capability"], facts["runtime"] // 1000,
        facts["runtime"] % 1000 // 10, facts["driver"] // 1000, facts["driver"] % 1000 // 10)
    lines.append("%s%s." % (gpu, "; " + note if note else ""))
    reps = {(row["facts"]["reps"], row["facts"]["warmup"]) for row in rows}
    reps_text = ("median of %d timed runs after %d warm-up runs" % next(iter(reps)) if len(reps) == 1
                 else "medians of timed runs")
    lines += ["Made by `tools/sweep-table.py` from the runner's reports in `%s`, one run of the runner"
              " per %s (`tools/sweep.sh`): %s, the L2 cache flushed before each, `%s` data; the peer and"
              " the copy bandwidth are measured in the same run as the variants."
              % (source_link, "shape" if flops else "size", reps_text, facts["dataset"]), ""]
    spread_text = ("\"spread\" is (slowest - fastest) / median of the timed runs, for the fastest"
                   " variant and the peer.")
    if flops:
        lines.append("Times in ms. \"vs peer\" is the peer's time over the variant's: above 1.00x the"
                     " variant is faster; " + spread_text)
    else:
        lines.append("Times in µs, the fastest variant's in bold%s. \"best vs peer\" is the peer's"
                     " time over the fastest variant's: above 1.00x it is faster; %s"
                     % (", n elements in sections of %s" % common_section if common_section else "",
                        spread_text))
    lines.append("")
    if flops:
        header = ["shape (MxNxK)"]
        for name in names:
            header += ["%s %s" % (name, unit), "%s TFLOP/s" % name]
        header += ["%s %s" % (peer, unit), "%s TFLOP/s" % peer, "best", "best vs peer",
                   "spread best / peer"]
    else:
        header = ["n"] + ["%s %s" % (name, unit) for name in names] + [
            "%s %s" % (peer, unit), "best", "best vs peer", "best % of copy", "spread best / peer"]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("| " + " | ".join("---" if h in ("best",) or h == header[0] else "---:" for h in header)
                 + " |")
    below = []
    for row in rows:
        best = best_of(row)
        by_name = {v["name"]: v for v in row["variants"]}
        ratio = vs_peer(row, best)
        label = row["label"]
        if row["section"] and not common_section:
            label += "/" + row["section"]
        cells = [label]
        if flops:
            for name in names:
                cells += [time_cell(by_name.get(name), True), tflops_cell(by_name.get(name))]
            cells += [time_cell(row["peer"], True), tflops_cell(row["peer"])]
        else:
            cells += [time_cell(by_name.get(name), False, by_name.get(name) is best) for name in names]
            cells.append(time_cell(row["peer"], False))
        cells += [best["name"] if best else "-", ratio_text(ratio)]
        if not flops:
            cells.append(percent_text(None if best is None else best["percent_of_copy"]))
        cells.append("%s / %s" % ("%.0f%%" % spread(best) if best else "-",
                                  "%.0f%%" % spread(row["peer"]) if row["peer"]["correct"] else "-"))
        lines.append("| " + " | ".join(cells) + " |")
        if ratio is not None and ratio < 1.0:
            # Three decimals where two would print a ratio under 1 as 1.00x.
            shown = ("%.3fx" if ratio_text(ratio) == "1.00x" else "%.2fx") % ratio
            below.append("%s %s%s" % (label, shown, " (%s)" % best["name"] if len(names) > 1 else ""))
    lines.append("")
    wrong = ["%s at %s" % (t["name"], row["label"]) for row in rows
             for t in row["variants"] + [row["peer"]] if not t["correct"]]
    ratios = [r for r in (vs_peer(row, best_of(row)) for row in rows) if r is not None]
    if ratios:
        lines.append("The fastest variant runs at %s to %s the speed of %s." % (
            ratio_text(min(ratios)), ratio_text(max(ratios)), peer))
    lines.append("Below the peer (fastest variant under 1.00x): %s."
                 % ("; ".join(below) if below else "none"))
    if wrong:
        lines.append("Wrong or not timed (left out of \"best\"): %s." % ", ".join(wrong))
    lines.append("")
    if launches is not None:
        counts = ", ".join("%s %s" % (name, launches.get(name, "?")) for name in names)
        lines += ["Kernel launches per run of each variant, counted from the rows of %s (one per kernel"
                  " that one timed run launched, as `tools/counters.sh` profiled it at the size its"
                  " page names; where a variant adds partial results in passes, other sizes take"
                  " more or fewer): %s. The peer's launches are not counted." % (counters_link, counts),
                  ""]
    if svg_name:
        lines += ["![%s over %s: %s speed relative to %s, from its slowest to its fastest run](%s)"
                  % (first["lab"], "shapes" if flops else "sizes", subject(names, "'s"), peer,
                     svg_name), ""]
    return "\n".join(lines)


def size_plot(plt, first, rows, names):
    figure, axes = plt.subplots(figsize=(8, 4.8))
    axes.set_xscale("log", base=2)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, name in enumerate(names):
        points = [(row["key"][0], vs_peer(row, v)) for row in rows for v in row["variants"]
                  if v["name"] == name and vs_peer(row, v) is not None]
        if points:
            color = colors[i % len(colors)]
            axes.plot([x for x, _ in points], [y for _, y in points], marker=".", linewidth=1,
                      markersize=4, color=color, label=name, zorder=2)
            ranges = [ratio_range(row, v) for row in rows for v in row["variants"]
                      if v["name"] == name and vs_peer(row, v) is not None]
            axes.fill_between([x for x, _ in points], [r[0] for r in ranges], [r[1] for r in ranges],
                              color=color, alpha=0.15, linewidth=0, zorder=1.8)
    best = [(row["key"][0], vs_peer(row, best_of(row))) for row in rows]
    best = [(x, y) for x, y in best if y is not None]
    if best:
        # A wide band under the variants' lines, so that the fastest one still shows on it.
        axes.plot([x for x, _ in best], [y for _, y in best], color="#b0b0b0", linewidth=6, zorder=1.5,
                  solid_capstyle="round", label="fastest variant")
    axes.axhline(1.0, linestyle="--", color="#c0504d", linewidth=1.5, zorder=1,
                 label="1.00x: as fast as %s" % first["peer"])
    sizes = [row["key"][0] for row in rows]
    low, high = int(math.floor(math.log2(min(sizes)))), int(math.ceil(math.log2(max(sizes))))
    step = max(1, (high - low + 9) // 10)
    ticks = list(range(low, high + 1, step))
    axes.set_xticks([2.0 ** k for k in ticks])
    axes.set_xticklabels(["2^%d" % k for k in ticks])
    axes.minorticks_off()
    axes.set_xlim(2.0 ** low / 1.2, 2.0 ** high * 1.2)
    axes.set_ylim(bottom=0)
    axes.set_xlabel("n, elements (log2 scale)")
    axes.set_ylabel("x %s (its time / the variant's)" % first["peer"])
    axes.set_title("%s: speed relative to %s over sizes\n%s; median, shaded: slowest to fastest run"
                   % (first["lab"], first["peer"], first["gpu"]), fontsize=11)
    axes.grid(color="#dddddd", zorder=0)
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    figure.tight_layout()
    return figure


def shape_plot(plt, first, rows, names):
    figure, axes = plt.subplots(figsize=(8, 4.8))
    width = 0.8 / len(names)
    shown = []
    for i, name in enumerate(names):
        for p, row in enumerate(rows):
            v = next((v for v in row["variants"] if v["name"] == name), None)
            ratio = vs_peer(row, v)
            x = p - 0.4 + width * (i + 0.5)
            if ratio is None:
                axes.text(x, 0.02, "wrong", rotation=90, ha="center", va="bottom", color="#c0504d",
                          fontsize=8)
                continue
            low, high = ratio_range(row, v)
            shown.append(high)
            # A linear axis, so that a bar's length is the ratio; the whisker spans the runs.
            axes.bar([x], [ratio], width=width * 0.9, color="#4878a8", zorder=2,
                     yerr=[[ratio - low], [high - ratio]], capsize=3, ecolor="#303030",
                     label=name if p == 0 and len(names) > 1 else None)
            axes.text(x, high + 0.02, "%.2fx" % ratio, ha="center", va="bottom", fontsize=8)
    axes.axhline(1.0, linestyle="--", color="#c0504d", linewidth=1.5, zorder=3,
                 label="1.00x: as fast as %s" % first["peer"])
    axes.set_ylim(0, max(shown + [1.0]) * 1.15)
    axes.set_xticks(list(range(len(rows))))
    axes.set_xticklabels([row["label"] for row in rows], rotation=30, ha="right")
    axes.set_xlabel("shape MxNxK, by number of multiply-adds")
    axes.set_ylabel("x %s (its time / the variant's)" % first["peer"])
    axes.set_title("%s: %s speed relative to %s over shapes\n%s; median, whiskers: slowest to"
                   " fastest run" % (first["lab"], subject(names, "'s"), first["peer"], first["gpu"]),
                   fontsize=11)
    axes.grid(axis="y", color="#dddddd", zorder=0)
    axes.legend(loc="lower left", fontsize=8, framealpha=0.9)
    figure.tight_layout()
    return figure


def link(target, base):
    """@p target relative to the folder @p base, with forward slashes."""
    return os.path.relpath(target, base).replace(os.sep, "/")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--counters", help="the lab's tools/counters.sh CSV, for the launches")
    parser.add_argument("--note", default="", help="one line of provenance under the title")
    parser.add_argument("--prefix", default="", help="put in front of both file names (e.g. h200-)")
    parser.add_argument("--no-svg", action="store_true", help="write the table only")
    parser.add_argument("sweep_dir", help="one lab's folder of tools/sweep.sh reports")
    parser.add_argument("out_dir", help="the folder the table and the SVG go to")
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return 0 if e.code == 0 else 2
    if not os.path.isdir(args.out_dir):
        print("error: no folder %s" % args.out_dir, file=sys.stderr)
        return 2
    if any(ord(c) < 32 for c in args.note):
        print("error: --note must be one line of text", file=sys.stderr)
        return 2
    if not re.fullmatch(r"[A-Za-z0-9._-]*", args.prefix):
        print("error: --prefix takes letters, digits, '.', '_' and '-' only", file=sys.stderr)
        return 2
    try:
        first, rows = load_sweep(args.sweep_dir)
        names = variant_order(rows)
        launches = read_launches(args.counters, names) if args.counters else None
    except InputError as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    plt = None
    if not args.no_svg:
        plt = matplotlib_pyplot()
        if plt is None:
            print("matplotlib not found for %s (on Debian: apt-get install python3-matplotlib, then run "
                  "this with /usr/bin/python3; or --no-svg for the table alone): nothing written"
                  % sys.executable)
            return 77
    lab = first["lab"]
    md_path = os.path.join(args.out_dir, args.prefix + lab + "-sweep.md")
    svg_path = os.path.join(args.out_dir, args.prefix + lab + "-sweep.svg")
    counters_link = None
    if args.counters:
        counters_link = "[%s](%s)" % (os.path.basename(args.counters), link(args.counters, args.out_dir))
    text = markdown(first, rows, names, launches, counters_link,
                    link(args.sweep_dir, args.out_dir).rstrip("/") + "/", args.note,
                    os.path.basename(svg_path) if plt is not None else None)
    pairs = []
    try:
        if plt is not None:
            pairs.append((partial_file(svg_path), svg_path))
            figure = (shape_plot if first["flops"] else size_plot)(plt, first, rows, names)
            render_svg(plt, figure, pairs[-1][0])
        pairs.append((partial_file(md_path), md_path))
        with open(pairs[-1][0], "w", encoding="utf-8") as f:
            f.write(text)
    except BaseException:
        for temporary, _ in pairs:
            os.unlink(temporary)
        raise
    publish(pairs)
    for _, path in pairs:
        print("wrote %s" % path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
