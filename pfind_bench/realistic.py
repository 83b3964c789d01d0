"""--make-realistic SRC DEST: a clone of a git repository made to look like a
developer's working copy, for --ignore-view.

A fresh clone holds only what git tracks, so every tool's view of it is the same
walk.  A working copy is mostly what git ignores: build output, installed
packages, virtual environments, bytecode, plus untracked work not yet added.  This
module clones SRC (`git clone --quiet --no-hardlinks`, a path; no network) into
DEST and adds, deterministically (a fixed seed: one SRC commit and scale give the
same tree every time):

- target/: cargo's build output, debug and release: deps/, build/*/out/,
  incremental/*/s-*/ object files, the hidden .fingerprint/ directories;
- node_modules/: many small packages (scoped ones too), some with node_modules of
  their own, .bin/ links and the hidden .package-lock.json;
- .venv/: bin/ (python a link), pyvenv.cfg and lib/python3.11/site-packages with
  packages, their __pycache__/ and *.dist-info;
- scratch/: untracked work that git does list: small projects of sources, data
  and notes, some hidden names (.env, .notes/), *.log files that a rule ignores
  and an important.log that a `!` rule keeps, __pycache__/ beside its .py files
  (and beside the clone's own .py files);
- rules for all of these appended to the root .gitignore;
- one file under node_modules/ added with `git add -f`: tracked though ignored,
  which git lists and fd and rg, not reading the index, do not.

``scale`` multiplies the number of crates, packages, site-packages and scratch
projects (the size of each stays), so 1.0 turns a small repository into about
100,000 files of which git lists about a quarter.  What was made is recorded in
DEST/.git/pfind-realistic.json, written last: a DEST that has it with the same
source commit, scale and generator is reused, any other existing DEST refused.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

from .common import log, run
from .ignore_view import git_answer, git_lister

# Bump when the generated layout changes, so an older tree is not reused.
GENERATOR_VERSION = 1
SEED = 0x26  # issue 26
MARKER = "pfind-realistic.json"  # in DEST/.git, where no tool lists it

# Per unit of scale: crates built, npm packages, Python packages, scratch projects.
CRATES = 300
PACKAGES = 500
SITE_PACKAGES = 60
PROJECTS = 40

RULES = """
# Added by benchmark.py --make-realistic (pfind_bench/realistic.py)
/target/
node_modules/
.venv/
__pycache__/
*.pyc
*.log
!important.log
"""


class RealisticError(Exception):
    pass


class Writer:
    """Makes files and directories below a root, counting the files, each file
    holding a short line of its own path (content is never read by a listing)."""

    def __init__(self, root: Path):
        self.root = root
        self.files = 0
        self._made: set[Path] = set()

    def file(self, rel: str) -> None:
        path = self.root / rel
        parent = path.parent
        if parent not in self._made:
            parent.mkdir(parents=True, exist_ok=True)
            self._made.add(parent)
        path.write_bytes(rel.encode() + b"\n")
        self.files += 1

    def link(self, rel: str, target: str) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, path)


def scaled(n: int, scale: float) -> int:
    return max(1, round(n * scale))


def word(rng: random.Random, syllables: tuple[int, int] = (2, 3)) -> str:
    parts = ("ba", "co", "de", "fi", "gu", "ha", "ji", "ko", "lu", "me", "no", "pa", "qui", "ro", "su", "ta", "vo", "wi", "xe", "yo", "za")
    return "".join(rng.choice(parts) for _ in range(rng.randint(*syllables)))


def names(rng: random.Random, count: int, syllables: tuple[int, int] = (2, 3)) -> list[str]:
    """``count`` distinct made-up names, in the order drawn."""
    seen: dict[str, None] = {}
    while len(seen) < count:
        seen.setdefault(word(rng, syllables) + ("" if len(seen) < 400 else str(len(seen))))
    return list(seen)


def hexid(rng: random.Random, digits: int = 16) -> str:
    return f"{rng.getrandbits(digits * 4):0{digits}x}"


def make_target(w: Writer, rng: random.Random, scale: float) -> None:
    """cargo's target/: every crate in debug (with incremental state) and release."""
    w.file("target/CACHEDIR.TAG")
    w.file("target/.rustc_info.json")
    for profile, incremental in (("debug", True), ("release", False)):
        for crate in names(rng, scaled(CRATES, scale)):
            h = hexid(rng)
            for name in (f"lib{crate}-{h}.rlib", f"lib{crate}-{h}.rmeta", f"{crate}-{h}.d"):
                w.file(f"target/{profile}/deps/{name}")
            for name in (f"dep-lib-{crate}", f"lib-{crate}", f"lib-{crate}.json", "invoked.timestamp"):
                w.file(f"target/{profile}/.fingerprint/{crate}-{h}/{name}")
            if rng.random() < 0.3:
                b = hexid(rng)
                for name in ("build-script-build", f"build_script_build-{b}", f"build_script_build-{b}.d"):
                    w.file(f"target/{profile}/build/{crate}-{b}/{name}")
                run_dir = f"target/{profile}/build/{crate}-{hexid(rng)}"
                for name in ("output", "root-output", "stderr", "invoked.timestamp"):
                    w.file(f"{run_dir}/{name}")
                for i in range(rng.randint(1, 6)):
                    w.file(f"target/{profile}/build/{crate}-{b}/out/gen_{i}.rs")
            if incremental:
                session = f"target/{profile}/incremental/{crate}-{hexid(rng, 13)}/s-{hexid(rng, 10)}-{hexid(rng, 6)}-{hexid(rng, 20)}"
                for name in ("dep-graph.bin", "query-cache.bin", "work-products.bin"):
                    w.file(f"{session}/{name}")
                for _ in range(rng.randint(30, 190)):
                    w.file(f"{session}/{hexid(rng, 24)}.o")
        w.file(f"target/{profile}/.cargo-lock")


