"""The Python side of bench/search: data generation, FAISS and hnswlib.

Run by run.sh; every subcommand prints one JSON object on stdout.

  gen      writes base.f32 (n_max x d float32, raw little-endian, row i has
           key i), queries.f32 (nq x d) and gt_<n>.i32 (nq x 10 int32, the
           exact top 10 by inner product among the first n rows) for each n
  faiss    IndexFlatIP: single-query latency over the first n rows
  hnswlib  hnswlib build, ef tuned to recall@10 >= target, single-query
           latency at that ef
  report   prints the table from the JSON results
"""
import argparse
import json
import os
import sys
import time

import numpy as np


def hwm_kib():
    """Peak resident set size of this process so far, KiB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def meta(d):
    with open(os.path.join(d, "meta.json")) as f:
        return json.load(f)


def load_base(d, n, dim):
    x = np.fromfile(os.path.join(d, "base.f32"), dtype=np.float32, count=n * dim)
    return x.reshape(n, dim)


def load_queries(d, dim, nq):
    q = np.fromfile(os.path.join(d, "queries.f32"), dtype=np.float32).reshape(-1, dim)
    return np.ascontiguousarray(q[:nq])


def load_gt(d, n):
    return np.fromfile(os.path.join(d, f"gt_{n}.i32"), dtype=np.int32).reshape(-1, 10)


def recall(ids, gt):
    hit = 0
    for a, b in zip(ids, gt):
        hit += len(set(int(x) for x in a) & set(int(x) for x in b))
    return hit / (10 * len(gt))


def lat_stats(lat):
    lat = np.asarray(lat)
    return {
        "queries": len(lat),
        "p50_ms": float(np.percentile(lat, 50) * 1e3),
        "p99_ms": float(np.percentile(lat, 99) * 1e3),
        "qps": float(len(lat) / lat.sum()),
    }


def gen(a):
    rng = np.random.default_rng(a.seed)
    d = a.dim
    centres = rng.standard_normal((a.clusters, d)).astype(np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    sd = a.noise / np.sqrt(d)

    def draw(m):
        lab = rng.integers(0, a.clusters, m)
        x = centres[lab] + (sd * rng.standard_normal((m, d))).astype(np.float32)
        x /= np.linalg.norm(x, axis=1, keepdims=True)
        return x.astype(np.float32)

    sizes = sorted(int(s) for s in a.sizes.split(","))
    nmax = sizes[-1]
    q = draw(a.queries)
    q.tofile(os.path.join(a.dir, "queries.f32"))
    # Exact top 10 per size, by chunks (ties to the smaller row).
    best_s = {n: np.full((len(q), 0), -np.inf, np.float32) for n in sizes}
    best_i = {n: np.zeros((len(q), 0), np.int64) for n in sizes}
    chunk = 100_000
    with open(os.path.join(a.dir, "base.f32"), "wb") as f:
        for lo in range(0, nmax, chunk):
            x = draw(min(chunk, nmax - lo))
            x.tofile(f)
            s = q @ x.T
            for n in sizes:
                if lo >= n:
                    continue
                ss = s[:, : n - lo]
                top = np.argpartition(-ss, 10, axis=1)[:, :10] if ss.shape[1] > 10 else np.tile(np.arange(ss.shape[1]), (len(q), 1))
                cs = np.concatenate([best_s[n], np.take_along_axis(ss, top, 1)], 1)
                ci = np.concatenate([best_i[n], top + lo], 1)
                order = np.lexsort((ci, -cs), axis=1)[:, :10]
                best_s[n] = np.take_along_axis(cs, order, 1)
                best_i[n] = np.take_along_axis(ci, order, 1)
    for n in sizes:
        best_i[n].astype(np.int32).tofile(os.path.join(a.dir, f"gt_{n}.i32"))
    with open(os.path.join(a.dir, "meta.json"), "w") as f:
        json.dump({"dim": d, "queries": len(q), "sizes": sizes, "clusters": a.clusters, "noise": a.noise, "seed": a.seed}, f)
    print(json.dumps({"generated": sizes, "dim": d, "queries": len(q)}))


def run_faiss(a):
    import faiss

    faiss.omp_set_num_threads(a.threads)
    m = meta(a.dir)
    d = m["dim"]
    x = load_base(a.dir, a.n, d)
    index = faiss.IndexFlatIP(d)
    index.add(x)
    del x
    out = {"side": "faiss", "index": "IndexFlatIP", "n": a.n, "threads": a.threads, "hwm_load_kib": hwm_kib()}
    q = load_queries(a.dir, d, a.queries)
    gt = load_gt(a.dir, a.n)[: len(q)]
    index.search(q[:5], 10)  # warm up
    lat, ids = [], []
    for i in range(len(q)):
        qi = q[i : i + 1]
        t = time.perf_counter()
        _, I = index.search(qi, 10)
        lat.append(time.perf_counter() - t)
        ids.append(I[0])
    out.update(lat_stats(lat))
    out["recall"] = recall(ids, gt)
    out["hwm_kib"] = hwm_kib()
    print(json.dumps(out))


def run_hnswlib(a):
    import hnswlib

    m = meta(a.dir)
    d = m["dim"]
    x = load_base(a.dir, a.n, d)
    out = {"side": "hnswlib", "index": "hnswlib", "n": a.n, "threads": a.threads, "M": a.m, "ef_construction": a.efc}
    p = hnswlib.Index(space="ip", dim=d)
    p.init_index(max_elements=a.n, ef_construction=a.efc, M=a.m, random_seed=100)
    t = time.perf_counter()
    p.add_items(x, np.arange(a.n), num_threads=a.threads)
    out["build_s"] = time.perf_counter() - t
    del x
    out["hwm_build_kib"] = hwm_kib()
    q = load_queries(a.dir, d, a.queries)
    gt = load_gt(a.dir, a.n)[: len(q)]
    sweep = {}
    chosen = None
    for ef in [10, 12, 16, 20, 24, 32, 40, 48, 64, 80, 96, 128, 160, 192, 256, 320, 384, 512, 768, 1024]:
        p.set_ef(ef)
        I, _ = p.knn_query(q, k=10, num_threads=a.threads)
        r = recall(I, gt)
        sweep[ef] = r
        if r >= a.target:
            chosen = ef
            break
    if chosen is None:
        chosen = ef
    p.set_ef(chosen)
    out["ef_search"] = chosen
    out["sweep"] = sweep
    lat, ids = [], []
    for rep in range(2):  # the first pass warms up; the second is timed
        lat, ids = [], []
        for i in range(len(q)):
            qi = q[i : i + 1]
            t = time.perf_counter()
            I, _ = p.knn_query(qi, k=10, num_threads=1)
            lat.append(time.perf_counter() - t)
            ids.append(I[0])
    out.update(lat_stats(lat))
    out["recall"] = recall(ids, gt)
    out["hwm_kib"] = hwm_kib()
    print(json.dumps(out))


def report(a):
    rows = []
    with open(a.results) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                rows.append(json.loads(line))
    raw = lambda r: r["n"] * r.get("dim", 512) * 4
    mib = lambda kib: kib / 1024
    print(f"threads: {a.threads} (GOMAXPROCS, OMP_NUM_THREADS, faiss.omp_set_num_threads, hnswlib num_threads for builds); "
          "queries one at a time, each single-threaded except foley Flat (parallel shards)")
    hdr = f"{'n':>8} {'index':<18} {'build_s':>8} {'ef':>5} {'recall@10':>9} {'p50_ms':>8} {'p99_ms':>8} {'QPS':>8} {'peak_RSS_MiB':>12} {'RSS/raw':>7} {'index/raw':>9}"
    print(hdr)
    print("-" * len(hdr))
    by = {}
    for r in rows:
        by[(r["n"], r["side"])] = r
        name = {"foley-flat": "foley Flat", "faiss": "FAISS IndexFlatIP", "foley-hnsw": "foley HNSW", "hnswlib": "hnswlib"}[r["side"]]
        b = f"{r['build_s']:.1f}" if "build_s" in r else "-"
        ef = str(r.get("ef_search", "-"))
        idx = f"{r['index_bytes'] / raw(r):.3f}" if "index_bytes" in r else "-"
        print(f"{r['n']:>8} {name:<18} {b:>8} {ef:>5} {r['recall']:>9.4f} {r['p50_ms']:>8.3f} {r['p99_ms']:>8.3f} {r['qps']:>8.1f} "
              f"{mib(r['hwm_kib']):>12.0f} {r['hwm_kib'] * 1024 / raw(r):>7.2f} {idx:>9}")
    print()
    for n in sorted({k[0] for k in by}):
        ff, fa, fh, hl = (by.get((n, s)) for s in ("foley-flat", "faiss", "foley-hnsw", "hnswlib"))
        print(f"n = {n}:")
        if ff and fa:
            r50, r99 = ff["p50_ms"] / fa["p50_ms"], ff["p99_ms"] / fa["p99_ms"]
            print(f"  exact latency foley/FAISS: p50 {r50:.2f}, p99 {r99:.2f} (goal <= 1.5: {'met' if r50 <= 1.5 else 'MISSED'})")
        if fh and hl:
            rq = fh["qps"] / hl["qps"]
            ok = rq >= 0.5 and fh["recall"] >= a.target and hl["recall"] >= a.target
            print(f"  HNSW QPS foley/hnswlib at recall >= {a.target}: {rq:.2f} (foley ef {fh['ef_search']} recall {fh['recall']:.4f}, "
                  f"hnswlib ef {hl['ef_search']} recall {hl['recall']:.4f}; goal >= 0.5: {'met' if ok else 'MISSED'})")
            print(f"  HNSW build time foley/hnswlib: {fh['build_s'] / hl['build_s']:.2f}")
        if fh:
            m = fh["index_bytes"] / raw(fh)
            print(f"  foley memory/raw (vectors + graph + keys, accounted): {m:.3f} (goal <= 1.3: {'met' if m <= 1.3 else 'MISSED'}); "
                  f"peak RSS/raw {fh['hwm_kib'] * 1024 / raw(fh):.3f}")


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("--dir", required=True)
    g.add_argument("--sizes", default="100000,1000000")
    g.add_argument("--dim", type=int, default=512)
    g.add_argument("--queries", type=int, default=1000)
    g.add_argument("--clusters", type=int, default=1000)
    g.add_argument("--noise", type=float, default=1.0)
    g.add_argument("--seed", type=int, default=42)
    for name in ("faiss", "hnswlib"):
        s = sub.add_parser(name)
        s.add_argument("--dir", required=True)
        s.add_argument("--n", type=int, required=True)
        s.add_argument("--threads", type=int, required=True)
        s.add_argument("--queries", type=int, default=1000)
        s.add_argument("--m", type=int, default=16)
        s.add_argument("--efc", type=int, default=200)
        s.add_argument("--target", type=float, default=0.95)
    r = sub.add_parser("report")
    r.add_argument("--results", required=True)
    r.add_argument("--threads", type=int, required=True)
    r.add_argument("--target", type=float, default=0.95)
    a = ap.parse_args()
    {"gen": gen, "faiss": run_faiss, "hnswlib": run_hnswlib, "report": report}[a.cmd](a)


if __name__ == "__main__":
    main()
