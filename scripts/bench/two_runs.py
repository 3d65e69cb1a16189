#!/usr/bin/env python3
"""Two runs of scripts/bench.sh side by side, and the targets judged on the worse of the two.

    scripts/bench.sh --results run1.txt ...   (one run; later another with --results run2.txt)
    python3 scripts/bench/two_runs.py run1.txt run2.txt >> BENCHMARKS.md

Prints Markdown: every load figure of both runs (median, lowest–highest run in brackets), how
far apart the two medians are (marked when more than 15%), and each target judged on the lower
of the two runs' medians (for a ratio or a share, the lower of the two runs' ratios; for added
latency, the higher).
"""

import sys

FIELDS = ("rps", "p50", "p99")
APART = 0.15  # two medians further apart than this are marked
CPU_FIELDS = ("user", "system", "voluntary", "involuntary", "nginx", "idle")
DEPLOYED = (
    ("dep_bare", "bare"),
    ("log_info", "the default log"),
    ("auth_batch", "API key + audit (batch) + metrics"),
    ("auth_always", "API key + audit (always) + metrics"),
)


def read(path):
    """name -> {rps, p50, p99, rps_min, ...} (the `cpu NAME ...` lines under "cpu", as
    name -> {user, system, ...}); and the header comments."""
    figures, notes = {"cpu": {}}, []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                notes.append(line[1:].strip())
                continue
            parts = line.split()
            if len(parts) == 2 + len(CPU_FIELDS) and parts[0] == "cpu":
                figures["cpu"][parts[1]] = dict(zip(CPU_FIELDS, map(float, parts[2:])))
                continue
            if len(parts) < 11:
                continue
            values = [float(v) for v in parts[1:10]]
            figure = dict(zip(FIELDS, values[:3]))
            for i, field in enumerate(FIELDS):
                figure[field + "_min"] = values[3 + 2 * i]
                figure[field + "_max"] = values[4 + 2 * i]
            figure["runs"] = int(parts[10])
            figures[parts[0]] = figure
    return figures, notes


def cell(figure, field):
    if figure is None:
        return "—"
    return "%.0f (%.0f–%.0f)" % (figure[field], figure[field + "_min"], figure[field + "_max"])


