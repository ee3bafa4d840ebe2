#!/usr/bin/env python3
"""Nsight Compute's raw CSV, one file per variant, as a Markdown table per lab.

tools/counters.sh profiles each variant of a lab in its own run of the lab's
runner and hands the files over in a manifest; this script reads them and
writes the table. It needs only Python's standard library.

  counters-table.py --metrics
      print the metrics to ask ncu for, comma-separated
  counters-table.py --manifest FILE --lab LAB --size SIZE --ncu VERSION --md OUT.md --csv OUT.csv

The manifest has one line per variant, in ladder order, fields separated by a
tab: INDEX NAME CSV, or INDEX NAME - REASON for a variant that was not
profiled. A CSV path is relative to the manifest's folder. Each CSV is
`ncu --import R.ncu-rep --csv --page raw --print-units base`: a header row
(ID, Process ID, ..., Kernel Name, ..., then the metrics), a row of units, one
row per profiled kernel in launch order. The runner launches every timed
repetition right after the harness's L2 flush kernel (common/src/timer.c), so
the kernels after the last l2_flush_kernel row are the timed run: the table
counts those and nothing else.

Exit codes: 0 written, 2 bad usage or an input it cannot read (nothing is
written then).
"""
import argparse
import csv
import io
import os
import sys
import tempfile
import textwrap

FLUSH_KERNEL = "l2_flush_kernel"

# Column key: the metrics that give it, the first one the CSV holds wins (a
# later name is the same quantity under the name older Nsight Compute versions
# use; ncu skips a name it does not know), and how a variant's kernels combine:
# "sum", "max", "time" (mean weighted by kernel time) or "inst" (mean weighted
# by instructions executed). Every name was checked against Nsight Compute
# 2025.3's list for sm_90 (GH100), and all but the gmma stall for sm_75, sm_80
# and sm_89 (`ncu --query-metrics --chip tu102|ga100|ad102`).
METRICS = {
    "time": (["gpu__time_duration.sum"], "sum"),
    "regs": (["launch__registers_per_thread"], "max"),
    "occupancy": (["sm__warps_active.avg.pct_of_peak_sustained_active"], "time"),
    "issue": (["smsp__issue_active.avg.pct_of_peak_sustained_active"], "time"),
    "inst": (["smsp__inst_executed.sum"], "sum"),
    "threads": (["smsp__average_thread_inst_executed_per_inst_executed.ratio",
                 "smsp__thread_inst_executed_per_inst_executed.ratio"], "inst"),
    "threads_on": (["smsp__average_thread_inst_executed_pred_on_per_inst_executed.ratio",
                    "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio"], "inst"),
    "branches": (["smsp__sass_branch_targets.sum"], "sum"),
    "uniform": (["smsp__sass_branch_targets_threads_uniform.sum"], "sum"),
    "divergent": (["smsp__sass_branch_targets_threads_divergent.sum"], "sum"),
    "conflicts_ld": (["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"], "sum"),
    "conflicts_st": (["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"], "sum"),
    "dram_read": (["dram__bytes_read.sum"], "sum"),
    "dram_write": (["dram__bytes_write.sum"], "sum"),
    "dram_pct": (["dram__throughput.avg.pct_of_peak_sustained_elapsed"], "time"),
    "l2_bytes": (["lts__t_bytes.sum"], "sum"),
    "fma": (["sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active"], "time"),
    "cpi": (["smsp__average_warp_latency_per_inst_issued.ratio"], "inst"),
}
# Warp stall reasons, in cycles per issued instruction; they add up to "cpi"
# (with "selected", the one cycle of issuing, which is not a stall and not asked for).
STALL_REASONS = ["barrier", "branch_resolving", "dispatch_stall", "drain", "gmma", "imc_miss",
                 "lg_throttle", "long_scoreboard", "math_pipe_throttle", "membar", "mio_throttle",
                 "misc", "no_instruction", "not_selected", "short_scoreboard", "sleeping",
                 "tex_throttle", "wait"]
for _reason in STALL_REASONS:
    METRICS["stall:" + _reason] = (
        ["smsp__average_warps_issue_stalled_%s_per_issue_active.ratio" % _reason], "inst")
TOP_STALLS = 3
# Units the numbers are read in (ncu --print-units base); any other is refused
# rather than scaled wrongly.
UNITS = {"gpu__time_duration.sum": {"ns", "nsecond"}, "dram__bytes_read.sum": {"byte"},
         "dram__bytes_write.sum": {"byte"}, "lts__t_bytes.sum": {"byte"}}

