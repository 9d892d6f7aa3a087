#!/bin/sh
# make rpm / make deb: builds the distribution packages from the release
# tarball (make dist), offline, into build/packages/rpm or build/packages/deb,
# then checks each package's file list against packaging/contents.txt.
# usage: package.sh rpm|deb VERSION
set -eu
format=$1 version=$2
cd "$(dirname "$0")/.."
top=$(pwd)
tarball=$top/build/dist/crio-pin-$version.tar.gz
[ -f "$tarball" ] || { echo "$tarball is missing: run make dist" >&2; exit 1; }
out=$top/build/packages/$format
work=$top/build/packages/$format-build
rm -rf "$out" "$work"
mkdir -p "$out" "$work"
export CARGO_NET_OFFLINE=true

# list_files PACKAGE-FILE: the paths it holds, docs and directories aside.
list_files() {
    case $format in
        rpm) rpm -qp --nosignature --queryformat '[%{FILEMODES:perms} %{FILENAMES}\n]' "$1" 2>/dev/null \
                 | awk '$1 !~ /^d/ { print $2 }' ;;
        deb) dpkg -c "$1" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }' ;;
    esac | grep -v -e '^/usr/share/doc/' -e '^/usr/share/licenses/' -e '^/usr/share/lintian/' || true
}

package_name() {
    case $format in
        rpm) rpm -qp --nosignature --queryformat '%{NAME}' "$1" 2>/dev/null ;;
        deb) dpkg-deb -f "$1" Package ;;
    esac
}

# A line a minute while a package builds (tools/logged.sh).
logged() {
    sh tools/logged.sh "$@"
}

start=$(date +%s)
case $format in
rpm)
    command -v rpmbuild >/dev/null || { echo "rpmbuild is missing: apt-get install rpm" >&2; exit 1; }
    mkdir -p "$work/SOURCES"
    cp "$tarball" "$work/SOURCES/"
    # Debian's rpm has no find-debuginfo: no -debuginfo packages here (a
    # Fedora build makes them as usual). --nodeps: the toolchain is not
    # installed as RPMs on this machine.
    echo "rpmbuild: building and testing the packages offline (log: build/packages/rpm-build/rpmbuild.log)"
    logged "$work/rpmbuild.log" rpmbuild -bb --nodeps --define "_topdir $work" --define "debug_package %{nil}" \
        packaging/rpm/crio-pin.spec || {
        tail -n 40 "$work/rpmbuild.log"; echo "make rpm: rpmbuild failed (log: $work/rpmbuild.log)" >&2; exit 1; }
    find "$work/RPMS" -name '*.rpm' -exec cp {} "$out/" \;
    ;;
deb)
    command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null || {
        echo "dpkg-buildpackage or debhelper is missing: apt-get install dpkg-dev debhelper" >&2; exit 1; }
    cp "$tarball" "$work/crio-pin_$version.orig.tar.gz"
    tar -xzf "$tarball" -C "$work"
    src=$work/crio-pin-$version
    cp -r "$src/packaging/debian" "$src/debian"
    # -d: the Rust toolchain is not a Debian package here (Debian 12's is
    # too old), so build dependencies are not checked.
    echo "dpkg-buildpackage: building and testing the packages offline (log: build/packages/deb-build/dpkg-buildpackage.log)"
    logged "$work/dpkg-buildpackage.log" sh -c 'cd "$1" && dpkg-buildpackage -us -uc -b -d' sh "$src" || {
        tail -n 40 "$work/dpkg-buildpackage.log"
        echo "make deb: dpkg-buildpackage failed (log: $work/dpkg-buildpackage.log)" >&2; exit 1; }
    cp "$work"/*.deb "$out/"
    if command -v lintian >/dev/null; then
        # Reported, not fatal for warnings; errors fail the build.
        lintian --no-tag-display-limit "$work"/*.changes > "$out/lintian.txt" 2>&1 || true
        echo "lintian: $(grep -c '^E:' "$out/lintian.txt" || true) errors, $(grep -c '^W:' "$out/lintian.txt" || true) warnings, $(grep -c '^I:' "$out/lintian.txt" || true) info (build/packages/deb/lintian.txt)"
        sed 's/^/  /' "$out/lintian.txt"
        ! grep -q '^E:' "$out/lintian.txt" || { echo "make deb: lintian reports errors" >&2; exit 1; }
    fi
    ;;
*) echo "usage: $0 rpm|deb VERSION" >&2; exit 2 ;;
esac
echo "make $format: built in $(( $(date +%s) - start )) s"

# Every file of every package is expected, and every expected file is there.
fail=0
expected=$(awk -v f="$format" '$1 == f { print $2 " " $3 }' packaging/contents.txt)
seen=""
for pkg in "$out"/*."$format"; do
    name=$(package_name "$pkg")
    echo "$(basename "$pkg"): $(du -h "$pkg" | cut -f1)"
    for path in $(list_files "$pkg"); do
        echo "  $path"
        matched=""
        while read -r want_pkg want_path; do
            # shellcheck disable=SC2254
            case $path in $want_path) [ "$want_pkg" = "$name" ] && matched="$want_pkg $want_path" ;; esac
        done <<EOF2
$expected
EOF2
        if [ -z "$matched" ]; then
            echo "FAIL: $name holds $path, which packaging/contents.txt does not expect there"; fail=1
        else
            seen="$seen
$matched"
        fi
    done
done
while read -r want_pkg want_path; do
    echo "$seen" | grep -qxF "$want_pkg $want_path" || {
        echo "FAIL: no $format package $want_pkg holds $want_path"; fail=1; }
done <<EOF2
$expected
EOF2
[ $fail = 0 ] && echo "make $format: every package holds exactly the expected files"
exit $fail
