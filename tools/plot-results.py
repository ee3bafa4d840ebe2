#!/usr/bin/env python3
"""Pictures of a lab's results: the runner's --json output as SVG.

  plot-results.py [--sm-clock-mhz MHZ] RESULTS.json OUT_DIR

writes OUT_DIR/<lab>-staircase.svg: each variant's rate in ladder order
(GB/s, or GFLOP/s for a lab that counts flops), as a bar, or as a dot where
the rates span decades and the axis is logarithmic (a bar's length means
nothing there), with the library peer and the roof as lines: the measured copy
bandwidth (copy_gbps) for a memory-bound lab, for one that counts flops the
peak of its unit: FP32, or the one the report names (its "peak", e.g. "BF16
tensor", and "peak_gflops", the runner's at the GPU's peak clock).

  --counters LAB-counters.csv SIZE   (ignored for a lab that counts no flops)

also writes OUT_DIR/<lab>-roofline.svg from the tools/counters.sh CSV of the
lab, profiled at SIZE (MxNxK, the size its counters page names): each
variant at its measured DRAM intensity (flops / DRAM bytes read and written)
and its rate in that profiled run (flops / kernel time), under the copy roof
of the JSON and the FP32 peak. Nsight Compute locks the clocks at base, so
those rates sit below the JSON's. The committed pictures of lab 05:
  plot-results.py --sm-clock-mhz 1980 \
    --counters docs/results/05-tiled-matmul-counters.csv 2048x2048x2048 \
    docs/results/05-tiled-matmul.json docs/results

The FP32 peak is 2 flops (one FMA) x FP32 lanes per SM (by compute
capability) x SM count x SM clock. The JSON gives the SM count; the clock
comes from its device.clock_khz where it has one, or from --sm-clock-mhz
(nvidia-smi --query-gpu=clocks.max.sm); without either, no peak is drawn.

The same JSON gives the same SVG, byte for byte, with the same matplotlib.
Needs matplotlib: run it with a Python that has it (on Debian,
`apt-get install python3-matplotlib` gives /usr/bin/python3 the package).
Exit codes: 0 written, 2 bad usage or a JSON it cannot read (checked before
matplotlib is needed), 77 no matplotlib. The reading of the report and the
writing of the SVG are shared with tools/sweep-table.py (tools/pp_results.py).
"""
import argparse
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from pp_results import (InputError, field, matplotlib_pyplot, read_counters, read_report,  # noqa: E402
                        save)

# FP32 lanes (FMA units) per SM, by compute capability.
FP32_LANES = {"7.5": 64, "8.0": 64, "8.6": 128, "8.7": 128, "8.9": 128, "9.0": 128,
              "10.0": 128, "10.3": 128, "11.0": 128, "12.0": 128, "12.1": 128}


def load(path, clock_mhz):
    """The facts the pictures need, checked; InputError for anything missing or odd."""
    report = read_report(path)
    lab = report["lab"]
    flops = field(report, "flops_per_run", "number")
    rate_key = "gflops" if flops > 0 else "gbps"
    facts = {
        "lab": lab, "title": field(report, "title", "text"), "size": field(report, "size", "text"),
        "gpu": field(report, "device.name", "text"), "copy_gbps": field(report, "copy_gbps", "number"),
        "bytes": field(report, "bytes_per_run", "number"), "flops": flops, "rate_key": rate_key,
        "peer": (field(report, "peer.name", "text"),
                 field(report, "peer." + rate_key, "rate") if field(report, "peer.correct", "bool")
                 else None),
        "variants": [],
    }
    for i, v in enumerate(field(report, "variants", "list")):
        where = "variants[%d]." % i
        name = field(v, "name", "text", where)
        rate = field(v, rate_key, "rate", where)
        # "correct" is false for a variant that was wrong at any repetition or never timed.
        correct = field(v, "correct", "bool", where)
        facts["variants"].append((name, rate if correct else None))
    if not facts["variants"]:
        raise InputError("no variants")
    if facts["copy_gbps"] <= 0 or facts["bytes"] <= 0:
        raise InputError("copy_gbps and bytes_per_run must be positive")
    unit = field(report, "peak", "text") if "peak" in report else ""  # reports before it: FP32
    if unit and unit != "FP32":
        gflops = field(report, "peak_gflops", "number")
        facts["peak_name"] = unit + " peak"
        facts["peak_gflops"], facts["peak_note"] = gflops, "%s peak: %.0f GFLOP/s (the runner's)" % (unit, gflops)
    else:
        facts["peak_name"] = "FP32 peak"
        facts["peak_gflops"], facts["peak_note"] = fp32_peak(report, clock_mhz)
    return facts


