"""What tools/plot-results.py and tools/sweep-table.py share: reading the runner's --json
report with every field checked, reading a tools/counters.sh CSV, and writing files whole, an SVG
made by matplotlib among them.

Imported from the tools' own folder (Python puts a script's folder first on its path); it needs
only Python's standard library until matplotlib_pyplot() is called.
"""
import csv
import json
import math
import os
import re
import tempfile

LAB_NAME = re.compile(r"^[0-9]{2}-[a-z0-9-]+$")


class InputError(Exception):
    """An input the tools cannot use: reported, exit code 2."""


def field(obj, path, kind, where=""):
    """obj[path...], checked to be of @p kind ("rate": a number, or null for a variant that did
    not run); @p where names obj in the message."""
    value = obj
    for key in path.split("."):
        if not isinstance(value, dict) or key not in value:
            raise InputError("no field '%s%s'" % (where, path))
        value = value[key]
    kinds = {"text": (str,), "number": (int, float), "list": (list,), "bool": (bool,),
             "rate": (int, float, type(None))}[kind]
    if isinstance(value, bool) != (kind == "bool") or not isinstance(value, kinds):
        raise InputError("field '%s%s' is not a %s" % (where, path, kind))
    if kind in ("number", "rate") and value is not None and not math.isfinite(value):
        raise InputError("field '%s%s' is not finite" % (where, path))
    return value


def read_report(path):
    """The runner's --json report at @p path, parsed, with a lab name that is one; InputError
    for a file that cannot be read or parsed."""
    try:
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise InputError("cannot read %s: %s" % (path, e))
    lab = field(report, "lab", "text")
    if not LAB_NAME.match(lab):
        raise InputError("lab '%s' is not a lab name (NN-name)" % lab)
    return report


def read_counters(path, variant_names):
    """The header and the kernel rows of a tools/counters.sh CSV (a header row, a row of units,
    one row per kernel of each variant's profiled run); InputError where it is not one, or names
    none of @p variant_names."""
    try:
        with open(path, encoding="utf-8", newline="") as f:
            rows = list(csv.reader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise InputError("cannot read %s: %s" % (path, e))
    if len(rows) < 2 or "Variant" not in rows[0] or "Kernel Name" not in rows[0]:
        raise InputError("%s is not a tools/counters.sh CSV (no Variant and Kernel Name columns)"
                         % path)
    for row in rows[2:]:
        if len(row) != len(rows[0]):
            raise InputError("%s: a row of %d fields under a header of %d"
                             % (path, len(row), len(rows[0])))
    column = rows[0].index("Variant")
    if not any(row[column] in variant_names for row in rows[2:]):
        raise InputError("%s names none of the variants %s: another lab's?"
                         % (path, ", ".join(variant_names)))
    return rows[0], rows[2:]


def matplotlib_pyplot():
    """pyplot, set up for files that do not change from run to run; None without matplotlib."""
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("svg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({"svg.hashsalt": "pp-results", "svg.fonttype": "none",
                         "font.size": 10, "axes.spines.top": False, "axes.spines.right": False})
    return plt


def partial_file(path):
    """A new empty file beside @p path, for writing what then replaces it whole (publish())."""
    fd, temporary = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), prefix=".partial-",
                                     suffix=os.path.splitext(path)[1])
    os.close(fd)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(temporary, 0o666 & ~umask)  # as an ordinary new file, not mkstemp's 0600
    return temporary


def publish(pairs):
    """Renames each (temporary, path) of @p pairs onto its path; on any failure removes every
    temporary left, so that a path holds either its old file or its whole new one."""
    try:
        for temporary, path in pairs:
            os.replace(temporary, path)
    finally:
        for temporary, _ in pairs:
            if os.path.exists(temporary):
                os.unlink(temporary)


def render_svg(plt, figure, temporary):
    """Writes @p figure to @p temporary as an SVG with no date or tool in it, and closes it."""
    try:
        figure.savefig(temporary, format="svg", metadata={"Date": None, "Creator": None})
    finally:
        plt.close(figure)


def save(plt, figure, path):
    """Writes the SVG whole (a temporary file renamed), with no date or tool in it."""
    temporary = partial_file(path)
    try:
        render_svg(plt, figure, temporary)
    except BaseException:
        os.unlink(temporary)
        raise
    publish([(temporary, path)])