COLUMNS_DOC = [
    ("launches", "kernels launched by the timed run (memsets and copies are not kernels)"),
    ("µs",
     "kernel time, `gpu__time_duration.sum`, at the clocks ncu locks (base), caches "
     "flushed before each kernel"),
    ("regs",
     "registers per thread, `launch__registers_per_thread` (the most of the variant's "
     "kernels)"),
    ("occupancy %", "achieved occupancy, `sm__warps_active.avg.pct_of_peak_sustained_active`"),
    ("issue %",
     "cycles an instruction was issued, "
     "`smsp__issue_active.avg.pct_of_peak_sustained_active`"),
    ("instr. M", "warp instructions executed, millions, `smsp__inst_executed.sum`"),
    ("threads/instr. active / pred. on",
     "threads per warp instruction, of 32: active, "
     "`smsp__average_thread_inst_executed_per_inst_executed.ratio` (below 32: divergent "
     "branches or partial warps), and of those with the guard predicate on, "
     "`smsp__average_thread_inst_executed_pred_on_per_inst_executed.ratio` (lower still: "
     "an `if` the compiler predicated)"),
    ("uniform branches %",
     "branch targets taken by all active threads of a warp alike: "
     "`smsp__sass_branch_targets_threads_uniform.sum` / `smsp__sass_branch_targets.sum` "
     "(a dash: no branch taken)"),
    ("divergent branches", "`smsp__sass_branch_targets_threads_divergent.sum`"),
    ("bank conflicts ld / st",
     "shared-memory bank conflicts, "
     "`l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum` / `_op_st.sum`"),
    ("DRAM MB rd / wr",
     "`dram__bytes_read.sum` / `dram__bytes_write.sum`, 10^6 bytes; writes still in L2 "
     "when the kernel ends are not counted, so an output not much larger than L2 shows "
     "partly"),
    ("DRAM %", "`dram__throughput.avg.pct_of_peak_sustained_elapsed`"),
    ("L2 GB/s", "`lts__t_bytes.sum` over the kernel time"),
    ("FMA pipe %", "`sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active`"),
    ("cycles/instr.",
     "cycles a warp waits per instruction issued, "
     "`smsp__average_warp_latency_per_inst_issued.ratio`"),
    ("top stalls",
     "the largest parts of it, "
     "`smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio`, in cycles per "
     "instruction"),
]


class InputError(Exception):
    """An input this script cannot read: reported, exit code 2."""


def requested_metrics():
    names = []
    for alternatives, _ in METRICS.values():
        names.extend(alternatives)
    return names


def number(text):
    """ncu's number text ("1,048,576", "91.88") as a float; None where there is none."""
    text = text.strip().replace(",", "")
    if text in ("", "n/a", "N/A"):
        return None
    try:
        return float(text)
    except ValueError:
        return None


def kernel_short_name(name):
    """ "void reduce_v5<float, 256>(const T1 *, ...)" -> "reduce_v5<float, 256>" """
    name = name.strip()
    if name.startswith("void "):
        name = name[len("void "):]
    depth = 0
    for i, c in enumerate(name):
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif c == "(" and depth == 0:
            return name[:i]
    return name


def read_ncu_csv(path):
    """The header, units and rows of an ncu raw CSV; the timed run's rows only."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            lines = list(csv.reader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise InputError("cannot read %s: %s" % (path, e))
    start = next((i for i, row in enumerate(lines) if row[:1] == ["ID"]), None)
    if start is None or start + 1 >= len(lines):
        raise InputError("%s: no ncu raw CSV header (a row starting with \"ID\")" % path)
    header, units, rows = lines[start], lines[start + 1], lines[start + 2:]
    if len(units) != len(header) or any(len(row) != len(header) for row in rows):
        raise InputError("%s: rows of different lengths" % path)
    if "Kernel Name" not in header or "gpu__time_duration.sum" not in header:
        raise InputError("%s: no 'Kernel Name' or 'gpu__time_duration.sum' column" % path)
    for metric, allowed in UNITS.items():
        if metric in header and units[header.index(metric)] not in allowed:
            raise InputError("%s: %s is in '%s', not %s: export with --print-units base"
                             % (path, metric, units[header.index(metric)],
                                " or ".join(sorted(allowed))))
    names = [kernel_short_name(row[header.index("Kernel Name")]) for row in rows]
    flushes = [i for i, name in enumerate(names) if name == FLUSH_KERNEL]
    if not flushes:
        raise InputError("%s: no %s row, so no timed run to find (was the flush kernel profiled?)"
                         % (path, FLUSH_KERNEL))
    timed = rows[flushes[-1] + 1:]
    if not timed:
        raise InputError("%s: no kernel after the last %s" % (path, FLUSH_KERNEL))
    return header, units, timed


def kernel_values(header, row):
    """One kernel's values, by column key; None where the CSV lacks the metric."""
    values = {"name": kernel_short_name(row[header.index("Kernel Name")])}
    for key, (alternatives, _) in METRICS.items():
        column = next((header.index(m) for m in alternatives if m in header), None)
        values[key] = None if column is None else number(row[column])
    if values["time"] is None:
        raise InputError("kernel %s has no time" % values["name"])
    return values


