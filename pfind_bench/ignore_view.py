"""--ignore-view: the developer's view of a git work tree, timed against fd, rg and
git itself, every tool's set of paths checked against git's answer first.

For each REPO, with the repository as the working directory (as a developer types
these) and PFIND_OPTIONS removed from the environment (so a user's default view
cannot change what is timed), the commands are:

    pfind --ignore                          git's view, hidden names kept
    pfind -G                                fd's view: --ignore --no-hidden
    fd --type f                             fd's default view (files)
    fd --type f --hidden
    rg --no-config --files                  ripgrep's default view
    rg --no-config --files --hidden
    git ls-files -co --exclude-standard

(rg's --no-config, as everywhere in the harness, keeps a user's RIPGREP_CONFIG_PATH
out of it.)  Timed side by side by timing.time_in_passes, in passes of alternating
order, pooled, as every other part.

Git's answer, the reference: the regular files (lstat: links are not followed, so a
link is not a file) among `git ls-files -z -co --exclude-standard`, where an entry
git lists as a directory (a nested repository, `dir/`, or a submodule, `dir`) is
replaced by git's answer run inside it, its paths below the entry.  Files git has
in its index but that are gone from the disk are dropped by the same lstat.  Less
what `.ignore` and `.fdignore` files exclude, tracked or not (as pfind, fd and rg
leave it out; cargo's repository hides its tracked generated docs that way), by
git's own matcher: `git ls-files -z -coi --exclude-per-directory=NAME`.  The
hidden views (pfind -G, fd, rg) are compared with that set minus every path with a
component starting with '.', but for those a `!` rule of a `.gitignore`,
`.ignore` or `.fdignore` keeps (ripgrep's `.ignore` has `!/.github/`), found by git
too: with a rule file excluding `.*` of the lowest precedence
(`--exclude-from`), a hidden path git still lists for one kind of rule file is
one that kind's `!` rules keep.  Not covered, in the repository's top only and
with no precedence between the kinds: a `!` rule of `.ignore` re-including what a
`.gitignore` excludes, and whitelists in nested repositories.

Before the timing each command runs once untimed with its NUL-separator option
added (-0, --null, -z), so that no name can break the check; a leading "./" is
removed from what it printed.  A check records the counts and up to five
examples of the paths it missed and of those it printed beyond the reference
(sorted, so a tree gives the same examples each run); a pfind that differs fails
the run, a peer that differs is reported (that is the point: fd and rg do not
read git's index, so a file added with `git add -f` under an ignored directory is
missing from their answers).
"""

from __future__ import annotations

import os
import shlex
import stat
import tempfile
from dataclasses import dataclass
from typing import Callable, Iterable, Optional

from .common import log, run

# How many paths of each kind a check keeps as examples.
EXAMPLES = 5
# The views compared with git's whole answer, and with it minus hidden paths.
ALL, NOT_HIDDEN = "git", "git, no hidden"
# Removed from the environment of every command (the check's and hyperfine's).
PFIND_ENV = "PFIND_OPTIONS"


@dataclass(frozen=True)
class ViewCommand:
    """One command of the view: its label (also hyperfine's command name), the
    argv that is timed, the option that makes it end each path with NUL for the
    check, and which reference it is checked against."""

    label: str
    argv: list[str]
    null_flag: str
    reference: str

    def check_argv(self) -> list[str]:
        return self.argv + [self.null_flag]


def view_commands(pfind: str, fd: Optional[str], rg: Optional[str], git: str, pfind_extra: Iterable[str] = ()) -> list[ViewCommand]:
    """The commands timed on every repository, for the programs given (None: not
    installed).  ``pfind_extra`` (--pfind-args) goes after pfind's own switches."""
    extra = list(pfind_extra)
    cmds = [
        ViewCommand("pfind --ignore", [pfind, "--ignore", *extra], "-0", ALL),
        ViewCommand("pfind -G", [pfind, "-G", *extra], "-0", NOT_HIDDEN),
    ]
    if fd:
        cmds += [
            ViewCommand("fd --type f", [fd, "--type", "f"], "-0", NOT_HIDDEN),
            ViewCommand("fd --type f --hidden", [fd, "--type", "f", "--hidden"], "-0", ALL),
        ]
    if rg:
        cmds += [
            ViewCommand("rg --files", [rg, "--no-config", "--files"], "--null", NOT_HIDDEN),
            ViewCommand("rg --files --hidden", [rg, "--no-config", "--files", "--hidden"], "--null", ALL),
        ]
    cmds.append(ViewCommand("git ls-files -co --exclude-standard", [git, "ls-files", "-co", "--exclude-standard"], "-z", ALL))
    return cmds


