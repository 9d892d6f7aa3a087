#!/bin/sh
# make dist: build/dist/crio-pin-VERSION.tar.gz (and .sha256), a source
# release that builds offline: the tracked sources, every crate the
# workspace needs (cargo vendor) with the cargo configuration that uses
# them, LICENSE, CHANGELOG.md and the generated header (tracked).
# usage: dist.sh VERSION
set -eu
version=$1
cd "$(dirname "$0")/.."
name=crio-pin-$version
out=build/dist
root=$out/$name
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || {
    echo "make dist needs the git checkout (it packs the tracked files)" >&2; exit 1; }
rm -rf "$root" "$out/$name.tar.gz" "$out/$name.tar.gz.sha256"
mkdir -p "$root/.cargo"
# The tracked files as they are in the work tree. The fuzz crate is left
# out: it needs nightly and libFuzzer, which no package build has.
git ls-files -z -- . ':!:fuzz' ':!:.ci' | xargs -0 tar -cf - | tar -xf - -C "$root"
# The crates of the whole workspace (library, CLI, their tests and
# benches), pinned by Cargo.lock; cargo prints the configuration that
# replaces crates.io with the vendored copy.
(cd "$root" && cargo vendor --locked --versioned-dirs vendor) > "$root/.cargo/config.toml" 2>/dev/null
grep -q "vendored-sources" "$root/.cargo/config.toml" || { echo "cargo vendor wrote no source replacement" >&2; exit 1; }
# Reproducible archive: sorted names, fixed owner and times.
tar --sort=name --owner=0 --group=0 --numeric-owner \
    --mtime="@$(git log -1 --format=%ct)" -C "$out" -czf "$out/$name.tar.gz" "$name"
(cd "$out" && sha256sum "$name.tar.gz" > "$name.tar.gz.sha256")
rm -rf "$root"
echo "dist: $out/$name.tar.gz ($(du -h "$out/$name.tar.gz" | cut -f1)), sha256 in $name.tar.gz.sha256"