def load_counters(path, size, variant_names):
    """(variant, flop per DRAM byte, GFLOP/s) of each variant the CSV profiled at @p size (MxNxK),
    its kernels added up; InputError for anything missing or odd."""
    shape = re.fullmatch(r"([0-9]+)x([0-9]+)x([0-9]+)", size)
    if not shape:
        raise InputError("--counters size '%s' is not a shape MxNxK" % size)
    m, n, k = (int(x) for x in shape.groups())
    flops = 2.0 * m * n * k
    header, kernels = read_counters(path, variant_names)
    columns = {}
    for key in ("Variant", "gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum"):
        if key not in header:
            raise InputError("%s has no column %s" % (path, key))
        columns[key] = header.index(key)
    sums = {}
    for row in kernels:
        try:
            values = [float(row[columns[key]].replace(",", "")) for key in list(columns)[1:]]
        except ValueError:
            raise InputError("%s: a time or byte count that is not a number" % path)
        total = sums.setdefault(row[columns["Variant"]], [0.0, 0.0])
        total[0] += values[0] * 1e-9  # ns
        total[1] += values[1] + values[2]
    points = []
    for name in variant_names:
        if name in sums and sums[name][0] > 0 and sums[name][1] > 0:
            seconds, dram = sums[name]
            points.append((name, flops / dram, flops / seconds * 1e-9))
    return points


def fp32_peak(report, clock_mhz):
    """The FP32 peak in GFLOP/s and where it comes from, or (None, why not)."""
    capability = field(report, "device.compute_capability", "text")
    sm_count = field(report, "device.sm_count", "number")
    lanes = FP32_LANES.get(capability)
    source = "--sm-clock-mhz"
    if clock_mhz is None and "clock_khz" in report["device"]:
        clock_mhz, source = field(report, "device.clock_khz", "number") / 1e3, "device.clock_khz"
    if lanes is None or clock_mhz is None:
        return None, ("FP32 peak unknown: no SM clock (--sm-clock-mhz)" if lanes else
                      "FP32 peak unknown for compute capability %s" % capability)
    peak = 2.0 * lanes * sm_count * clock_mhz * 1e-3
    return peak, "FP32 peak: %.0f GFLOP/s = 2 x %d lanes x %d SMs x %.0f MHz (%s)" % (
        peak, lanes, sm_count, clock_mhz, source)


def rate_text(value):
    return "%.0f" % value


def staircase(plt, facts, path):
    unit = "GFLOP/s" if facts["rate_key"] == "gflops" else "GB/s"
    names = [name for name, _ in facts["variants"]]
    rates = [rate for _, rate in facts["variants"]]
    figure, axes = plt.subplots(figsize=(8, 4.8))
    positions = range(len(names))
    lines = []
    peer_name, peer_rate = facts["peer"]
    if peer_rate is not None:
        lines.append((peer_rate, "%s: %s %s" % (peer_name, rate_text(peer_rate), unit), "--", "#c0504d"))
    if facts["rate_key"] == "gbps":
        lines.append((facts["copy_gbps"], "copy roof (measured cudaMemcpy): %s GB/s"
                      % rate_text(facts["copy_gbps"]), ":", "#404040"))
    elif facts["peak_gflops"] is not None:
        lines.append((facts["peak_gflops"], "%s: %s GFLOP/s" % (facts["peak_name"], rate_text(facts["peak_gflops"])),
                      ":", "#404040"))
    for value, label, style, color in lines:
        axes.axhline(value, linestyle=style, color=color, linewidth=1.5, label=label, zorder=3)

    shown = [r for r in rates if r is not None] + [value for value, _, _, _ in lines]
    top = max(shown) if shown else 1.0
    # Ladders that span decades (a naive matmul to a tuned one) need a log axis to show every step.
    logarithmic = bool(shown) and top / min(shown) > 20
    drawn = ([p for p, r in zip(positions, rates) if r is not None], [r for r in rates if r is not None])
    if logarithmic:
        # A dot per variant: on a log axis a bar's length does not scale with the rate.
        axes.set_yscale("log")
        axes.set_ylim(min(shown) / 2, top * 3)
        axes.plot(*drawn, "o", color="#4878a8", markersize=8, zorder=2)
    else:
        axes.set_ylim(0, top * 1.18)
        axes.bar(*drawn, color="#4878a8", width=0.7, zorder=2)
    for p, rate in zip(positions, rates):
        if rate is None:
            axes.text(p, axes.get_ylim()[0], "wrong", ha="center", va="bottom", color="#c0504d",
                      rotation=90)
        else:
            axes.text(p, rate * (1.08 if logarithmic else 1.0) + (0 if logarithmic else top * 0.01),
                      rate_text(rate), ha="center", va="bottom", fontsize=8)
    axes.set_xticks(list(positions))
    axes.set_xticklabels(names, rotation=30, ha="right")
    axes.set_xlabel("variant, in ladder order")
    axes.set_ylabel("%s%s" % (unit, " (log scale)" if logarithmic else ""))
    axes.set_title("%s: %s\n%s, size %s" % (facts["lab"], facts["title"], facts["gpu"], facts["size"]),
                   fontsize=11, pad=24 if lines else 6)
    axes.grid(axis="y", color="#dddddd", zorder=0)
    if lines:  # above the plot, where no bar reaches
        axes.legend(loc="lower left", bbox_to_anchor=(0, 1.0), ncol=2, fontsize=8, frameon=False)
    figure.tight_layout()
    save(plt, figure, path)