def make_package(w: Writer, rng: random.Random, base: str, depth: int) -> None:
    """One npm package at ``base``, maybe with packages of its own below it."""
    for name in ("package.json", "README.md", "LICENSE", "index.js"):
        w.file(f"{base}/{name}")
    for i in range(rng.randint(3, 36)):
        w.file(f"{base}/lib/{word(rng)}_{i}.js")
    if rng.random() < 0.5:
        for i in range(rng.randint(1, 4)):
            stem = f"{base}/dist/{word(rng)}_{i}"
            for ext in (".js", ".min.js", ".js.map", ".d.ts"):
                w.file(stem + ext)
    if depth < 2 and rng.random() < 0.2:
        for sub in names(rng, rng.randint(1, 4)):
            make_package(w, rng, f"{base}/node_modules/{sub}", depth + 1)


def make_node_modules(w: Writer, rng: random.Random, scale: float) -> str:
    """node_modules/ at the root; returns the file to add with `git add -f`."""
    packages = names(rng, scaled(PACKAGES, scale))
    scopes = names(rng, 8, (1, 2))
    homes = []
    for i, name in enumerate(packages):
        home = f"node_modules/@{scopes[i % len(scopes)]}/{name}" if i % 6 == 5 else f"node_modules/{name}"
        make_package(w, rng, home, 0)
        homes.append(home)
        if i % 10 == 0:
            w.link(f"node_modules/.bin/{name}", f"../{home.split('/', 1)[1]}/index.js")
    w.file("node_modules/.package-lock.json")
    return f"{homes[0]}/index.js"


def make_venv(w: Writer, rng: random.Random, scale: float) -> None:
    """.venv/ as `python3 -m venv` leaves it after a few `pip install`s."""
    w.file(".venv/pyvenv.cfg")
    w.file(".venv/.gitignore")
    for name in ("activate", "activate.csh", "activate.fish", "pip", "pip3"):
        w.file(f".venv/bin/{name}")
    w.link(".venv/bin/python", "/usr/bin/python3")
    w.link(".venv/bin/python3", "python")
    site = ".venv/lib/python3.11/site-packages"
    for pkg in names(rng, scaled(SITE_PACKAGES, scale)):
        modules = [f"{pkg}/__init__.py"]
        subpackages = [f"{pkg}/{s}" for s in names(rng, rng.randint(0, 5))]
        modules += [f"{s}/__init__.py" for s in subpackages]
        for _ in range(rng.randint(8, 90)):
            modules.append(f"{rng.choice([pkg] + subpackages)}/{word(rng)}_{len(modules)}.py")
        for m in modules:
            w.file(f"{site}/{m}")
            d, stem = m.rsplit("/", 1)
            w.file(f"{site}/{d}/__pycache__/{stem[:-3]}.cpython-311.pyc")
        info = f"{site}/{pkg}-{rng.randint(0, 9)}.{rng.randint(0, 30)}.dist-info"
        for name in ("METADATA", "RECORD", "WHEEL", "INSTALLER", "top_level.txt"):
            w.file(f"{info}/{name}")