LABELS = [
    ("mcp_call_c1", "stateless tools/call, c=1"),
    ("mcp_call_c8", "stateless tools/call, c=8"),
    ("mcp_call_c32", "stateless tools/call, c=32"),
    ("mcp_call_c128", "stateless tools/call, c=128"),
    ("direct_c1", "direct nginx, c=1"),
    ("direct_c8", "direct nginx, c=8"),
    ("direct_c32", "direct nginx, c=32"),
    ("direct_c128", "direct nginx, c=128"),
    ("dep_bare", "bare, alternated with the deployed path, c=8"),
    ("log_info", "default log (audit line at INFO), c=8"),
    ("auth_batch", "API key + audit (batch) + metrics, c=8"),
    ("auth_always", "API key + audit (always) + metrics, c=8"),
    ("fastmcp_c8", "FastMCP, c=8"),
    ("fastmcp_c32", "FastMCP, c=32"),
    ("rmcp_openapi_c8", "rmcp-openapi-server, c=8"),
    ("rmcp_openapi_c32", "rmcp-openapi-server, c=32"),
    ("cmp0_c8", "first --compare build, c=8"),
    ("cmp1_c8", "second --compare build, c=8"),
    ("cmp_this_c8", "this build beside the --compare builds, c=8"),
    ("cmp0_c32", "first --compare build, c=32"),
    ("cmp1_c32", "second --compare build, c=32"),
    ("cmp_this_c32", "this build beside the --compare builds, c=32"),
]


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: two_runs.py RUN1-RESULTS RUN2-RESULTS")
    (one, notes1), (two, notes2) = read(sys.argv[1]), read(sys.argv[2])
    out = print
    out("| Figure | run 1 | run 2 | run 2 / run 1 | lower median |")
    out("|---|---|---|---|---|")
    apart = []
    rows = [(n, l, "rps", "req/s") for n, l in LABELS]
    rows += [("mcp_call_c1", "stateless tools/call, c=1", "p50", "p50 µs"),
             ("direct_c1", "direct nginx, c=1", "p50", "p50 µs")]
    for name, label, field, unit in rows:
        a, b = one.get(name), two.get(name)
        if a is None and b is None:
            continue
        if a is not None and b is not None:
            change = b[field] / a[field]
            lower = min(a[field], b[field])
            mark = ""
            if abs(change - 1) > APART:
                mark = " **(> 15%)**"
                apart.append("%s %s" % (label, unit))
            out("| %s, %s | %s | %s | %.2f×%s | %.0f |" % (
                label, unit, cell(a, field), cell(b, field), change, mark, lower))
        else:
            out("| %s, %s | %s | %s | | |" % (label, unit, cell(a, field), cell(b, field)))
    out("")
    if apart:
        out("Figures whose two medians differ by more than 15%: " + "; ".join(apart) + ".")
        out("")

    def both(fn):
        """fn(run) for each run that has what it needs."""
        values = []
        for run in (one, two):
            try:
                values.append(fn(run))
            except (KeyError, ZeroDivisionError):
                pass
        return values

    def rps(run, name):
        return run[name]["rps"]

    def best_peer(run, c):
        return max(rps(run, "fastmcp_c%d" % c), rps(run, "rmcp_openapi_c%d" % c))

    targets = [
        ("c=8, bare ≥ 0.25× direct", lambda r: rps(r, "mcp_call_c8") / rps(r, "direct_c8"),
         "%.3f×", min, lambda v: v >= 0.25),
        ("c=32 no lower than c=8", lambda r: rps(r, "mcp_call_c32") / rps(r, "mcp_call_c8"),
         "%.3f× c=8", min, lambda v: v >= 1.0),
        ("c=1 added p50 ≤ 90 µs", lambda r: r["mcp_call_c1"]["p50"] - r["direct_c1"]["p50"],
         "+%.0f µs", max, lambda v: v <= 90),
        ("key + audit (batch) + metrics ≥ 85% of bare at c=8",
         lambda r: rps(r, "auth_batch") / rps(r, "dep_bare"), "%.1f%%", min, lambda v: v >= 0.85),
        ("the default log ≥ 90% of bare at c=8",
         lambda r: rps(r, "log_info") / rps(r, "dep_bare"), "%.1f%%", min, lambda v: v >= 0.90),
        ("key + audit (always) + metrics ≥ 60% of bare at c=8",
         lambda r: rps(r, "auth_always") / rps(r, "dep_bare"), "%.1f%%", min, lambda v: v >= 0.60),
        ("≥ 2× the best peer at c=8", lambda r: rps(r, "mcp_call_c8") / best_peer(r, 8),
         "%.2f×", min, lambda v: v >= 2.0),
        ("≥ 2× the best peer at c=32", lambda r: rps(r, "mcp_call_c32") / best_peer(r, 32),
         "%.2f×", min, lambda v: v >= 2.0),
    ]
    cpu_table(one["cpu"], two["cpu"], out)
    out("| Target | run 1 | run 2 | judged on | |")
    out("|---|---|---|---|---|")
    for label, fn, fmt, worse, ok in targets:
        values = both(fn)
        if not values:
            out("| %s | not measured | not measured | | — |" % label)
            continue
        scale = 100 if fmt.endswith("%%") else 1
        shown = [fmt % (v * scale) for v in values] + ["not measured"] * (2 - len(values))
        judged = worse(values)
        out("| %s | %s | %s | %s | %s |" % (
            label, shown[0], shown[1], fmt % (judged * scale), "met" if ok(judged) else "missed"))
    out("")
    for i, notes in ((1, notes1), (2, notes2)):
        out("Run %d: %s" % (i, "; ".join(n for n in notes if not n.startswith("name "))))
        out("")


def cpu_table(one, two, out):
    """Where the CPU went in each run (scripts/bench/cpu_profile.sh), per concurrency."""
    rows = []
    for c in (1, 8, 32, 128):
        for run, cpu in ((1, one), (2, two)):
            m, d = cpu.get("mcp_call_c%d" % c), cpu.get("direct_c%d" % c)
            if m is None or d is None:
                continue
            rows.append("| %d | %d | %.1f + %.1f = %.1f | %.2f / %.2f | %.1f / %.1f | %.0f%% / %.0f%% |" % (
                c, run, m["user"], m["system"], m["user"] + m["system"], m["voluntary"],
                m["involuntary"], m["nginx"], d["nginx"], m["idle"], d["idle"]))
    if not rows:
        return
    out("Where the CPU goes (medians of each run's wrk runs, read from /proc):")
    out("")
    out("| Connections | run | server CPU per call, user + system µs | server context switches "
        "per call, voluntary / involuntary | nginx CPU per request µs (through the server / "
        "direct) | idle share of the machine (through the server / direct) |")
    out("|---|---|---|---|---|---|")
    for row in rows:
        out(row)
    out("")
    servers = []
    for name, label in DEPLOYED:
        for run, cpu in ((1, one), (2, two)):
            m = cpu.get(name)
            if m is not None:
                servers.append("| %s | %d | %.1f + %.1f = %.1f | %.2f / %.2f | %.0f%% |" % (
                    label, run, m["user"], m["system"], m["user"] + m["system"],
                    m["voluntary"], m["involuntary"], m["idle"]))
    if servers:
        out("| Server (c=8) | run | CPU per call, user + system µs | context switches per call, "
            "voluntary / involuntary | idle share of the machine |")
        out("|---|---|---|---|---|")
        for row in servers:
            out(row)
        out("")


if __name__ == "__main__":
    main()