def roofline(plt, facts, counters, path):
    copy = facts["copy_gbps"]
    peak = facts["peak_gflops"]
    points, size = counters["points"], counters["size"]
    intensities = [x for _, x, _ in points]
    figure, axes = plt.subplots(figsize=(8, 5.2))
    axes.set_xscale("log")
    axes.set_yscale("log")
    ridge = peak / copy if peak is not None else min(intensities)
    low, high = min(ridge, min(intensities)) / 10, max(ridge, max(intensities)) * 5
    top_of_slope = min(ridge, high)
    axes.plot([low, top_of_slope], [copy * low, copy * top_of_slope], color="#404040", linewidth=2,
              label="copy roof: %s GB/s x intensity" % rate_text(copy))
    if peak is not None:
        axes.plot([ridge, high], [peak, peak], color="#404040", linewidth=2, linestyle=":",
                  label=facts["peak_note"])
        axes.annotate("ridge: %.1f flop/byte" % ridge, (ridge, peak), textcoords="offset points",
                      xytext=(6, -14), ha="left", fontsize=8)
    # Neighbours in rate get labels on alternate sides, so that they do not overlap.
    for i, (name, intensity, rate) in enumerate(sorted(points, key=lambda p: p[2])):
        axes.plot([intensity], [rate], "o", color="#4878a8", zorder=3)
        axes.annotate("%s  %s" % (name, rate_text(rate)), (intensity, rate), textcoords="offset points",
                      xytext=(8 if i % 2 == 0 else -8, -3), ha="left" if i % 2 == 0 else "right",
                      fontsize=8)
    shown = [rate for _, _, rate in points]
    axes.set_ylim(min(shown + [copy * low]) / 2, max(shown + [peak or 0, copy * low]) * 3)
    axes.set_xlim(low, high)
    axes.set_xlabel("flop per byte of DRAM traffic, measured (Nsight Compute, read + write)")
    axes.set_ylabel("GFLOP/s in the profiled run (log scale)")
    title = ("%s: roofline of each variant at %s, as profiled\n%s; clocks locked at base by Nsight"
             " Compute" % (facts["lab"], size, facts["gpu"]))
    axes.set_title(title if peak is not None else title + "\n" + facts["peak_note"], fontsize=11)
    axes.grid(which="major", color="#dddddd", zorder=0)
    axes.legend(loc="upper left", fontsize=8, framealpha=0.9)
    figure.tight_layout()
    save(plt, figure, path)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sm-clock-mhz", type=float, help="SM clock for the FP32 peak, in MHz")
    parser.add_argument("--counters", nargs=2, metavar=("CSV", "SIZE"),
                        help="the lab's tools/counters.sh CSV and the size it profiled (roofline)")
    parser.add_argument("json", help="the runner's --json output")
    parser.add_argument("out_dir", help="the folder the SVG files go to")
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return 0 if e.code == 0 else 2
    if args.sm_clock_mhz is not None and not (0 < args.sm_clock_mhz < 1e5):
        print("error: --sm-clock-mhz must be a clock in MHz", file=sys.stderr)
        return 2
    if not os.path.isdir(args.out_dir):
        print("error: no folder %s" % args.out_dir, file=sys.stderr)
        return 2
    try:
        facts = load(args.json, args.sm_clock_mhz)
    except InputError as e:
        print("error: %s: %s" % (args.json, e), file=sys.stderr)
        return 2
    counters = None
    if args.counters and facts["flops"] > 0:
        path, size = args.counters
        try:
            names = [name for name, _ in facts["variants"]]
            counters = {"size": size, "points": load_counters(path, size, names)}
        except InputError as e:  # its message names the CSV or the size
            print("error: %s" % e, file=sys.stderr)
            return 2
    plt = matplotlib_pyplot()
    if plt is None:
        print("matplotlib not found for %s (on Debian: apt-get install python3-matplotlib, then run "
              "this with /usr/bin/python3): skipped" % sys.executable)
        return 77
    written = [os.path.join(args.out_dir, facts["lab"] + "-staircase.svg")]
    staircase(plt, facts, written[0])
    if counters:
        written.append(os.path.join(args.out_dir, facts["lab"] + "-roofline.svg"))
        roofline(plt, facts, counters, written[1])
    for path in written:
        print("wrote %s" % path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