def combine(kernels):
    """A group of kernels as one row: counts summed, rates weighted (see METRICS)."""
    total = {"launches": len(kernels)}
    for key, (_, how) in METRICS.items():
        pairs = [(k[key], k["time"] if how == "time" else k["inst"])
                 for k in kernels if k[key] is not None]
        if not pairs:
            total[key] = None
        elif how == "sum":
            total[key] = sum(v for v, _ in pairs)
        elif how == "max":
            total[key] = max(v for v, _ in pairs)
        else:
            weight = sum(w for _, w in pairs if w is not None)
            total[key] = (sum(v * w for v, w in pairs if w is not None) / weight
                          if weight > 0 else None)
    return total


def fmt(value, spec):
    return "n/a" if value is None else format(value, spec)


def fmt_count(value):
    """A count at a glance: 0, 950, 35.2k, 1.20M, 3.4G."""
    if value is None:
        return "n/a"
    for scale, suffix, spec in ((1e9, "G", ".1f"), (1e6, "M", ".2f"), (1e3, "k", ".1f")):
        if value >= scale:
            return format(value / scale, spec) + suffix
    return format(value, ".0f")


def cells(t):
    """A combined row's table cells, after the name columns."""
    def pair(a, b, show):
        return "n/a" if a is None and b is None else "%s / %s" % (show(a), show(b))

    def megabytes(v):
        return fmt(None if v is None else v / 1e6, ".1f")

    if t["uniform"] is None or t["branches"] is None:
        uniform = "n/a"
    else:  # a dash where the kernels took no branch at all
        uniform = fmt(100.0 * t["uniform"] / t["branches"], ".1f") if t["branches"] else "-"
    l2 = t["l2_bytes"] / t["time"] if t["l2_bytes"] is not None and t["time"] else None
    stalls = sorted(((t["stall:" + r], r) for r in STALL_REASONS if t["stall:" + r] is not None),
                    key=lambda s: (-s[0], s[1]))
    top = ", ".join("%s %.1f" % (r, v) for v, r in stalls[:TOP_STALLS]) or "n/a"
    return [str(t["launches"]), fmt(t["time"] / 1e3, ".1f"), fmt(t["regs"], ".0f"),
            fmt(t["occupancy"], ".1f"), fmt(t["issue"], ".1f"),
            fmt(None if t["inst"] is None else t["inst"] / 1e6, ".2f"),
            pair(t["threads"], t["threads_on"], lambda v: fmt(v, ".1f")),
            uniform, fmt_count(t["divergent"]),
            pair(t["conflicts_ld"], t["conflicts_st"], fmt_count),
            pair(t["dram_read"], t["dram_write"], megabytes), fmt(t["dram_pct"], ".1f"),
            fmt(l2, ".0f"),
            fmt(t["fma"], ".1f"), fmt(t["cpi"], ".1f"), top]


HEADINGS = ["launches", "µs", "regs", "occupancy %", "issue %", "instr. M",
            "threads/instr. active / pred. on",
            "uniform branches %", "divergent branches", "bank conflicts ld / st", "DRAM MB rd / wr",
            "DRAM %", "L2 GB/s", "FMA pipe %", "cycles/instr.", "top stalls"]


def wrap(text, **options):
    """Markdown prose at 100 columns, never broken inside a name like v2-kahan."""
    return textwrap.fill(text, 100, break_on_hyphens=False, break_long_words=False, **options)


def table_row(fields):
    return "| " + " | ".join(f.replace("|", "\\|") for f in fields) + " |"


