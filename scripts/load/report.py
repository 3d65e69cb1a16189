#!/usr/bin/env python3
"""Writes LOAD.md from what scripts/load.sh collected in its work folder."""
import argparse
import json
import pathlib

# Where the section of `scripts/load.sh --spool` starts in LOAD.md.
SPOOL_MARK = "<!-- scripts/load.sh --spool -->"


def kv(path):
    out = {}
    for line in pathlib.Path(path).read_text().splitlines():
        if line.strip():
            key, _, value = line.partition(" ")
            out[key] = value.strip()
    return out


def rss_series(path):
    """{(replica, pid): [(second, kB), ...]}"""
    series = {}
    p = pathlib.Path(path)
    if not p.exists():
        return series
    for line in p.read_text().splitlines():
        t, replica, pid, rss = line.split()
        series.setdefault((replica, pid), []).append((int(t), int(rss)))
    return series


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--invocation", required=True)
    ap.add_argument("--load-start", required=True)
    ap.add_argument("--load-end", required=True)
    ap.add_argument("--cores", required=True)
    a = ap.parse_args()
    work = pathlib.Path(a.work)
    report = json.loads((work / "report.json").read_text())
    checks = kv(work / "checks.txt")
    n = lambda key: int(checks.get(key, "0") or 0)
    statuses = [line.split("|") for line in (work / "statuses.txt").read_text().split("\n") if line]
    crosstab = [line.split("|") for line in (work / "crosstab.txt").read_text().split("\n") if line]
    ready = (work / "ready.txt").read_text().split("\n")
    o = report["outcomes"]
    acked = n("acked_calls")
    failed = n("failed_calls")
    rows = n("audit_rows")
    invariant = (
        n("acked_without_one_row") == 0
        and n("rows_for_unknown_calls") == 0
        and n("duplicate_request_ids") == 0
    )
    lines = []
    w = lines.append
    w("# Load and faults")
    w("")
    w(f"Written by `{a.invocation}`; run it again to reproduce (see the README).")
    w("")
    w(f"Machine: {a.cores} cores, shared; load average {a.load_start} at the start of the run and "
      f"{a.load_end} at its end. Everything on loopback: two replicas of `synaplan-mcp` (release "
      "build, features `postgres,redis`) behind nginx (round robin for stateless requests, session "
      "ids routed by their replica prefix), audit to PostgreSQL with `--audit-fsync always` and a "
      "spool per replica, per-key rate limits shared through Redis (`--rate-limit-redis-unavailable "
      "open`), API keys, and the stand-in upstream of `mcpgen-load upstream`.")
    w("")
    w(f"Clients: {report['clients']} ({report['session_clients']} in the session era, the rest "
      f"stateless 2026-07-28), {report['calls_per_client']:,} `tools/call`s each: "
      f"**{report['calls']:,} calls** in {report['seconds']:.0f} s "
      f"({report['calls_per_second']:,.0f} calls/s). One key in ten is limited to 20 calls/s: "
      "its clients meet the intended rate limit.")
    w("")
    w("## Calls")
    w("")
    w("| outcome, as the client saw it | calls |")
    w("|---|---:|")
    w(f"| ok | {o['ok']:,} |")
    w(f"| rate limited (intended) | {o['rate_limited']:,} |")
    w(f"| tool error (the upstream faults below) | {o['tool_error']:,} |")
    w(f"| JSON-RPC error | {o['rpc_error']:,} |")
    w(f"| failed: no answer | {o['failed']:,} |")
    w("")
    if report.get("failures"):
        w("Calls without an answer, by cause: " + ", ".join(
            f"{k} {v:,}" for k, v in sorted(report["failures"].items())) + ".")
        w("")
    w(f"Latency of answered calls: **p50 {report['p50_us'] / 1000:.1f} ms, "
      f"p99 {report['p99_us'] / 1000:.1f} ms** (client side, through nginx, with the faults).")
    w("")
    w("## Audit invariant")
    w("")
    w("| check | value |")
    w("|---|---:|")
    w(f"| calls answered (acknowledged) | {acked:,} |")
    w(f"| calls failed (no answer) | {failed:,} |")
    w(f"| audit rows | {rows:,} |")
    w(f"| answered calls without exactly one row | {n('acked_without_one_row'):,} |")
    w(f"| rows for no call the clients made | {n('rows_for_unknown_calls'):,} |")
    w(f"| request ids with more than one row | {n('duplicate_request_ids'):,} |")
    w(f"| failed calls that have a row (reached a replica before it answered) | {n('failed_with_row'):,} |")
    w(f"| requests the upstream served | {int(checks.get('upstream_requests', '0') or 0):,} |")
    w("")
    w("Invariant (every answered call has exactly one row; every row is a call a client made; "
      f"no duplicates): **{'holds' if invariant else 'BROKEN'}**. Rows = answered + failed "
      f"calls with a row: {acked + n('failed_with_row'):,} vs {rows:,}.")
    w("")
    w("Outcome as seen by the client against the audit status of its row:")
    w("")
    w("| client outcome -> audit status | calls |")
    w("|---|---:|")
    for key, value in crosstab:
        w(f"| {key} | {int(value):,} |")
    w("")
    w("## Faults")
    w("")
    w("Each fault ran in the background at the given share of the run; its window is from its "
      "start to 5 s after it ended. Counts are the calls that ended in the window; the last column "
      "counts the calls after it, up to 30 s and until the next fault starts, which show whether the servers recovered by themselves. The "
      "upstream's circuit breaker opens after 5 failed requests and probes again after 2 s "
      "(`--upstream-breaker-cooldown 2`; the default is 30 s), so calls fail fast while the "
      "upstream is down.")
    w("")
    w("| fault | start | end | ok | rate limited | tool error | JSON-RPC error | failed | "
      "after: seconds, ok / tool error / failed |")
    w("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for f in report["faults"]:
        c = f["window"]
        d = f["after"]
        w(f"| {f['name']} | {f['start_s']:.0f} s | {f['end_s']:.0f} s | {c['ok']:,} | "
          f"{c['rate_limited']:,} | {c['tool_error']:,} | {c['rpc_error']:,} | {c['failed']:,} | "
          f"{f['after_s']} s: {d['ok']:,} / {d['tool_error']:,} / {d['failed']:,} |")
    w("")
    w("Replicas after the run: " + ", ".join(r for r in ready if r) + " (`/readyz`).")
    w("")
    w("## Memory")
    w("")
    w("RSS of each replica process, sampled every 2 s. *Before* is its first sample (idle, before "
      "the run for the first processes; just after the restart for the restarted one); *middle* "
      "and *after* are the samples at the middle and end of its life in the run.")
    w("")
    w("| replica (pid) | before | middle | after | growth | still rising over the last half? |")
    w("|---|---:|---:|---:|---:|---|")
    for (replica, pid), samples in sorted(rss_series(work / "rss.txt").items()):
        before = samples[0][1]
        middle = samples[len(samples) // 2][1]
        after = samples[-1][1]
        half = samples[len(samples) // 2:]
        peak_third_quarter = max(s[1] for s in half[: max(1, len(half) // 2)])
        rising = after > peak_third_quarter + 2048
        w(f"| {replica} ({pid}) | {before / 1024:.1f} MB | {middle / 1024:.1f} MB | "
          f"{after / 1024:.1f} MB | {(after - before) / 1024:+.1f} MB | "
          f"{'yes' if rising else 'no'} |")
    w("")
    w("Audit statuses in PostgreSQL:")
    w("")
    w("| status | rows |")
    w("|---|---:|")
    for status, count in statuses:
        w(f"| {status} | {int(count):,} |")
    # The section `scripts/load.sh --spool` writes is kept as it is.
    out = pathlib.Path(a.out)
    kept = ""
    if out.exists():
        previous = out.read_text()
        at = previous.find(SPOOL_MARK)
        if at >= 0:
            kept = "\n" + previous[at:]
    out.write_text("\n".join(lines) + "\n" + kept)


if __name__ == "__main__":
    main()