def make_scratch(w: Writer, rng: random.Random, scale: float) -> None:
    """scratch/: untracked projects git lists, with a few names it does not."""
    exts = ("rs", "py", "json", "md", "txt", "csv", "js", "toml")
    weights = (25, 20, 15, 10, 10, 8, 8, 4)
    for project in names(rng, scaled(PROJECTS, scale)):
        base = f"scratch/{project}"
        w.file(f"{base}/.env")
        w.file(f"{base}/important.log")
        dirs = [base]
        for top in names(rng, rng.randint(3, 7)):
            dirs.append(f"{base}/{top}")
            dirs += [f"{base}/{top}/{sub}" for sub in names(rng, rng.randint(0, 5))]
        for d in dirs:
            py = []
            for i in range(rng.randint(5, 60)):
                stem, ext = f"{word(rng)}_{i}", rng.choices(exts, weights)[0]
                w.file(f"{d}/{stem}.{ext}")
                if ext == "py":
                    py.append(stem)
            for stem in py:
                w.file(f"{d}/__pycache__/{stem}.cpython-311.pyc")
            if rng.random() < 0.15:
                w.file(f"{d}/run_{rng.randint(0, 99)}.log")
    for i in range(scaled(20, scale)):
        w.file(f"scratch/.notes/{word(rng)}_{i}.md")


def pycache_beside_sources(w: Writer, root: Path) -> None:
    """__pycache__/*.pyc beside each of the clone's own .py files, as running its
    scripts leaves them."""
    for d, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(x for x in dirnames if x != ".git")
        rel = os.path.relpath(d, root)
        for f in sorted(filenames):
            if f.endswith(".py"):
                w.file(os.path.normpath(f"{rel}/__pycache__/{f[:-3]}.cpython-311.pyc"))


def count_files(root: Path) -> int:
    """Regular files below ``root``, .git left out."""
    n = 0
    for d, dirnames, filenames in os.walk(root):
        dirnames[:] = [x for x in dirnames if x != ".git"]
        n += sum(1 for f in filenames if os.path.isfile(os.path.join(d, f)) and not os.path.islink(os.path.join(d, f)))
    return n


def make_realistic(src: str, dest: str, scale: float, git: str) -> dict:
    """Clone ``src`` into ``dest`` and fill it in; returns the record (also
    written to DEST/.git/pfind-realistic.json).  Raises RealisticError when DEST
    exists and is not this tree, RuntimeError when git fails."""
    dest_path = Path(dest)
    commit = run([git, "-C", src, "rev-parse", "HEAD"], label="git rev-parse").stdout.decode().strip()
    wanted = {"generator": GENERATOR_VERSION, "seed": SEED, "scale": scale, "source_commit": commit}
    if dest_path.exists() or dest_path.is_symlink():
        try:
            old = json.loads((dest_path / ".git" / MARKER).read_text())
        except (OSError, ValueError):
            raise RealisticError(f"{dest} exists and was not made by --make-realistic; remove it or choose another DEST") from None
        if {k: old.get(k) for k in wanted} != wanted:
            raise RealisticError(f"{dest} was made from another commit or scale ({old.get('source_commit', '?')[:12]}, scale {old.get('scale')}); remove it first")
        log(f"{dest}: already made (scale {scale}, {old.get('files', '?'):,} files); reused")
        return old
    log(f"cloning {src} into {dest}")
    run([git, "clone", "--quiet", "--no-hardlinks", src, dest], label="git clone")
    rng = random.Random(SEED)
    w = Writer(dest_path)
    pycache_beside_sources(w, dest_path)  # first: only the clone's own files are there
    made = {"__pycache__ beside the clone's .py files": w.files}

    def part(name: str, make):
        before = w.files
        result = make(w, rng, scale)
        made[name] = w.files - before
        log(f"  {name}: {made[name]:,} files")
        return result

    part("target/", make_target)
    forced = part("node_modules/", make_node_modules)
    part(".venv/", make_venv)
    part("scratch/", make_scratch)
    with open(dest_path / ".gitignore", "a") as f:
        f.write(RULES)
    run([git, "-C", dest, "add", "-f", "--", forced], label="git add -f")
    files = count_files(dest_path)
    listed = len(git_answer(os.fsencode(dest), git_lister(git)))
    record = {**wanted, "source": os.path.abspath(src), "files": files, "listed_by_git": listed, "made": made, "force_added": forced, "rules": RULES.strip().splitlines()}
    (dest_path / ".git" / MARKER).write_text(json.dumps(record, indent=2) + "\n")
    log(f"{dest}: {files:,} files, {listed:,} of them in git's answer ({listed / files:.0%}); {forced} added with git add -f")
    return record