def read_manifest(path):
    base = os.path.dirname(os.path.abspath(path))
    entries = []
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError("cannot read %s: %s" % (path, e))
    for line_number, line in enumerate(lines, 1):
        fields = line.split("\t")
        if len(fields) == 3 and fields[2] != "-":
            entries.append((fields[0], fields[1], os.path.join(base, fields[2]), None))
        elif len(fields) == 4 and fields[2] == "-":
            entries.append((fields[0], fields[1], None, fields[3]))
        else:
            raise InputError("%s line %d: want INDEX<tab>NAME<tab>CSV or INDEX<tab>NAME<tab>-<tab>"
                             "REASON" % (path, line_number))
    if not entries:
        raise InputError("%s: no variants" % path)
    return entries


def write_atomically(path, text):
    folder = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(dir=folder, prefix=".partial-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # as an ordinary new file, not mkstemp's 0600
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def build(args):
    entries = read_manifest(args.manifest)
    variant_rows, kernel_rows, raw_rows = [], [], []
    gpu, raw_header = None, None
    for index, name, path, reason in entries:
        if path is None:
            variant_rows.append(table_row([index, name, "not profiled: " + reason]
                                          + [""] * (len(HEADINGS) - 1)))
            continue
        header, units, timed = read_ncu_csv(path)
        kernels = [kernel_values(header, row) for row in timed]
        variant_rows.append(table_row([index, name] + cells(combine(kernels))))
        groups = {}
        for k in kernels:
            groups.setdefault(k["name"], []).append(k)
        for kernel, group in groups.items():
            kernel_rows.append(table_row([index, name, "`%s`" % kernel] + cells(combine(group))))
        if gpu is None and "device__attribute_display_name" in header:
            gpu = timed[0][header.index("device__attribute_display_name")]
        # The raw values behind the table: identity columns and the metrics asked for.
        keep = [c for c in ["ID", "Kernel Name", "Block Size", "Grid Size"] + requested_metrics()
                if c in header]
        if raw_header is None:
            raw_header = keep
            raw_rows.append(["Variant index", "Variant"] + keep)
            raw_rows.append(["", ""] + [units[header.index(c)] for c in keep])
        elif keep != raw_header:
            raise InputError("%s: other metrics than the first variant's CSV" % path)
        raw_rows.extend([index, name] + [row[header.index(c)] for c in keep] for row in timed)

    intro = ("Nsight Compute %s on %s, size %s (`tools/counters.sh %s`). Every kernel of each "
             "variant's timed run is profiled: the kernels after the harness's last L2 flush, one "
             "repetition. ncu flushes the caches before each kernel and locks the clocks at base, so "
             "times are longer than the lab's table. A variant's row adds its kernels up: counts "
             "summed, percentages weighted by kernel time, per-instruction figures by instructions "
             "executed; the second table shows each kernel the same way."
             % (args.ncu, gpu or "an unnamed GPU", args.size, args.lab))
    lines = ["# %s: hardware counters of each variant" % args.lab, "", wrap(intro), "",
             table_row(["#", "variant"] + HEADINGS),
             table_row(["--:", "---"] + ["--:"] * (len(HEADINGS) - 1) + ["---"])]
    lines += variant_rows
    lines += ["", "## Each kernel", "",
              table_row(["#", "variant", "kernel"] + HEADINGS),
              table_row(["--:", "---", "---"] + ["--:"] * (len(HEADINGS) - 1) + ["---"])]
    lines += kernel_rows
    lines += ["", "## Columns", ""]
    lines += [wrap("- %s: %s" % doc, subsequent_indent="  ") for doc in COLUMNS_DOC]
    lines += ["", wrap("The raw values: `%s` (the timed run's kernels, ncu's units in its second "
                       "row)." % os.path.basename(args.csv)), ""]
    markdown = "\n".join(lines)

    if raw_header is None:
        raise InputError("no variant was profiled")
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(raw_rows)
    write_atomically(args.csv, out.getvalue())
    write_atomically(args.md, markdown)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--metrics", action="store_true", help="print the metrics to ask ncu for")
    parser.add_argument("--manifest", help="the variants and their CSV files")
    parser.add_argument("--lab", help="the lab's name, for the title")
    parser.add_argument("--size", help="the problem size profiled, for the text")
    parser.add_argument("--ncu", default="(version unknown)", help="ncu's version, for the text")
    parser.add_argument("--md", help="the Markdown file to write")
    parser.add_argument("--csv", help="the CSV of raw values to write")
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return 0 if e.code == 0 else 2
    if args.metrics:
        print(",".join(requested_metrics()))
        return 0
    if not all([args.manifest, args.lab, args.size, args.md, args.csv]):
        parser.print_usage(sys.stderr)
        print("error: --manifest, --lab, --size, --md and --csv are needed", file=sys.stderr)
        return 2
    try:
        build(args)
    except InputError as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    except OSError as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
