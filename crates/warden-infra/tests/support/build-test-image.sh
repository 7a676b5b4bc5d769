#!/bin/sh
# Builds a tiny Docker image for tests from this machine's own binaries, so
# no registry is needed: /bin/sh, sleep, cat and echo plus the shared
# libraries `ldd` lists, imported as a one-layer image.
#
# Usage: build-test-image.sh [TAG]   (default warden-test-base:1)
# Prints the tag. Does nothing when an image with that tag already exists,
# so callers may run it before every test; bump the tag when this changes.
set -eu

tag="${1:-warden-test-base:1}"
if docker image inspect "$tag" >/dev/null 2>&1; then
    echo "$tag"
    exit 0
fi

root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT

copy_with_parents() {
    mkdir -p "$root$(dirname "$2")"
    cp -L "$1" "$root$2"
}

for program in /bin/sh /bin/sleep /bin/cat /bin/echo; do
    # /bin may be a link to /usr/bin and sh a link to dash: copy the target
    # under the name the tests use.
    copy_with_parents "$program" "$program"
    # `libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x…)` and
    # `/lib64/ld-linux-x86-64.so.2 (0x…)`: every absolute path is a library
    # the program needs at that very path.
    for library in $(ldd "$(readlink -f "$program")" 2>/dev/null | grep -o '/[^ )]*'); do
        [ -e "$root$library" ] || copy_with_parents "$library" "$library"
    done
done
# Mount points the engine fills in (/etc/hostname, /etc/hosts, …) and /tmp.
mkdir -p "$root/etc" "$root/tmp" "$root/proc" "$root/sys" "$root/dev"
chmod 1777 "$root/tmp"

tar -C "$root" -c . | docker import \
    --change 'CMD ["/bin/sleep", "300"]' \
    --change 'LABEL org.warden.test=1' \
    - "$tag" >/dev/null
echo "$tag"
