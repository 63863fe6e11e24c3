#!/usr/bin/env python3
"""piglit_compare.py BUILD sample|all|LIST [-j N] [--llvmpipe-cache FILE]

Runs piglit's vertex/fragment .shader_test files (Debian's package piglit)
two ways on this machine and compares them, as issue-tracker figures want
them: through piglit's own shader_runner on Mesa's llvmpipe
(PIGLIT_PLATFORM=surfaceless_egl, `-auto -fbo`, one process per file) and
through `BUILD/agx shader-test --json`. Files:
  sample  every 52nd vs/fs file in name order (what scripts/piglit_pass_list.sh
          render measures; no geometry, tessellation or compute section)
  all     every vs/fs file (28,254 in Debian 12's piglit; hours)
  LIST    a file of paths relative to the piglit root, one per line
Prints: each side's pass/fail/skip/crash counts and wall time; of the files
llvmpipe passes, how many agx passes; how many agx passes that llvmpipe does
not; the reasons agx does not pass llvmpipe's passes, grouped. Writes both
sides' per-file verdicts as JSON lines to BUILD/piglit_compare/. With
--llvmpipe-cache FILE (an earlier run's llvmpipe.jsonl) llvmpipe's verdicts
are read from there for the files it covers instead of run again.
"""
import argparse, collections, concurrent.futures, json, os, re, subprocess, sys, time

ROOT = "/usr/lib/x86_64-linux-gnu/piglit"
RUNNER = ROOT + "/bin/shader_runner"
TIMEOUT_S = 60


def vs_fs_files():
    out = []
    for top in ("tests", "generated_tests"):
        for d, _, names in os.walk(os.path.join(ROOT, top)):
            for n in names:
                if not n.endswith(".shader_test"):
                    continue
                p = os.path.join(d, n)
                with open(p, errors="replace") as f:
                    sections = [l for l in f if l.startswith("[")]
                if any(re.match(r"\[(compute|geometry|tessellation)", s) for s in sections):
                    continue
                if any(re.match(r"\[(vertex|fragment) shader", s) for s in sections):
                    out.append(os.path.relpath(p, ROOT))
    return sorted(out, key=lambda s: s.encode())


def choose(what):
    if what == "sample":
        return [f for i, f in enumerate(vs_fs_files()) if i % 52 == 0]
    if what == "all":
        return vs_fs_files()
    with open(what) as f:
        return [l.strip() for l in f if l.strip() and not l.startswith("#")]


def llvmpipe_one(rel):
    env = dict(os.environ, PIGLIT_PLATFORM="surfaceless_egl")
    t0 = time.monotonic()
    try:
        p = subprocess.run([RUNNER, os.path.join(ROOT, rel), "-auto", "-fbo"], env=env, capture_output=True,
                           text=True, errors="replace", timeout=TIMEOUT_S)
        m = re.findall(r'PIGLIT: \{"result": "(\w+)"', p.stdout)
        result = m[-1] if m else "crash"
        detail = "" if m else f"exit status {p.returncode}"
    except subprocess.TimeoutExpired:
        result, detail = "crash", f"timeout ({TIMEOUT_S} s)"
    return {"file": rel, "result": result if result in ("pass", "fail", "skip") else "crash", "detail": detail,
            "ms": round((time.monotonic() - t0) * 1000, 3)}


def run_llvmpipe(files, jobs, cache):
    known = {}
    if cache:
        with open(cache) as f:
            for l in f:
                o = json.loads(l)
                known[o["file"]] = o
    todo = [f for f in files if f not in known]
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        for o in ex.map(llvmpipe_one, todo):
            known[o["file"]] = o
    wall = time.monotonic() - t0 if todo else sum(known[f]["ms"] for f in files) / 1000 / jobs
    return [known[f] for f in files], wall, len(todo) == 0


def run_agx(build, files, jobs, out_dir):
    lst = os.path.join(out_dir, "files.list")
    with open(lst, "w") as f:
        f.write("\n".join(files) + "\n")
    t0 = time.monotonic()
    p = subprocess.run([os.path.join(build, "agx"), "shader-test", "--list", lst, "--root", ROOT, f"-j{jobs}",
                        "--timeout", str(TIMEOUT_S), "--json"], capture_output=True, text=True, errors="replace")
    wall = time.monotonic() - t0
    res = {}
    for l in p.stdout.splitlines():
        if l.startswith("{"):
            o = json.loads(l)
            o["file"] = os.path.relpath(o["file"], ROOT)
            res[o["file"]] = o
    missing = [f for f in files if f not in res]
    if missing:
        sys.exit(f"agx shader-test gave no verdict for {len(missing)} files (first: {missing[0]}); stderr: {p.stderr[-400:]}")
    return [res[f] for f in files], wall


def reason(detail):
    d = re.sub(r"%\d+|\b\d+\b|0x[0-9a-f]+", "N", detail.splitlines()[0] if detail else "")
    return d[:110]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("files", help="sample, all or a list file")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--llvmpipe-cache")
    a = ap.parse_args()
    if not os.access(RUNNER, os.X_OK):
        sys.exit(f"{RUNNER} not found (Debian package piglit)")
    files = choose(a.files)
    if not files:
        sys.exit("no files")
    out_dir = os.path.join(a.build, "piglit_compare")
    os.makedirs(out_dir, exist_ok=True)
    ref, ref_wall, cached = run_llvmpipe(files, a.j, a.llvmpipe_cache)
    ours, our_wall = run_agx(a.build, files, a.j, out_dir)
    for name, rows in (("llvmpipe.jsonl", ref), ("agx.jsonl", ours)):
        with open(os.path.join(out_dir, name), "w") as f:
            f.writelines(json.dumps(r, sort_keys=True) + "\n" for r in rows)
    count = lambda rows: collections.Counter(r["result"] for r in rows)
    cr, co = count(ref), count(ours)
    fmt = lambda c: f"{c['pass']} pass, {c['fail']} fail, {c['skip']} skip, {c['crash']} crash"
    print(f"{len(files)} vertex/fragment files ({a.files}), {a.j} at a time")
    print(f"  llvmpipe shader_runner: {fmt(cr)}; {ref_wall:.1f} s wall" + (" (from the cache: its child time / jobs)" if cached else ""))
    print(f"  agx shader-test:        {fmt(co)}; {our_wall:.1f} s wall")
    both = [(r, o) for r, o in zip(ref, ours) if r["result"] == "pass"]
    ok = sum(o["result"] == "pass" for _, o in both)
    more = sum(o["result"] == "pass" and r["result"] != "pass" for r, o in zip(ref, ours))
    print(f"  of llvmpipe's {len(both)} passes agx passes {ok}; agx passes {more} that llvmpipe does not")
    kinds = collections.Counter((o["result"], reason(o["detail"])) for _, o in both if o["result"] != "pass")
    if kinds:
        print("  agx on llvmpipe's passes, what is not a pass:")
        for (res, why), n in kinds.most_common(25):
            print(f"    {n:6}  {res.upper():5}  {why}")
    print(f"  per-file verdicts: {out_dir}/llvmpipe.jsonl, {out_dir}/agx.jsonl")


if __name__ == "__main__":
    main()
