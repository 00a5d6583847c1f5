#!/usr/bin/env python3
"""What a Docker build of this repository would see, without a Docker engine.

stage FOLDER: copies the build stage's COPY sources into FOLDER, leaving out what .dockerignore
  excludes, and prints the build stage's `swift build` commands, one per line.
toolchain CHECKOUTS: fails unless the build stage's Swift image is at least as new as every
  resolved dependency's swift-tools-version (read from CHECKOUTS/*/Package.swift).
"""
import fnmatch, os, re, shutil, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build_stage():
    lines, stage = [], 0
    text = open(os.path.join(ROOT, "Dockerfile")).read().replace("\\\n", " ")
    for line in text.splitlines():
        line = line.strip()
        if line.upper().startswith("FROM "):
            stage += 1
        if stage == 1 and line and not line.startswith("#"):
            lines.append(line)
    return lines


def ignored(path, patterns):
    excluded = False
    for pattern in patterns:
        negate = pattern.startswith("!")
        pattern = pattern.lstrip("!").strip("/")
        parts = path.split("/")
        hit = any(fnmatch.fnmatch("/".join(parts[:i]), pattern) for i in range(1, len(parts) + 1))
        if hit:
            excluded = not negate
    return excluded


def stage(folder):
    patterns = [l.strip() for l in open(os.path.join(ROOT, ".dockerignore")) if l.strip() and not l.startswith("#")]
    commands = []
    for line in build_stage():
        words = line.split()
        if words[0].upper() == "COPY" and not any(w.startswith("--from") for w in words):
            for source in words[1:-1]:
                base = os.path.join(ROOT, source)
                if not os.path.exists(base):
                    sys.exit(f"Dockerfile: COPY {source}: no such file in the build context")
                for dirpath, dirs, files in os.walk(base) if os.path.isdir(base) else [(os.path.dirname(base), [], [os.path.basename(base)])]:
                    for name in files:
                        full = os.path.join(dirpath, name)
                        relative = os.path.relpath(full, ROOT)
                        if ignored(relative, patterns):
                            continue
                        target = os.path.join(folder, relative)
                        os.makedirs(os.path.dirname(target), exist_ok=True)
                        shutil.copy2(full, target)
        elif words[0].upper() == "RUN":
            for part in line[4:].split("&&"):
                if "swift build" in part:
                    commands.append(part.strip())
    print("\n".join(commands))


def toolchain(checkouts):
    image = next(l for l in build_stage() if l.upper().startswith("FROM "))
    match = re.search(r"swift:(\d+)\.(\d+)", image)
    if not match:
        sys.exit(f"Dockerfile: cannot tell the Swift version of '{image}'")
    have = (int(match.group(1)), int(match.group(2)))
    newest, who = (0, 0), ""
    for name in sorted(os.listdir(checkouts)):
        manifest = os.path.join(checkouts, name, "Package.swift")
        if not os.path.exists(manifest):
            continue
        found = re.search(r"swift-tools-version:\s*(\d+)\.(\d+)", open(manifest).readline())
        if found and (int(found.group(1)), int(found.group(2))) > newest:
            newest, who = (int(found.group(1)), int(found.group(2))), name
    own = re.search(r"swift-tools-version:\s*(\d+)\.(\d+)", open(os.path.join(ROOT, "Package.swift")).readline())
    if own and (int(own.group(1)), int(own.group(2))) > newest:
        newest, who = (int(own.group(1)), int(own.group(2))), "homegate itself"
    if newest > have:
        sys.exit(f"Dockerfile: {image} is Swift {have[0]}.{have[1]}, but {who} needs swift-tools-version {newest[0]}.{newest[1]}")
    print(f"toolchain: {image.split()[1]} is Swift {have[0]}.{have[1]}; the newest swift-tools-version needed is {newest[0]}.{newest[1]} ({who})")


if __name__ == "__main__":
    {"stage": stage, "toolchain": toolchain}[sys.argv[1]](sys.argv[2])
