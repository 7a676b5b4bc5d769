#!/bin/sh
# Builds the fleet tests' agent image locally (no registry can be reached):
# the given `warden` binary (glibc, dynamically linked) at
# /usr/local/bin/warden, a few harmless programs the tests run (sh, sleep,
# cat, echo, true, touch, ls, uptime, df) and every shared library `ldd`
# lists for them, imported as a one-layer image.
# The router's fast paths need some of them (`load on HOST`: cat, nproc).
#
# Usage: build-agent-image.sh WARDEN_BINARY
# Prints the tag, `warden-fleet-agent:<first 16 hex of the SHA-256 of the
# binary and of this script>`.
# Does nothing when that tag exists, so callers may run it before every
# test; older tags of this image are removed when a new one is built.
set -eu

binary="${1:?usage: build-agent-image.sh WARDEN_BINARY}"
[ -x "$binary" ] || { echo "not an executable: $binary" >&2; exit 1; }
repo="warden-fleet-agent"
hash="$(cat "$binary" "$0" | sha256sum | cut -c1-16)"
tag="$repo:$hash"
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

copy_libraries_of() {
    # `libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x…)` and
    # `/lib64/ld-linux-x86-64.so.2 (0x…)`: every absolute path is a library
    # the program needs at that very path.
    for library in $(ldd "$1" 2>/dev/null | grep -o '/[^ )]*'); do
        [ -e "$root$library" ] || copy_with_parents "$library" "$library"
    done
}

for program in sh sleep cat echo true touch ls uptime df nproc free; do
    # The program itself, not a shell builtin of the same name.
    path=""
    for dir in /usr/bin /bin; do
        [ -x "$dir/$program" ] && { path="$dir/$program"; break; }
    done
    [ -n "$path" ] || { echo "$program not found in /usr/bin or /bin" >&2; exit 1; }
    # /bin may be a link to /usr/bin and sh a link to dash: copy the target
    # under /bin, where the agent's clean PATH finds it.
    copy_with_parents "$path" "/bin/$program"
    copy_libraries_of "$(readlink -f "$path")"
done

# The binary without its debug information (a debug build is mostly that).
mkdir -p "$root/usr/local/bin"
if command -v objcopy >/dev/null 2>&1; then
    objcopy --strip-debug "$binary" "$root/usr/local/bin/warden"
else
    cp "$binary" "$root/usr/local/bin/warden"
fi
chmod 0755 "$root/usr/local/bin/warden"
copy_libraries_of "$binary"

# Mount points the engine fills in (/etc/hostname, /etc/hosts, …), /tmp,
# and the agent's state directory.
mkdir -p "$root/etc" "$root/tmp" "$root/proc" "$root/sys" "$root/dev" \
    "$root/var/lib/warden-agent" "$root/root"
chmod 1777 "$root/tmp"
chmod 0700 "$root/var/lib/warden-agent"
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\n' >"$root/etc/group"

tar -C "$root" -c . | docker import \
    --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin' \
    --change 'CMD ["/bin/sleep", "3600"]' \
    --change 'LABEL org.warden.test=1' \
    - "$tag" >/dev/null

# Keep only this build of the image.
docker image ls --format '{{.Repository}}:{{.Tag}}' "$repo" | while read -r old; do
    [ "$old" = "$tag" ] || docker image rm "$old" >/dev/null 2>&1 || true
done
echo "$tag"