def view_env(environ: Optional[dict] = None) -> dict:
    """The environment of every command: ours without PFIND_OPTIONS."""
    env = dict(os.environ if environ is None else environ)
    env.pop(PFIND_ENV, None)
    return env


# ---------------------------------------------------------------------------
# Git's answer
# ---------------------------------------------------------------------------

Lister = Callable[[bytes], bytes]  # a directory -> `git ls-files -z -co --exclude-standard` run in it


def git_lister(git: str, env: Optional[dict] = None) -> Lister:
    def listing(directory: bytes) -> bytes:
        return run([git, "-C", os.fsdecode(directory), "ls-files", "-z", "-co", "--exclude-standard"], label="git ls-files", env=env).stdout

    return listing


def git_answer(root: bytes, listing: Lister, prefix: bytes = b"") -> set[bytes]:
    """The regular files of git's answer at ``root``, as paths below it (with
    ``prefix``): links and files gone from the disk dropped, each directory entry
    (a nested repository or submodule) replaced by git's answer inside it."""
    files: set[bytes] = set()
    for entry in listing(root).split(b"\0"):
        rel = entry.rstrip(b"/")
        if not rel:
            continue
        path = os.path.join(root, rel)
        try:
            mode = os.lstat(path).st_mode
        except (FileNotFoundError, NotADirectoryError):
            continue  # in the index, not on the disk
        if stat.S_ISREG(mode):
            files.add(prefix + rel)
        elif stat.S_ISDIR(mode) and os.path.lexists(os.path.join(path, b".git")):
            files |= git_answer(path, listing, prefix + rel + b"/")
        # A submodule not checked out (an empty directory, no .git) holds no file.
    return files


# Rule files that are not git's: what they exclude is left out, tracked or not.
NON_GIT_RULE_FILES = (".ignore", ".fdignore")


def ls_files(git: str, repo: str, args: list[str], env: Optional[dict] = None) -> set[bytes]:
    """The paths `git ls-files -z ARGS` prints in ``repo``."""
    out = run([git, "-C", repo, "ls-files", "-z", *args], label="git ls-files", env=env).stdout
    return {p for p in out.split(b"\0") if p}


def hidden_by_non_git(repo: str, git: str, env: Optional[dict] = None) -> set[bytes]:
    """The files, tracked or not, that `.ignore` and `.fdignore` files exclude, by
    git's matcher reading only those files."""
    hidden: set[bytes] = set()
    for name in NON_GIT_RULE_FILES:
        hidden |= ls_files(git, repo, ["-coi", f"--exclude-per-directory={name}"], env)
    return hidden


def whitelisted_hidden(repo: str, git: str, scratch: str, env: Optional[dict] = None) -> set[bytes]:
    """Hidden paths that a `!` rule of one kind of rule file keeps: with `.*`
    excluded at the lowest precedence (``scratch`` is a directory for that file),
    those git still lists (untracked) or does not call excluded (tracked)."""
    dot_star = os.path.join(scratch, "hidden-names")
    with open(dot_star, "w") as f:
        f.write(".*\n")
    tracked_hidden = {p for p in ls_files(git, repo, ["-c"], env) if is_hidden(p)}
    kept: set[bytes] = set()
    for name in (".gitignore", *NON_GIT_RULE_FILES):
        rules = [f"--exclude-per-directory={name}", f"--exclude-from={dot_star}"]
        kept |= {p for p in ls_files(git, repo, ["-o", *rules], env) if is_hidden(p)}
        kept |= tracked_hidden - ls_files(git, repo, ["-ci", *rules], env)
    return kept


def view_references(repo: str, git: str, env: Optional[dict] = None) -> dict[str, set[bytes]]:
    """The two references of the module's comment: git's answer less what the
    non-git rule files hide (ALL), and that without hidden paths but those a `!`
    rule keeps (NOT_HIDDEN)."""
    files = git_answer(os.fsencode(repo), git_lister(git, env)) - hidden_by_non_git(repo, git, env)
    with tempfile.TemporaryDirectory() as scratch:
        kept = whitelisted_hidden(repo, git, scratch, env)
    return {ALL: files, NOT_HIDDEN: without_hidden(files) | (files & kept)}


def is_hidden(path: bytes) -> bool:
    """Whether a component of ``path`` starts with '.'."""
    return any(part.startswith(b".") for part in path.split(b"/"))


def without_hidden(paths: Iterable[bytes]) -> set[bytes]:
    return {p for p in paths if not is_hidden(p)}


# ---------------------------------------------------------------------------
# The set check
# ---------------------------------------------------------------------------


def parse_printed(output: bytes) -> list[bytes]:
    """The paths of a NUL-separated listing, a leading "./" removed."""
    return [p[2:] if p.startswith(b"./") else p for p in output.split(b"\0") if p]


def show(path: bytes) -> str:
    return path.decode(errors="backslashreplace")


def compare(printed: list[bytes], expected: set[bytes], reference: str) -> dict:
    """A tool's paths against the reference set: equal (and no path printed
    twice), or how many it missed and printed beyond it, with examples."""
    got = set(printed)
    missing, extra = sorted(expected - got), sorted(got - expected)
    duplicates = len(printed) - len(got)
    return {
        "reference": reference,
        "ok": not missing and not extra and not duplicates,
        "expected": len(expected),
        "printed": len(printed),
        "duplicates": duplicates,
        "missing": len(missing),
        "extra": len(extra),
        "missing_examples": [show(p) for p in missing[:EXAMPLES]],
        "extra_examples": [show(p) for p in extra[:EXAMPLES]],
    }


def check_command(cmd: ViewCommand, repo: str, references: dict[str, set[bytes]], env: dict) -> dict:
    """Run ``cmd`` once untimed in ``repo`` and compare its paths with its reference."""
    proc = run(cmd.check_argv(), cwd=repo, env=env, check=False)
    check = compare(parse_printed(proc.stdout), references[cmd.reference], cmd.reference)
    check["exit_code"] = proc.returncode
    if proc.returncode != 0:
        check["ok"] = False
        check["stderr"] = proc.stderr.decode(errors="replace").strip().splitlines()[-3:]
    return check


def check_text(check: Optional[dict]) -> str:
    """The set check in a few words, for the table."""
    if not check:
        return "-"
    if check["ok"]:
        return f"= {check['reference']} ({check['expected']:,})"
    parts = []
    if check.get("missing"):
        parts.append(f"missing {check['missing']:,}")
    if check.get("extra"):
        parts.append(f"extra {check['extra']:,}")
    if check.get("duplicates"):
        parts.append(f"{check['duplicates']:,} printed twice")
    if check.get("exit_code"):
        parts.append(f"exit {check['exit_code']}")
    return "≠ " + check["reference"] + ": " + ", ".join(parts)


# ---------------------------------------------------------------------------
# One repository
# ---------------------------------------------------------------------------

Timer = Callable[..., tuple[dict, list]]  # timing.time_in_passes, the repository as cwd


def ratios(results: dict[str, dict]) -> tuple[Optional[str], dict[str, float]]:
    """The fastest command by mean, and every command's mean over its."""
    means = {n: r["mean"] for n, r in results.items() if r.get("mean")}
    if not means:
        return None, {}
    fastest = min(means, key=means.get)
    return fastest, {n: m / means[fastest] for n, m in means.items()}


def work_tree_problem(repo: str, git: str) -> Optional[str]:
    """Why ``repo`` cannot be measured (not a directory, not in a git work tree),
    or None."""
    if not os.path.isdir(repo):
        return "not a directory"
    proc = run([git, "-C", repo, "rev-parse", "--is-inside-work-tree"], check=False)
    if proc.stdout.strip() != b"true":
        return "not inside a git work tree"
    return None


def run_repo(repo: str, fs: Optional[str], commands: list[ViewCommand], git: str, time_commands: Timer, env: Optional[dict] = None) -> dict:
    """Check, then time, every command on one repository."""
    env = view_env() if env is None else env
    references = view_references(repo, git, env)
    files = references[ALL]
    section = {
        "root": repo,
        "fs": fs,
        "files": len(files),
        "not_hidden": len(references[NOT_HIDDEN]),
        "commands": {c.label: shlex.join(c.argv) for c in commands},
        "checks": {},
        "results": {},
    }
    log(f"ignore view on {repo}: git's answer has {len(files):,} files ({len(references[NOT_HIDDEN]):,} without hidden names)")
    for c in commands:
        check = section["checks"][c.label] = check_command(c, repo, references, env)
        if not check["ok"]:
            examples = check["missing_examples"][:2] + check["extra_examples"][:2]
            log(f"  {c.label}: {check_text(check)}" + (f" (e.g. {', '.join(examples)})" if examples else ""))
    try:
        section["results"], orders = time_commands([(c.label, c.argv) for c in commands])
        section["passes"] = [{"order": o} for o in orders]
    except (RuntimeError, OSError, ValueError) as e:
        section["error"] = str(e)
        log(f"  timing failed: {e}")
    section["fastest"], section["ratios"] = ratios(section["results"])
    return section


def pfind_matches_git(section: Optional[dict]) -> bool:
    """False when a pfind command of an ignore-view section differed from git."""
    if not section:
        return True
    return all(check["ok"] for repo in section.get("repos", []) for label, check in repo.get("checks", {}).items() if label.startswith("pfind"))
